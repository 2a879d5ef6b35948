"""Dispatcher tools for large APIs: ``TOOL_LAYOUT = "dispatcher"``.

Enable it with ``"frisian_mcp.contrib.dispatchers"`` in ``INSTALLED_APPS``;
docs/index.md ("Large APIs") describes the layout, docs/settings.md its
settings.
"""

from __future__ import annotations

from frisian_mcp.conf import Setting, declare, one_of

# Declared here, not in ready(), as every extra's rows (see contrib.confirm).
declare(
    __name__,
    DISPATCHER_GROUP_BY=Setting(
        "app", one_of("app", "namespace", "path"), "Grouping (contrib.dispatchers)."
    ),
)
