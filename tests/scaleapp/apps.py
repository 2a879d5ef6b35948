"""App config of the generated scale app."""

from __future__ import annotations

from django.apps import AppConfig


class ScaleAppConfig(AppConfig):
    """The ``scaleapp`` app: 300 generated, table-less models."""

    name = "tests.scaleapp"
    label = "scaleapp"
    default_auto_field = "django.db.models.BigAutoField"
