"""App config of the notebook host."""

from __future__ import annotations

from django.apps import AppConfig


class NotebookConfig(AppConfig):
    """The ``notebook`` app (no migrations: created with run_syncdb)."""

    name = "tests.hosts.notebook"
    label = "notebook"
    default_auto_field = "django.db.models.BigAutoField"
