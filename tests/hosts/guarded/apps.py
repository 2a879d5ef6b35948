"""App config of the guarded host app."""

from __future__ import annotations

from django.apps import AppConfig


class GuardedConfig(AppConfig):
    """The ``guarded`` app (no migrations: created with run_syncdb)."""

    name = "tests.hosts.guarded"
    label = "guarded"
    default_auto_field = "django.db.models.BigAutoField"
