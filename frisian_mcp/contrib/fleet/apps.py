"""The fleet store's app: offers the store, and follows permission changes."""

from __future__ import annotations

from django.apps import AppConfig

__all__ = ["FleetConfig"]


class FleetConfig(AppConfig):
    """``frisian_mcp.contrib.fleet``."""

    name = "frisian_mcp.contrib.fleet"
    label = "frisian_mcp_fleet"
    verbose_name = "frisian_mcp fleet store"

    def ready(self) -> None:
        """Offer the store as ``STORE_BACKEND``, and connect to the core's
        :data:`~frisian_mcp.rights.permissions_changed` here, as Django
        advises, so that every process marks cached tool lists stale: web
        workers, task workers and management commands."""
        from frisian_mcp.contrib.fleet import permissions
        from frisian_mcp.hooks import provide
        from frisian_mcp.rights import permissions_changed

        permissions_changed.connect(permissions.stale, dispatch_uid="fmcp.fleet")
        store = "frisian_mcp.contrib.fleet.store.FleetStore"
        provide(self.name, "STORE_BACKEND", store)
