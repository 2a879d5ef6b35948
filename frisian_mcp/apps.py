"""Django app configuration: registers the system checks and the receivers."""

from __future__ import annotations

from django.apps import AppConfig

__all__ = ["FrisianMCPConfig"]


class FrisianMCPConfig(AppConfig):
    """The ``frisian_mcp`` app."""

    name = "frisian_mcp"
    verbose_name = "frisian_mcp"

    def ready(self) -> None:
        """Register the system checks and the permission-change receivers.

        The receivers connect here, as Django advises, so that every process
        (web and task workers, management commands) marks the listings'
        kept answers stale. Extras in ``contrib`` register their own parts.
        """
        from frisian_mcp import checks, hooks, rights  # noqa: F401

        rights.watch_permissions()
