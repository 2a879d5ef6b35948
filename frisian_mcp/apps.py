"""Django app configuration: registers the system checks, nothing else."""

from __future__ import annotations

from django.apps import AppConfig

__all__ = ["FrisianMCPConfig"]


class FrisianMCPConfig(AppConfig):
    """The ``frisian_mcp`` app."""

    name = "frisian_mcp"
    verbose_name = "frisian_mcp"

    def ready(self) -> None:
        """Register the system checks (importing the module registers them)."""
        from frisian_mcp import checks  # noqa: F401
