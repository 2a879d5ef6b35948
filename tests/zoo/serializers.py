"""Zoo serializers: one base class, brief nested serializers, hyperlinks.

Every serializer inherits :class:`ZooSerializerMixin`, for which
``tests.zoo.schema`` registers a spectacular extension. Foreign keys are
written as NetBox writes them: a nested brief serializer (or a custom related
field) taking an id, a numeric string or an object of unique fields.
"""

from __future__ import annotations

from typing import Any, TypeVar

from django.core.exceptions import MultipleObjectsReturned, ObjectDoesNotExist
from django.db import models
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from tests.zoo import schema  # noqa: F401 - registers the extension
from tests.zoo.models import (
    CustomField,
    Device,
    DeviceType,
    Interface,
    InventoryItem,
    Manufacturer,
    Tag,
)

_MT = TypeVar("_MT", bound=models.Model)


class ZooSerializerMixin:
    """Marks the zoo's serializers (the extension's target)."""


class ZooSerializer(ZooSerializerMixin, serializers.Serializer[Any]):
    """A plain zoo serializer."""


class ZooModelSerializer(ZooSerializerMixin, serializers.ModelSerializer[_MT]):
    """A zoo model serializer."""


def unique_fields(model: type[models.Model]) -> set[str]:
    """The primary key and every unique field of ``model``."""
    return {
        f.name for f in model._meta.concrete_fields if f.unique or f.primary_key
    } | {"pk"}


def resolve(queryset: Any, data: Any) -> Any:
    """One row of ``queryset`` by id, numeric string, or unique fields."""
    model = queryset.model
    if isinstance(data, dict):
        allowed = unique_fields(model)
        unknown = sorted(set(data) - allowed)
        if unknown or not data:
            raise serializers.ValidationError(
                f"Look {model._meta.verbose_name} up by one of: "
                + ", ".join(sorted(allowed))
                + "."
            )
        try:
            return queryset.get(**data)
        except ObjectDoesNotExist:
            raise serializers.ValidationError(
                f"Related object not found using the provided attributes: {data}"
            ) from None
        except MultipleObjectsReturned:
            raise serializers.ValidationError(
                f"Multiple objects match the provided attributes: {data}"
            ) from None
    if isinstance(data, bool):
        raise serializers.ValidationError("A related object needs an id.")
    try:
        pk = int(data)
    except (TypeError, ValueError):
        raise serializers.ValidationError(
            "Related objects must be referenced by numeric ID or by dictionary "
            f"of attributes. Received an unrecognized value: {data}"
        ) from None
    try:
        return queryset.get(pk=pk)
    except ObjectDoesNotExist:
        raise serializers.ValidationError(
            f"Related object not found using the provided numeric ID: {pk}"
        ) from None


class WritableNestedSerializer(ZooModelSerializer[_MT]):
    """A brief related object: written as an id or an object of unique fields."""

    def to_internal_value(self, data: Any) -> Any:
        if data is None:
            return None
        # The stubs type ``Meta.model`` with an unbound ``_MT``; bind it here.
        model: type[_MT] = self.Meta.model
        return resolve(model._default_manager.all(), data)


class UniqueLookupRelatedField(
    serializers.RelatedField[models.Model, models.Model, Any]
):
    """A related field taking an id, a numeric string or unique fields."""

    def to_internal_value(self, data: Any) -> Any:
        return resolve(self.get_queryset(), data)

    def to_representation(self, value: Any) -> Any:
        return value.pk


class BriefManufacturerSerializer(WritableNestedSerializer[Manufacturer]):
    class Meta:
        model = Manufacturer
        fields = ("id", "name", "slug")


class BriefDeviceTypeSerializer(WritableNestedSerializer[DeviceType]):
    class Meta:
        model = DeviceType
        fields = ("id", "manufacturer", "model", "slug")
        # Brief output names the manufacturer by id.
        extra_kwargs = {"manufacturer": {"read_only": True}}


class BriefTagSerializer(WritableNestedSerializer[Tag]):
    class Meta:
        model = Tag
        fields = ("id", "name", "slug")


