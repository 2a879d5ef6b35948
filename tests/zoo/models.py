"""A small network inventory, shaped as large DRF projects shape theirs.

Manufacturers make device types; devices have a type, tags and a
``custom_fields`` JSON object whose keys are defined by :class:`CustomField`
rows; interfaces belong to devices; a plugin adds inventory items. Device
types protect their manufacturer and devices their type (``PROTECT``).
"""

from __future__ import annotations

from django.db import models


class Manufacturer(models.Model):
    """A maker of devices, unique by name and by slug."""

    name = models.CharField(max_length=100, unique=True)
    slug = models.SlugField(max_length=100, unique=True)
    description = models.CharField(max_length=200, blank=True)

    def __str__(self) -> str:
        return self.name


class DeviceType(models.Model):
    """A model of device; unique by slug and by (manufacturer, model)."""

    manufacturer = models.ForeignKey(
        Manufacturer, on_delete=models.PROTECT, related_name="device_types"
    )
    model = models.CharField(max_length=100)
    slug = models.SlugField(max_length=100, unique=True)
    u_height = models.PositiveSmallIntegerField(default=1)

    class Meta:
        unique_together = (("manufacturer", "model"),)

    def __str__(self) -> str:
        return self.model


class Tag(models.Model):
    """A label for devices, unique by name and by slug."""

    name = models.CharField(max_length=50, unique=True)
    slug = models.SlugField(max_length=50, unique=True)
    color = models.CharField(max_length=6, default="9e9e9e")

    def __str__(self) -> str:
        return self.name


class CustomField(models.Model):
    """A key devices may carry in ``custom_fields``; adds a ``cf_`` filter."""

    name = models.SlugField(max_length=50, unique=True)
    label = models.CharField(max_length=100, blank=True)

    def __str__(self) -> str:
        return self.name


class Device(models.Model):
    """A device of a type, with tags and custom fields."""

    class Status(models.TextChoices):
        ACTIVE = "active", "Active"
        PLANNED = "planned", "Planned"
        OFFLINE = "offline", "Offline"

    name = models.CharField(max_length=64, unique=True)
    device_type = models.ForeignKey(
        DeviceType, on_delete=models.PROTECT, related_name="devices"
    )
    status = models.CharField(
        max_length=20, choices=Status.choices, default=Status.ACTIVE
    )
    #: Locked devices may be changed by superusers only (an object check).
    locked = models.BooleanField(default=False)
    tags = models.ManyToManyField(Tag, blank=True, related_name="devices")
    custom_fields = models.JSONField(default=dict, blank=True)

    def __str__(self) -> str:
        return self.name


class Interface(models.Model):
    """A network interface of a device; unique by (device, name)."""

    device = models.ForeignKey(
        Device, on_delete=models.CASCADE, related_name="interfaces"
    )
    name = models.CharField(max_length=64)
    enabled = models.BooleanField(default=True)
    mtu = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        unique_together = (("device", "name"),)

    def __str__(self) -> str:
        return self.name


class InventoryItem(models.Model):
    """A part inside a device, from a plugin; unique by serial."""

    device = models.ForeignKey(
        Device, on_delete=models.CASCADE, related_name="inventory_items"
    )
    name = models.CharField(max_length=64)
    serial = models.CharField(max_length=50, unique=True)

    def __str__(self) -> str:
        return self.name
