"""The fleet store's app: connects the permission-change receivers."""

from __future__ import annotations

from django.apps import AppConfig

__all__ = ["FleetConfig"]


class FleetConfig(AppConfig):
    """``frisian_mcp.contrib.fleet``."""

    name = "frisian_mcp.contrib.fleet"
    label = "frisian_mcp_fleet"
    verbose_name = "frisian_mcp fleet store"

    def ready(self) -> None:
        """Connect the receivers here, as Django advises, so that every
        process marks cached tool lists stale: web workers before their
        first request, task workers and management commands too."""
        from frisian_mcp.contrib.fleet import permissions

        permissions.watch_permissions()
