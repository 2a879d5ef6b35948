"""Django app configuration: registers the system checks."""

from __future__ import annotations

from django.apps import AppConfig

__all__ = ["FrisianMCPConfig"]


class FrisianMCPConfig(AppConfig):
    """The ``frisian_mcp`` app."""

    name = "frisian_mcp"
    verbose_name = "frisian_mcp"

    def ready(self) -> None:
        """Register the system checks; extras in ``contrib`` register their own."""
        from frisian_mcp import checks, hooks  # noqa: F401
