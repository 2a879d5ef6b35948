"""Serializers of the nested-lookup host.

:class:`WritableNestedSerializer` is the host's: an id, or a dictionary of
attributes whose nested dictionaries become ``__`` filter parameters
(``{"manufacturer": {"slug": "acme"}}`` is ``manufacturer__slug``). Its
errors quote what was sent, as the host's do.
"""

from __future__ import annotations

from typing import Any, TypeVar

from django.core.exceptions import (
    FieldError,
    MultipleObjectsReturned,
    ObjectDoesNotExist,
)
from django.db import models
from rest_framework import serializers

from tests.hosts.lookups.models import Device, DeviceType, Manufacturer

_MT = TypeVar("_MT", bound=models.Model)


def dict_to_filter_params(data: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """``{"a": {"b": 1}}`` as ``{"a__b": 1}``: filter parameters."""
    params: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, dict):
            params.update(dict_to_filter_params(value, f"{prefix}{key}__"))
        else:
            params[f"{prefix}{key}"] = value
    return params


class WritableNestedSerializer(serializers.ModelSerializer[_MT]):
    """A related object, written as an id or a dictionary of attributes."""

    def to_internal_value(self, data: Any) -> Any:
        if data is None:
            return None
        model: type[_MT] = self.Meta.model
        if isinstance(data, dict):
            params = dict_to_filter_params(data)
            try:
                return model._default_manager.get(**params)
            except ObjectDoesNotExist:
                raise serializers.ValidationError(
                    f"Related object not found using the provided attributes: {params}"
                ) from None
            except MultipleObjectsReturned:
                raise serializers.ValidationError(
                    f"Multiple objects match the provided attributes: {params}"
                ) from None
            except (FieldError, ValueError) as exc:
                raise serializers.ValidationError(str(exc)) from None
        try:
            pk = int(data)
        except (TypeError, ValueError):
            raise serializers.ValidationError(
                "Related objects must be referenced by numeric ID or by "
                f"dictionary of attributes. Received an unrecognized value: {data}"
            ) from None
        try:
            return model._default_manager.get(pk=pk)
        except ObjectDoesNotExist:
            raise serializers.ValidationError(
                f"Related object not found using the provided numeric ID: {pk}"
            ) from None


class NestedManufacturerSerializer(WritableNestedSerializer[Manufacturer]):
    class Meta:
        model = Manufacturer
        fields = ("id", "name", "slug")


class NestedDeviceTypeSerializer(WritableNestedSerializer[DeviceType]):
    manufacturer = NestedManufacturerSerializer(read_only=True)

    class Meta:
        model = DeviceType
        fields = ("id", "manufacturer", "model", "slug")


class ManufacturerSerializer(serializers.ModelSerializer[Manufacturer]):
    class Meta:
        model = Manufacturer
        fields = ("id", "name", "slug")


class DeviceTypeSerializer(serializers.ModelSerializer[DeviceType]):
    manufacturer = NestedManufacturerSerializer()

    class Meta:
        model = DeviceType
        fields = ("id", "manufacturer", "model", "slug")


class DeviceSerializer(serializers.ModelSerializer[Device]):
    device_type = NestedDeviceTypeSerializer()

    class Meta:
        model = Device
        fields = ("id", "name", "device_type", "description")
