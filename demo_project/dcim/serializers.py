"""Serializers of the dcim app."""

from __future__ import annotations

from rest_framework import serializers

from demo_project.dcim.models import Device, Site, Tag


class TagSerializer(serializers.ModelSerializer[Tag]):
    """A device tag."""

    class Meta:
        model = Tag
        fields = ("id", "name", "slug")


class SiteSerializer(serializers.ModelSerializer[Site]):
    """A site, with the number of devices it hosts."""

    device_count = serializers.IntegerField(read_only=True, source="devices.count")

    class Meta:
        model = Site
        fields = ("id", "name", "slug", "description", "device_count")


class DeviceSerializer(serializers.ModelSerializer[Device]):
    """A device; ``site`` and ``tags`` are written as ids."""

    class Meta:
        model = Device
        fields = ("id", "name", "site", "status", "serial", "tags")
