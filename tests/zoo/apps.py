"""App config of the zoo of real-world DRF patterns."""

from __future__ import annotations

from django.apps import AppConfig


class ZooConfig(AppConfig):
    """The ``zoo`` app (no migrations: created with run_syncdb, as testapp)."""

    name = "tests.zoo"
    label = "zoo"
    default_auto_field = "django.db.models.BigAutoField"
