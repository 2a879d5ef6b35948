"""Notebooks and notes, with markup in every text the host shows."""

from __future__ import annotations

from django.db import models

#: Markup that would set ``window.__pwned`` if a page ran it.
SCRIPT = "<script>window.__pwned = 'help_text'</script>"
IMAGE = "<img src=x onerror=\"window.__pwned = 'label'\">"


class Notebook(models.Model):
    """A named notebook."""

    name = models.CharField(max_length=50, unique=True, help_text=SCRIPT)

    def __str__(self) -> str:
        return self.name


class Note(models.Model):
    """A note in a notebook."""

    KINDS = [("plain", IMAGE), ("todo", "To do")]

    notebook = models.ForeignKey(
        Notebook, on_delete=models.CASCADE, related_name="notes", help_text=IMAGE
    )
    title = models.CharField(max_length=80, help_text=SCRIPT)
    kind = models.CharField(max_length=10, choices=KINDS, default="plain")
    body = models.TextField(blank=True)

    def __str__(self) -> str:
        return self.title
