"""App config of the translation platform host."""

from __future__ import annotations

from django.apps import AppConfig


class PlatformConfig(AppConfig):
    """The ``platform`` app (no migrations: created with run_syncdb)."""

    name = "tests.hosts.platform"
    label = "platform"
    default_auto_field = "django.db.models.BigAutoField"
