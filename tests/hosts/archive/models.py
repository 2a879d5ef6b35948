"""Documents with tags, a correspondent, a status and custom-field values."""

from __future__ import annotations

from django.db import models


class Tag(models.Model):
    """A tag documents carry."""

    name = models.CharField(max_length=50, unique=True)

    def __str__(self) -> str:
        return self.name


class Correspondent(models.Model):
    """Who sent a document."""

    name = models.CharField(max_length=50, unique=True)

    def __str__(self) -> str:
        return self.name


class CustomField(models.Model):
    """A custom field: each adds a filter to the document filter set."""

    name = models.SlugField(max_length=50, unique=True)

    def __str__(self) -> str:
        return self.name


class Document(models.Model):
    """A document; ``custom_fields`` holds a value per :class:`CustomField`."""

    STATUSES = (("inbox", "Inbox"), ("filed", "Filed"), ("archived", "Archived"))

    title = models.CharField(max_length=100)
    status = models.CharField(max_length=10, choices=STATUSES, default="inbox")
    correspondent = models.ForeignKey(
        Correspondent, null=True, blank=True, on_delete=models.SET_NULL
    )
    tags = models.ManyToManyField(Tag, blank=True, related_name="documents")
    custom_fields = models.JSONField(default=dict, blank=True)

    def __str__(self) -> str:
        return self.title
