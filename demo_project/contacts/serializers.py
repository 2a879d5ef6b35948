"""Serializers of the contacts app."""

from __future__ import annotations

from typing import Any

from django.core.files.uploadedfile import UploadedFile
from rest_framework import serializers

from demo_project.contacts.models import Attachment, Contact


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


class AttachmentSerializer(serializers.ModelSerializer[Attachment]):
    """A contact's file; ``filename`` is the name it was uploaded with."""

    class Meta:
        model = Attachment
        fields = ("id", "contact", "file", "filename", "uploaded_at")
        read_only_fields = ("id", "filename", "uploaded_at")

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        upload = attrs.get("file")
        if isinstance(upload, UploadedFile):
            attrs["filename"] = upload.name
        return attrs
