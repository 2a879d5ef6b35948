"""Tenants, prefixes, ASN ranges and ASNs, VLAN groups and VLANs."""

from __future__ import annotations

from django.db import models


class Tenant(models.Model):
    name = models.CharField(max_length=100, unique=True)
    slug = models.SlugField(max_length=100, unique=True)

    def __str__(self) -> str:
        return self.name


class Prefix(models.Model):
    """An IPv4 network in CIDR notation."""

    prefix = models.CharField(max_length=43, unique=True)
    tenant = models.ForeignKey(
        Tenant, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    description = models.CharField(max_length=200, blank=True)

    def __str__(self) -> str:
        return self.prefix


class ASNRange(models.Model):
    name = models.CharField(max_length=100, unique=True)
    slug = models.SlugField(max_length=100, unique=True)
    start = models.PositiveBigIntegerField()
    end = models.PositiveBigIntegerField()

    def __str__(self) -> str:
        return self.name


class ASN(models.Model):
    asn = models.PositiveBigIntegerField(unique=True)
    range = models.ForeignKey(ASNRange, on_delete=models.PROTECT, related_name="asns")
    tenant = models.ForeignKey(
        Tenant, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    description = models.CharField(max_length=200, blank=True)

    def __str__(self) -> str:
        return f"AS{self.asn}"


class VLANGroup(models.Model):
    name = models.CharField(max_length=100, unique=True)
    slug = models.SlugField(max_length=100, unique=True)
    min_vid = models.PositiveSmallIntegerField(default=1)
    max_vid = models.PositiveSmallIntegerField(default=4094)

    def __str__(self) -> str:
        return self.name


class VLAN(models.Model):
    group = models.ForeignKey(VLANGroup, on_delete=models.PROTECT, related_name="vlans")
    vid = models.PositiveSmallIntegerField()
    name = models.CharField(max_length=64)
    tenant = models.ForeignKey(
        Tenant, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )

    class Meta:
        unique_together = (("group", "vid"),)

    def __str__(self) -> str:
        return self.name
