"""App config of the glossary host."""

from __future__ import annotations

from django.apps import AppConfig


class GlossaryConfig(AppConfig):
    """The ``glossary`` app (no migrations: created with run_syncdb)."""

    name = "tests.hosts.glossary"
    label = "glossary"
    default_auto_field = "django.db.models.BigAutoField"
