"""App config of the demo's contacts app."""

from __future__ import annotations

from django.apps import AppConfig


class ContactsConfig(AppConfig):
    """The ``contacts`` app."""

    name = "demo_project.contacts"
    label = "contacts"
    default_auto_field = "django.db.models.BigAutoField"
