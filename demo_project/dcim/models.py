"""Sites, devices and tags: a small slice of a data-centre inventory."""

from __future__ import annotations

from django.db import models


class Tag(models.Model):
    """A label that can be put on devices."""

    name = models.CharField(max_length=50, unique=True)
    slug = models.SlugField(max_length=50, unique=True)

    class Meta:
        ordering = ("name",)

    def __str__(self) -> str:
        return self.name


class Site(models.Model):
    """A place that hosts devices, such as a data centre or an office."""

    name = models.CharField(max_length=100, unique=True)
    slug = models.SlugField(max_length=100, unique=True)
    description = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ("name",)

    def __str__(self) -> str:
        return self.name


class Device(models.Model):
    """A piece of hardware at a site; its name is unique within the site."""

    class Status(models.TextChoices):
        ACTIVE = "active", "Active"
        PLANNED = "planned", "Planned"
        OFFLINE = "offline", "Offline"
        DECOMMISSIONING = "decommissioning", "Decommissioning"

    name = models.CharField(max_length=64)
    site = models.ForeignKey(Site, on_delete=models.PROTECT, related_name="devices")
    status = models.CharField(
        max_length=20, choices=Status.choices, default=Status.ACTIVE
    )
    serial = models.CharField(max_length=50, blank=True)
    tags = models.ManyToManyField(Tag, blank=True, related_name="devices")

    class Meta:
        ordering = ("site__name", "name")
        constraints = (
            models.UniqueConstraint(
                fields=("site", "name"), name="dcim_device_unique_site_name"
            ),
        )

    def __str__(self) -> str:
        return self.name
