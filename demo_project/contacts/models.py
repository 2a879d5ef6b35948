"""The Contact model.

Every field but the key and the timestamp is optional, as in many real address
books. That is what let the REST-style ``{"data": {...}}`` wrapper create empty
rows before frisian_mcp's guards existed (ADR 0002).
"""

from __future__ import annotations

import uuid

from django.db import models


class Contact(models.Model):
    """A person, with optional email, name, phone and notes."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    email = models.EmailField(blank=True)
    first_name = models.CharField(max_length=100, blank=True)
    last_name = models.CharField(max_length=100, blank=True)
    phone = models.CharField(max_length=32, blank=True)
    notes = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ("created_at", "id")
        verbose_name = "contact"

    def __str__(self) -> str:
        name = f"{self.first_name} {self.last_name}".strip()
        return name or self.email or str(self.pk)


class Attachment(models.Model):
    """A file kept with a contact (a CV, a signed form), as uploaded."""

    contact = models.ForeignKey(
        Contact, on_delete=models.CASCADE, related_name="attachments"
    )
    file = models.FileField(upload_to="attachments/")
    #: The name the file was uploaded with (storage may rename it).
    filename = models.CharField(max_length=255, blank=True, editable=False)
    uploaded_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("uploaded_at", "id")
        verbose_name = "file attachment"

    def __str__(self) -> str:
        return self.filename or str(self.file.name)
