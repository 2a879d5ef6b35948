"""App config of the file-moving host."""

from __future__ import annotations

from django.apps import AppConfig


class FilesHostConfig(AppConfig):
    """The ``fileshost`` app (no migrations: created with run_syncdb)."""

    name = "tests.hosts.files"
    label = "fileshost"
    default_auto_field = "django.db.models.BigAutoField"
