"""Languages, and components with a source language."""

from __future__ import annotations

from django.db import models


class Language(models.Model):
    code = models.CharField(max_length=20, unique=True)
    name = models.CharField(max_length=100)
    #: Other codes of the language, comma-separated.
    aliases = models.CharField(max_length=200, blank=True)
    direction = models.CharField(
        max_length=3, choices=[("ltr", "ltr"), ("rtl", "rtl")], default="ltr"
    )

    def __str__(self) -> str:
        return self.code


class Component(models.Model):
    slug = models.SlugField(unique=True)
    name = models.CharField(max_length=100)
    source_language = models.ForeignKey(
        Language, on_delete=models.PROTECT, related_name="components"
    )

    def __str__(self) -> str:
        return self.slug
