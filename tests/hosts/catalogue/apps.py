"""App config of the catalogue host."""

from __future__ import annotations

from django.apps import AppConfig


class CatalogueConfig(AppConfig):
    """The ``catalogue`` app (no migrations: created with run_syncdb)."""

    name = "tests.hosts.catalogue"
    label = "catalogue"
    default_auto_field = "django.db.models.BigAutoField"
