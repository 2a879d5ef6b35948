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

        Receivers connect here, as Django advises, so every process marks
        cached tool lists stale: web workers before their first request,
        task workers and management commands too.
        """
        from frisian_mcp import cache, checks, oauth_checks  # noqa: F401

        cache.watch_permissions()
