"""Test models covering the field types and relations frisian_mcp maps."""

from __future__ import annotations

import uuid

from django.contrib.contenttypes.fields import GenericForeignKey
from django.core.validators import MaxValueValidator
from django.db import models
from django.utils import timezone


class Publisher(models.Model):
    """A publisher; unique by name."""

    name = models.CharField(max_length=100, unique=True)
    country = models.CharField(max_length=2, blank=True)
    #: Unique when set; several publishers may have none (a lookup on
    #: ``{"code": null}`` can match several rows).
    code = models.CharField(max_length=10, unique=True, null=True, blank=True)

    def __str__(self) -> str:
        return self.name


class Book(models.Model):
    """A book with one field of (almost) every kind."""

    class Genre(models.TextChoices):
        FICTION = "fiction", "Fiction"
        SCIENCE = "science", "Science"
        HISTORY = "history", "History"

    title = models.CharField(max_length=200)
    isbn = models.CharField(max_length=13, unique=True)
    publisher = models.ForeignKey(
        Publisher,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="books",
    )
    genre = models.CharField(
        max_length=20, choices=Genre.choices, default=Genre.FICTION
    )
    price = models.DecimalField(max_digits=8, decimal_places=2, null=True, blank=True)
    pages = models.PositiveIntegerField(
        default=100, validators=[MaxValueValidator(10000)]
    )
    rating = models.FloatField(null=True, blank=True)
    in_print = models.BooleanField(default=True)
    published = models.DateField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)
    metadata = models.JSONField(default=dict, blank=True)
    website = models.URLField(blank=True)
    uid = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    sequels = models.ManyToManyField("self", blank=True, symmetrical=False)

    def __str__(self) -> str:
        return self.title


class Shelf(models.Model):
    """A shelf, unique by (room, number): a unique-together lookup."""

    room = models.CharField(max_length=20)
    number = models.PositiveIntegerField()
    books = models.ManyToManyField(Book, blank=True, related_name="shelves")

    class Meta:
        unique_together = (("room", "number"),)

    def __str__(self) -> str:
        return f"{self.room}/{self.number}"


class ShelfLabel(models.Model):
    """A label on a shelf: its FK points at a model unique by (room, number)."""

    shelf = models.ForeignKey(Shelf, on_delete=models.CASCADE, related_name="labels")
    text = models.CharField(max_length=50)

    def __str__(self) -> str:
        return self.text


class CleanupNote(models.Model):
    """A note on any row through a generic foreign key (cleanup tests)."""

    # testapp has no migrations: its tables are created before those of the
    # migrated apps, so a database constraint to django_content_type would
    # name a table that does not exist yet (PostgreSQL refuses it).
    content_type = models.ForeignKey(
        "contenttypes.ContentType", on_delete=models.CASCADE, db_constraint=False
    )
    object_id = models.CharField(max_length=64)
    target = GenericForeignKey("content_type", "object_id")
    text = models.CharField(max_length=100, blank=True)

    def __str__(self) -> str:
        return self.text


class CleanupTicket(models.Model):
    """A ticket whose defaults exercise the cleanup command's emptiness rules.

    ``reference`` and ``opened`` get a fresh value per row (not content);
    ``labels`` is empty as ``[]``; ``parent`` makes tickets refer to tickets.
    """

    title = models.CharField(max_length=100, blank=True)
    reference = models.UUIDField(default=uuid.uuid4, unique=True)
    opened = models.DateTimeField(default=timezone.now)
    labels = models.JSONField(default=list, blank=True)
    priority = models.PositiveSmallIntegerField(default=3)
    due = models.DateField(null=True, blank=True)
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.CASCADE, related_name="children"
    )

    def __str__(self) -> str:
        return self.title
