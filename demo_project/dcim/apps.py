"""App config of the demo's dcim app."""

from __future__ import annotations

from django.apps import AppConfig


class DcimConfig(AppConfig):
    """The ``dcim`` app (data-centre inventory)."""

    name = "demo_project.dcim"
    label = "dcim"
    verbose_name = "DCIM"
    default_auto_field = "django.db.models.BigAutoField"
