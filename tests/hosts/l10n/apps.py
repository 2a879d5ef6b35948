"""App config of the localization host."""

from __future__ import annotations

from django.apps import AppConfig


class L10nConfig(AppConfig):
    """The ``l10n`` app (no migrations: created with run_syncdb)."""

    name = "tests.hosts.l10n"
    label = "l10n"
    default_auto_field = "django.db.models.BigAutoField"
