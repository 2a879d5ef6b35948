"""App config of the bulk-routes host."""

from __future__ import annotations

from django.apps import AppConfig


class BulkConfig(AppConfig):
    """The ``bulk`` app (no migrations: created with run_syncdb)."""

    name = "tests.hosts.bulk"
    label = "bulk"
    default_auto_field = "django.db.models.BigAutoField"
