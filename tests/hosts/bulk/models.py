"""Sites and the racks in them."""

from __future__ import annotations

from django.db import models

STATUSES = [("planned", "Planned"), ("active", "Active"), ("retired", "Retired")]


class Site(models.Model):
    name = models.CharField(max_length=100, unique=True)
    slug = models.SlugField(max_length=100, unique=True)
    status = models.CharField(max_length=20, choices=STATUSES, default="active")
    description = models.CharField(max_length=200, blank=True)

    def __str__(self) -> str:
        return self.name


class Rack(models.Model):
    site = models.ForeignKey(Site, on_delete=models.PROTECT, related_name="racks")
    name = models.CharField(max_length=64)
    status = models.CharField(max_length=20, choices=STATUSES, default="active")

    class Meta:
        unique_together = (("site", "name"),)

    def __str__(self) -> str:
        return self.name
