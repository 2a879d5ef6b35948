"""App config of the document-management host."""

from __future__ import annotations

from django.apps import AppConfig


class DocSearchConfig(AppConfig):
    """The ``docsearch`` app (no migrations: created with run_syncdb)."""

    name = "tests.hosts.docsearch"
    label = "docsearch"
    default_auto_field = "django.db.models.BigAutoField"
