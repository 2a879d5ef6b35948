"""A document store: a file, an optional picture, the name it came with."""

from __future__ import annotations

from django.db import models


class Paper(models.Model):
    """One stored document."""

    title = models.CharField(max_length=100)
    attachment = models.FileField(upload_to="papers/")
    picture = models.ImageField(upload_to="pictures/", null=True, blank=True)
    appendix = models.FileField(upload_to="appendices/", blank=True)
    filename = models.CharField(max_length=255, blank=True, editable=False)

    def __str__(self) -> str:
        return self.title
