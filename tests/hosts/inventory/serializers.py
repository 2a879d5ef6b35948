"""The host's serializers: its devices' and its plugins'."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from tests.hosts.inventory import schema  # noqa: F401 - registers the extension
from tests.zoo.models import Device


class CustomFieldsField(serializers.JSONField):
    """The ``custom_fields`` object; ``schema.CustomFieldsExtension`` maps it."""


class DeviceSerializer(serializers.ModelSerializer[Device]):
    custom_fields = CustomFieldsField(required=False)

    class Meta:
        model = Device
        fields = ("id", "name", "device_type", "status", "custom_fields")


class SyncSerializer(serializers.Serializer[Any]):
    """A synchronisation run."""

    source = serializers.ChoiceField(choices=["cmdb", "ipam"])  # type: ignore[assignment]
    dry_run = serializers.BooleanField(default=False)
    devices = serializers.IntegerField(read_only=True)


class AuditSerializer(serializers.ModelSerializer[Device]):
    class Meta:
        model = Device
        fields = ("id", "name", "locked")


class ExportSerializer(serializers.Serializer[Any]):
    name = serializers.CharField(read_only=True)
    status = serializers.CharField(read_only=True)


class ExportRunSerializer(serializers.Serializer[Any]):
    """What an export of one device writes."""

    target = serializers.ChoiceField(choices=["csv", "yaml"])