class ManufacturerSerializer(ZooModelSerializer[Manufacturer]):
    """A manufacturer; ``api_version`` is the version the request asked for."""

    api_version = serializers.SerializerMethodField()

    class Meta:
        model = Manufacturer
        fields = ("id", "name", "slug", "description", "api_version")

    def get_api_version(self, obj: Manufacturer) -> str | None:
        request = self.context.get("request")
        return getattr(request, "version", None)


class ManufacturerV2Serializer(ManufacturerSerializer):
    """API version 2.0 requires a description."""

    class Meta(ManufacturerSerializer.Meta):
        extra_kwargs = {"description": {"required": True, "allow_blank": False}}


class DeviceTypeSerializer(ZooModelSerializer[DeviceType]):
    manufacturer = BriefManufacturerSerializer()

    class Meta:
        model = DeviceType
        fields = ("id", "manufacturer", "model", "slug", "u_height")


class TagSerializer(ZooModelSerializer[Tag]):
    class Meta:
        model = Tag
        fields = ("id", "name", "slug", "color")


class CustomFieldSerializer(ZooModelSerializer[CustomField]):
    class Meta:
        model = CustomField
        fields = ("id", "name", "label")


@extend_schema_field({"type": "object", "additionalProperties": True})
class CustomFieldsField(serializers.JSONField):
    """The ``custom_fields`` object: only keys defined as custom fields."""

    def to_internal_value(self, data: Any) -> Any:
        value = super().to_internal_value(data)
        if not isinstance(value, dict):
            raise serializers.ValidationError("Custom fields must be an object.")
        known = set(CustomField.objects.values_list("name", flat=True))
        unknown = sorted(set(value) - known)
        if unknown:
            raise serializers.ValidationError(
                "Unknown custom fields: " + ", ".join(unknown)
            )
        return value


class DeviceSerializer(ZooModelSerializer[Device]):
    url = serializers.HyperlinkedIdentityField(view_name="zoo-api:device-detail")
    device_type = BriefDeviceTypeSerializer()
    tags = BriefTagSerializer(many=True, required=False)
    custom_fields = CustomFieldsField(required=False)

    class Meta:
        model = Device
        fields = (
            "id",
            "url",
            "name",
            "device_type",
            "status",
            "locked",
            "tags",
            "custom_fields",
        )

    def create(self, validated_data: dict[str, Any]) -> Device:
        tags = validated_data.pop("tags", [])
        device: Device = super().create(validated_data)
        device.tags.set(tags)
        return device

    def update(self, instance: Device, validated_data: dict[str, Any]) -> Device:
        tags = validated_data.pop("tags", None)
        device: Device = super().update(instance, validated_data)
        if tags is not None:
            device.tags.set(tags)
        return device


class InterfaceSerializer(
    ZooSerializerMixin, serializers.HyperlinkedModelSerializer[Interface]
):
    """An interface; its device is a hyperlink, as in hyperlinked APIs."""

    url = serializers.HyperlinkedIdentityField(view_name="zoo-api:interface-detail")
    device = serializers.HyperlinkedRelatedField(
        view_name="zoo-api:device-detail", queryset=Device.objects.all()
    )

    class Meta:
        model = Interface
        fields = ("id", "url", "device", "name", "enabled", "mtu")


class InventoryItemSerializer(ZooModelSerializer[InventoryItem]):
    device = UniqueLookupRelatedField(queryset=Device.objects.all())

    class Meta:
        model = InventoryItem
        fields = ("id", "device", "name", "serial")


class RenameSerializer(ZooSerializer):
    """The body of the ``rename`` action."""

    name = serializers.CharField(max_length=64)


class StatusSerializer(ZooSerializer):
    """Counts of the zoo's rows."""

    devices = serializers.IntegerField()
    manufacturers = serializers.IntegerField()


class ReportRunSerializer(ZooSerializer):
    """What a report run asks for."""

    status = serializers.ChoiceField(choices=Device.Status.choices)


class ReportResultSerializer(ZooSerializer):
    status = serializers.CharField()
    count = serializers.IntegerField()
