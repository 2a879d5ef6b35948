"""App config of the custom-field host."""

from __future__ import annotations

from django.apps import AppConfig


class CustomFieldsConfig(AppConfig):
    """The ``customfields`` app (no migrations: created with run_syncdb)."""

    name = "tests.hosts.customfields"
    label = "customfields"
    default_auto_field = "django.db.models.BigAutoField"
