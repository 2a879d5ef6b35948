"""App config of the localization host."""

from __future__ import annotations

from django.apps import AppConfig


class TranslationsConfig(AppConfig):
    """The ``translations`` app (no migrations: created with run_syncdb)."""

    name = "tests.hosts.translations"
    label = "translations"
    default_auto_field = "django.db.models.BigAutoField"
