"""Serializers of the contacts app."""

from __future__ import annotations

from rest_framework import serializers

from demo_project.contacts.models import Contact


class ContactSerializer(serializers.ModelSerializer[Contact]):
    """A contact as the REST API reads and writes it."""

    class Meta:
        model = Contact
        fields = (
            "id",
            "email",
            "first_name",
            "last_name",
            "phone",
            "notes",
            "created_at",
        )
        read_only_fields = ("id", "created_at")
