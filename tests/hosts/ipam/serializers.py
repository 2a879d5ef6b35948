"""Serializers of the network-inventory host.

Related objects are written through brief nested serializers taking an id,
a numeric string or an object of attributes (any attributes, as the host's
own ``to_internal_value`` looks them up), or through a hyperlink.
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

from tests.hosts.ipam import schema  # noqa: F401 - registers the extensions
from tests.hosts.ipam.models import ASN, VLAN, ASNRange, Prefix, Tenant, VLANGroup

_MT = TypeVar("_MT", bound=models.Model)


class WritableNestedSerializer(serializers.ModelSerializer[_MT]):
    """A brief related object, written as an id or a dictionary of attributes."""

    def to_internal_value(self, data: Any) -> Any:
        if data is None:
            return None
        model: type[_MT] = self.Meta.model
        if isinstance(data, dict):
            try:
                return model._default_manager.get(**data)
            except ObjectDoesNotExist:
                raise serializers.ValidationError(
                    f"Related object not found using the provided attributes: {data}"
                ) from None
            except (MultipleObjectsReturned, FieldError) as exc:
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


class BriefTenantSerializer(WritableNestedSerializer[Tenant]):
    class Meta:
        model = Tenant
        fields = ("id", "name", "slug")


class BriefVLANGroupSerializer(WritableNestedSerializer[VLANGroup]):
    class Meta:
        model = VLANGroup
        fields = ("id", "name", "slug")


class RangeLinkField(serializers.HyperlinkedRelatedField):  # type: ignore[type-arg]
    """The ASN range by its URL."""


class TenantSlugField(serializers.RelatedField[Tenant, Tenant, Any]):
    """A tenant by id or by its slug, as a bare string."""

    def to_internal_value(self, data: Any) -> Tenant:
        field = "pk" if isinstance(data, int) else "slug"
        try:
            return Tenant.objects.get(**{field: data})
        except (Tenant.DoesNotExist, ValueError, TypeError):
            raise serializers.ValidationError("No such tenant.") from None

    def to_representation(self, value: Any) -> Any:
        return value.slug


class TenantSerializer(serializers.ModelSerializer[Tenant]):
    class Meta:
        model = Tenant
        fields = ("id", "name", "slug")


class PrefixSerializer(serializers.ModelSerializer[Prefix]):
    tenant = BriefTenantSerializer(required=False, allow_null=True)

    class Meta:
        model = Prefix
        fields = ("id", "prefix", "tenant", "description")


class PrefixLengthSerializer(serializers.Serializer[Any]):
    """What ``available-prefixes`` reads: the length of each new prefix."""

    prefix_length = serializers.IntegerField(min_value=1, max_value=32)


class ASNRangeSerializer(serializers.ModelSerializer[ASNRange]):
    class Meta:
        model = ASNRange
        fields = ("id", "name", "slug", "start", "end")


class ASNSerializer(serializers.ModelSerializer[ASN]):
    range = RangeLinkField(view_name="asnrange-detail", queryset=ASNRange.objects.all())
    tenant = TenantSlugField(
        queryset=Tenant.objects.all(), required=False, allow_null=True
    )

    class Meta:
        model = ASN
        fields = ("id", "asn", "range", "tenant", "description")


class VLANGroupSerializer(serializers.ModelSerializer[VLANGroup]):
    class Meta:
        model = VLANGroup
        fields = ("id", "name", "slug", "min_vid", "max_vid")


class VLANSerializer(serializers.ModelSerializer[VLAN]):
    group = BriefVLANGroupSerializer()
    tenant = BriefTenantSerializer(required=False, allow_null=True)

    class Meta:
        model = VLAN
        fields = ("id", "group", "vid", "name", "tenant")
