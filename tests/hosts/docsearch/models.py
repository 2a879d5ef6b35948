"""Documents, their tags and the application's configuration."""

from __future__ import annotations

from django.db import models


class Tag(models.Model):
    """A label; unique by name."""

    name = models.CharField(max_length=50, unique=True)
    color = models.CharField(max_length=7, default="#a6cee3")

    def __str__(self) -> str:
        return self.name


class Document(models.Model):
    """A document whose content the search backend indexes."""

    title = models.CharField(max_length=120)
    content = models.TextField(blank=True)
    tags = models.ManyToManyField(Tag, blank=True, related_name="documents")
    inbox_tag = models.ForeignKey(
        Tag, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    def __str__(self) -> str:
        return self.title


class Config(models.Model):
    """The application's settings, one row edited through the API."""

    app_title = models.CharField(max_length=60, blank=True)
    ocr_pages = models.PositiveIntegerField(default=0)

    def __str__(self) -> str:
        return self.app_title
