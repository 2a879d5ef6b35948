"""Manufacturers, device types and devices."""

from __future__ import annotations

from django.db import models


class Manufacturer(models.Model):
    name = models.CharField(max_length=100, unique=True)
    slug = models.SlugField(max_length=100, unique=True)

    def __str__(self) -> str:
        return self.name


class DeviceType(models.Model):
    """A model of device: unique by slug, and by manufacturer and model."""

    manufacturer = models.ForeignKey(
        Manufacturer, on_delete=models.PROTECT, related_name="device_types"
    )
    model = models.CharField(max_length=100)
    slug = models.SlugField(max_length=100, unique=True)

    class Meta:
        unique_together = (("manufacturer", "model"),)

    def __str__(self) -> str:
        return self.model


class Device(models.Model):
    name = models.CharField(max_length=64, unique=True)
    device_type = models.ForeignKey(
        DeviceType, on_delete=models.PROTECT, related_name="devices"
    )
    description = models.CharField(max_length=200, blank=True)

    def __str__(self) -> str:
        return self.name
