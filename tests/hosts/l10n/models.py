"""Projects translated into languages; labels of projects; teams with roles."""

from __future__ import annotations

from django.db import models


class Language(models.Model):
    """A language a project can be translated into."""

    code = models.SlugField(max_length=20, unique=True)
    name = models.CharField(max_length=100)

    def __str__(self) -> str:
        return self.code


class Project(models.Model):
    """A translation project, found by its slug."""

    slug = models.SlugField(max_length=100, unique=True)
    name = models.CharField(max_length=100)
    languages = models.ManyToManyField(Language, blank=True, related_name="projects")

    def __str__(self) -> str:
        return self.slug


class Label(models.Model):
    """A coloured label of a project."""

    project = models.ForeignKey(
        Project, on_delete=models.CASCADE, related_name="labels"
    )
    name = models.CharField(max_length=50)
    color = models.CharField(max_length=20)

    def __str__(self) -> str:
        return self.name


class Role(models.Model):
    """A set of permissions a team grants."""

    name = models.CharField(max_length=50, unique=True)

    def __str__(self) -> str:
        return self.name


class Team(models.Model):
    """A group of translators with roles."""

    name = models.CharField(max_length=50, unique=True)
    roles = models.ManyToManyField(Role, blank=True, related_name="teams")

    def __str__(self) -> str:
        return self.name
