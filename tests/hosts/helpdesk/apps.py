"""App config of the helpdesk host."""

from __future__ import annotations

from django.apps import AppConfig


class HelpdeskConfig(AppConfig):
    """The ``hosts_helpdesk`` app (no migrations: created with run_syncdb)."""

    name = "tests.hosts.helpdesk"
    label = "hosts_helpdesk"
    default_auto_field = "django.db.models.BigAutoField"
