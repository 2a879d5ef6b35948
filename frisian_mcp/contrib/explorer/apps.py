"""App config of the tool explorer: its checks, templates and static files."""

from __future__ import annotations

from django.apps import AppConfig


class ExplorerConfig(AppConfig):
    """``frisian_mcp.contrib.explorer``; ``ready()`` registers its checks."""

    name = "frisian_mcp.contrib.explorer"
    label = "frisian_mcp_explorer"
    verbose_name = "frisian_mcp tool explorer"

    def ready(self) -> None:
        """Register the explorer's system checks."""
        from frisian_mcp.contrib.explorer import checks  # noqa: F401
