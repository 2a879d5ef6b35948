"""Serializers of the interface-assignment host.

:class:`ContentTypeField` is the host's: a ``RelatedField`` over
``ContentType`` that reads and writes ``app_label.model`` and whose OpenAPI
says "a string". The other three are the same field as projects also write
it: undecorated, and as a ``SlugRelatedField`` with its own
``to_internal_value``, decorated or not.
"""

from __future__ import annotations

from typing import Any

from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ObjectDoesNotExist
from django.db.models import Q
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from tests.hosts.generic.models import Interface, IPAddress, VMInterface

ASSIGNABLE = Q(app_label="generic", model__in=("interface", "vminterface"))


class AppLabelDotModel:
    """Reads and writes a content type as ``app_label.model``."""

    default_error_messages = {
        "does_not_exist": "Invalid content type: {content_type}",
        "invalid": "Invalid value. Specify a content type as "
        "'<app_label>.<model_name>'.",
    }

    def to_internal_value(self, data: Any) -> Any:
        field: Any = self  # a RelatedField: fail() and get_queryset()
        try:
            app_label, model = data.split(".")
            return field.get_queryset().get(app_label=app_label, model=model)
        except ObjectDoesNotExist:
            field.fail("does_not_exist", content_type=data)
        except (AttributeError, TypeError, ValueError):
            field.fail("invalid")

    def to_representation(self, obj: Any) -> str:
        return f"{obj.app_label}.{obj.model}"


@extend_schema_field(OpenApiTypes.STR)
class ContentTypeField(  # type: ignore[misc]
    AppLabelDotModel, serializers.RelatedField[ContentType, ContentType, Any]
):
    """Represent a content type as ``<app_label>.<model>``."""


class UntypedContentTypeField(  # type: ignore[misc]
    AppLabelDotModel, serializers.RelatedField[ContentType, ContentType, Any]
):
    """The same field without a declared schema."""


class ContentTypeSlugFieldBase(  # type: ignore[misc]
    AppLabelDotModel, serializers.SlugRelatedField[ContentType]
):
    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("slug_field", "model")
        super().__init__(**kwargs)


@extend_schema_field(OpenApiTypes.STR)
class ContentTypeSlugField(ContentTypeSlugFieldBase):
    """A slug-related field over content types, decorated as a string."""


class UntypedContentTypeSlugField(ContentTypeSlugFieldBase):
    """The slug-related field without a declared schema."""


def assignable(field: type[Any]) -> Any:
    return field(
        queryset=ContentType.objects.filter(ASSIGNABLE),
        required=False,
        allow_null=True,
    )


class InterfaceSerializer(serializers.ModelSerializer[Interface]):
    class Meta:
        model = Interface
        fields = ("id", "name")


class VMInterfaceSerializer(serializers.ModelSerializer[VMInterface]):
    class Meta:
        model = VMInterface
        fields = ("id", "name")


class IPAddressSerializer(serializers.ModelSerializer[IPAddress]):
    """An IP address and what it is assigned to."""

    assigned_object_type = assignable(ContentTypeField)
    assigned_object = serializers.SerializerMethodField()

    class Meta:
        model = IPAddress
        fields = (
            "id",
            "address",
            "assigned_object_type",
            "assigned_object_id",
            "assigned_object",
            "description",
        )

    def get_assigned_object(self, obj: IPAddress) -> dict[str, Any] | None:
        target = obj.assigned_object
        return None if target is None else {"id": target.pk, "name": str(target)}

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        kind = attrs.get(
            "assigned_object_type", getattr(self.instance, "assigned_object_type", None)
        )
        pk = attrs.get(
            "assigned_object_id", getattr(self.instance, "assigned_object_id", None)
        )
        if (kind is None) != (pk is None):
            raise serializers.ValidationError(
                "Give assigned_object_type and assigned_object_id together."
            )
        if kind is not None and not kind.get_all_objects_for_this_type(pk=pk).exists():
            raise serializers.ValidationError({"assigned_object_id": "No such object."})
        return attrs


class UntypedIPAddressSerializer(IPAddressSerializer):
    assigned_object_type = assignable(UntypedContentTypeField)


class SlugIPAddressSerializer(IPAddressSerializer):
    assigned_object_type = assignable(ContentTypeSlugField)


class UntypedSlugIPAddressSerializer(IPAddressSerializer):
    assigned_object_type = assignable(UntypedContentTypeSlugField)
