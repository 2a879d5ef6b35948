"""App config of the interface-assignment host."""

from __future__ import annotations

from django.apps import AppConfig


class GenericConfig(AppConfig):
    """The ``generic`` app (no migrations: created with run_syncdb)."""

    name = "tests.hosts.generic"
    label = "generic"
    default_auto_field = "django.db.models.BigAutoField"
