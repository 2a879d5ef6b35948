"""App config of the network-inventory host."""

from __future__ import annotations

from django.apps import AppConfig


class IpamConfig(AppConfig):
    """The ``ipam`` app (no migrations: created with run_syncdb)."""

    name = "tests.hosts.ipam"
    label = "ipam"
    default_auto_field = "django.db.models.BigAutoField"
