"""Confirmation before destructive tools run (docs/safety.md).

Enable it with ``"frisian_mcp.contrib.confirm"`` in ``INSTALLED_APPS``,
``"frisian_mcp.contrib.confirm.hooks.ConfirmationHook"`` in
``FRISIAN_MCP["CALL_HOOKS"]`` and the tools in ``FRISIAN_MCP["CONFIRM"]``.
"""

from __future__ import annotations

from frisian_mcp.conf import GLOBS, Setting, at_least, declare

# Declared here, not in ready(): a hook named in CALL_HOOKS reads its rows
# even when the app is not installed (W014 says so).
declare(
    __name__,
    CONFIRM=Setting(
        [], GLOBS, "Tools that need a person's confirmation (contrib.confirm)."
    ),
    CONFIRM_MAX_AGE=Setting(
        300, at_least(1), "Seconds a confirmation token stays valid (contrib.confirm)."
    ),
)
