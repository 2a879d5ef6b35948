"""REST endpoints of the contacts app."""

from __future__ import annotations

from rest_framework import viewsets

from demo_project.contacts.models import Contact
from demo_project.contacts.serializers import ContactSerializer


class ContactViewSet(viewsets.ModelViewSet[Contact]):
    """People in the address book: name, email, phone and free-text notes."""

    queryset = Contact.objects.all()
    serializer_class = ContactSerializer
    filterset_fields = ("email", "last_name")
    search_fields = ("first_name", "last_name", "email", "notes")
    ordering_fields = ("created_at", "last_name", "email")
