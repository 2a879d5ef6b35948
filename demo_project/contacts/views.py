"""REST endpoints of the contacts app."""

from __future__ import annotations

from typing import Any

from django.http import FileResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import viewsets
from rest_framework.decorators import action

from demo_project.contacts.models import Attachment, Contact
from demo_project.contacts.serializers import AttachmentSerializer, ContactSerializer


class ContactViewSet(viewsets.ModelViewSet[Contact]):
    """People in the address book: name, email, phone and free-text notes."""

    queryset = Contact.objects.all()
    serializer_class = ContactSerializer
    filterset_fields = ("email", "last_name")
    search_fields = ("first_name", "last_name", "email", "notes")
    ordering_fields = ("created_at", "last_name", "email")


class AttachmentViewSet(viewsets.ModelViewSet[Attachment]):
    """Files kept with contacts; download gives the file as uploaded."""

    queryset = Attachment.objects.all()
    serializer_class = AttachmentSerializer
    filterset_fields = ("contact",)

    @extend_schema(responses={(200, "application/octet-stream"): OpenApiTypes.BINARY})
    @action(detail=True, methods=["get"])
    def download(self, request: Any, pk: str | None = None) -> FileResponse:
        """The attachment's file, with the name it was uploaded with."""
        attachment = self.get_object()
        name = attachment.filename or str(attachment.file.name).rpartition("/")[2]
        return FileResponse(
            attachment.file.open("rb"), as_attachment=True, filename=name
        )
