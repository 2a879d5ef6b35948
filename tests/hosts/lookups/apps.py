"""App config of the nested-lookup host."""

from __future__ import annotations

from django.apps import AppConfig


class LookupsConfig(AppConfig):
    """The ``lookups`` app (no migrations: created with run_syncdb)."""

    name = "tests.hosts.lookups"
    label = "lookups"
    default_auto_field = "django.db.models.BigAutoField"
