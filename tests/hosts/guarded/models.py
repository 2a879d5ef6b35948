"""Projects, their components, languages, and the host's own roles."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Project(models.Model):
    """A project; guardian grants view/change/delete on each one."""

    slug = models.SlugField(unique=True)
    name = models.CharField(max_length=100)

    def __str__(self) -> str:
        return self.slug


class Component(models.Model):
    """A part of a project, addressed under it: /projects/{slug}/components/."""

    project = models.ForeignKey(
        Project, on_delete=models.CASCADE, related_name="components"
    )
    slug = models.SlugField()
    name = models.CharField(max_length=100)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["project", "slug"], name="guarded_component_slug"
            )
        ]

    def __str__(self) -> str:
        return self.slug


class Language(models.Model):
    """A language, looked up by its (writable) code."""

    code = models.CharField(max_length=20, unique=True)
    name = models.CharField(max_length=100)

    def __str__(self) -> str:
        return self.code


class Role(models.Model):
    """The host's own role model: its members may do what it names."""

    name = models.SlugField(unique=True)
    members = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="guarded_roles"
    )

    def __str__(self) -> str:
        return self.name
