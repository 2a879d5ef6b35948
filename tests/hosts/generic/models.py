"""Interfaces of devices and of virtual machines, and IP addresses."""

from __future__ import annotations

from django.contrib.contenttypes.fields import GenericForeignKey
from django.contrib.contenttypes.models import ContentType
from django.db import models


class Interface(models.Model):
    name = models.CharField(max_length=64, unique=True)

    def __str__(self) -> str:
        return self.name


class VMInterface(models.Model):
    name = models.CharField(max_length=64, unique=True)

    def __str__(self) -> str:
        return self.name


class IPAddress(models.Model):
    """An address, assigned to an interface of either kind, or to nothing."""

    address = models.CharField(max_length=43)
    assigned_object_type = models.ForeignKey(
        ContentType,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )
    assigned_object_id = models.PositiveBigIntegerField(null=True, blank=True)
    assigned_object = GenericForeignKey("assigned_object_type", "assigned_object_id")
    description = models.CharField(max_length=200, blank=True)

    def __str__(self) -> str:
        return self.address
