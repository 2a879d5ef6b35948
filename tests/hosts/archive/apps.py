"""App config of the document-archive host."""

from __future__ import annotations

from django.apps import AppConfig


class ArchiveConfig(AppConfig):
    """The ``hosts_archive`` app (no migrations: created with run_syncdb)."""

    name = "tests.hosts.archive"
    label = "hosts_archive"
    default_auto_field = "django.db.models.BigAutoField"
