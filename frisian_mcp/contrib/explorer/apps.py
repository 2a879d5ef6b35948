"""App config of the tool explorer: its page, checks, templates and static files."""

from __future__ import annotations

from django.apps import AppConfig


class ExplorerConfig(AppConfig):
    """``frisian_mcp.contrib.explorer``; ``ready()`` registers its checks."""

    name = "frisian_mcp.contrib.explorer"
    label = "frisian_mcp_explorer"
    verbose_name = "frisian_mcp tool explorer"

    def ready(self) -> None:
        """Offer the explorer as ``BROWSER_VIEW_CLASS`` (the extra works by
        being installed, ADR 0032) and register its system checks."""
        from frisian_mcp.contrib.explorer import checks  # noqa: F401
        from frisian_mcp.hooks import provide

        page = "frisian_mcp.contrib.explorer.views.ExplorerView"
        provide(self.name, "BROWSER_VIEW_CLASS", page)
