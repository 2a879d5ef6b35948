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
        """Register the layout as ``TOOL_LAYOUT = "dispatcher"`` (and
        "auto"); the package (``__init__``) declares ``DISPATCHER_GROUP_BY``."""
        from frisian_mcp.contrib.dispatchers.layout import DispatcherLayout
        from frisian_mcp.hooks import register_layout

        register_layout("dispatcher", DispatcherLayout)
