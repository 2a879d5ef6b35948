"""The dispatchers app: offers the ``"dispatcher"`` layout to the core."""

from __future__ import annotations

from django.apps import AppConfig

__all__ = ["DispatchersConfig"]


class DispatchersConfig(AppConfig):
    """``frisian_mcp.contrib.dispatchers``."""

    name = "frisian_mcp.contrib.dispatchers"
    label = "frisian_mcp_dispatchers"
    verbose_name = "frisian_mcp dispatcher tools"

    def ready(self) -> None:
        """Declare ``DISPATCHER_GROUP_BY``; register the layout as
        ``TOOL_LAYOUT = "dispatcher"`` (and "auto")."""
        from frisian_mcp.conf import Setting, declare, one_of
        from frisian_mcp.contrib.dispatchers.layout import DispatcherLayout
        from frisian_mcp.hooks import register_layout

        by = one_of("app", "namespace", "path")
        declare(
            self.name,
            DISPATCHER_GROUP_BY=Setting("app", by, "Grouping (contrib.dispatchers)."),
        )

        register_layout("dispatcher", DispatcherLayout)
