"""Projects, their translations and the translations' units."""

from __future__ import annotations

from django.db import models


class Project(models.Model):
    slug = models.SlugField(unique=True)
    active = models.BooleanField(default=True)

    def __str__(self) -> str:
        return self.slug


class Translation(models.Model):
    project = models.ForeignKey(
        Project, on_delete=models.CASCADE, related_name="translations"
    )
    language_code = models.CharField(max_length=10)

    class Meta:
        unique_together = (("project", "language_code"),)

    def __str__(self) -> str:
        return self.language_code


class Unit(models.Model):
    """One string of a translation: its source text and translated text."""

    translation = models.ForeignKey(
        Translation, on_delete=models.CASCADE, related_name="units"
    )
    source = models.CharField(max_length=200)
    target = models.CharField(max_length=200, blank=True)

    def __str__(self) -> str:
        return self.source
