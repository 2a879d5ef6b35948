"""App config so that ``demo_project`` can carry the ``seed_demo`` command."""

from __future__ import annotations

from django.apps import AppConfig


class DemoProjectConfig(AppConfig):
    """The demo project itself: management commands only, no models."""

    name = "demo_project"
    verbose_name = "frisian_mcp demo"
