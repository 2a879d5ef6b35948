"""App config of the test app."""

from __future__ import annotations

from django.apps import AppConfig


class TestAppConfig(AppConfig):
    """The ``testapp`` app (no migrations: created with run_syncdb)."""

    name = "tests.testapp"
    label = "testapp"
    default_auto_field = "django.db.models.BigAutoField"
