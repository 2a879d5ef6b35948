"""Files through tools (docs/files.md, ADR 0027).

Enable it with ``"frisian_mcp.contrib.files"`` in ``INSTALLED_APPS`` and
``"frisian_mcp.contrib.files.hooks.FileHook"`` in
``FRISIAN_MCP["CALL_HOOKS"]``; ``FILE_MAX_BYTES`` caps a file either way.
"""

from __future__ import annotations

from frisian_mcp.conf import Setting, at_least, declare

# Declared here, not in ready(): a hook named in CALL_HOOKS reads its row
# even when the app is not installed (W014 says so).
declare(
    __name__,
    FILE_MAX_BYTES=Setting(
        4_194_304, at_least(1), "Largest file a tool answers or takes (contrib.files)."
    ),
)
