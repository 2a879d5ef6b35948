"""Serializers of the custom-field host.

``value`` reads a boolean, an integer, a string or a list of strings, and
the serializer checks it against the custom field's data type; its schema
says "a string" either way.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from tests.hosts.customfields.models import CustomField, CustomFieldInstance, Document

_TYPES: dict[str, tuple[type[Any], ...]] = {
    CustomField.DataType.STRING: (str,),
    CustomField.DataType.BOOLEAN: (bool,),
    CustomField.DataType.INTEGER: (int,),
    CustomField.DataType.MULTISELECT: (list,),
}


def read_value(data: Any) -> Any:
    """A custom field's value as the host reads it."""
    if data is None or isinstance(data, bool | int | str):
        return data
    if isinstance(data, list) and all(isinstance(item, str) for item in data):
        return data
    raise serializers.ValidationError(
        "Value must be a boolean, an integer, a string or a list of strings."
    )


def typed(attrs: dict[str, Any], stored: CustomField | None) -> dict[str, Any]:
    """``attrs``, if its value has the type of its custom field."""
    field: Any = attrs.get("field") or stored
    value = attrs.get("value")
    wanted = _TYPES[field.data_type]
    if value is not None and not (
        isinstance(value, wanted)
        and (bool not in wanted or isinstance(value, bool))
        and (int not in wanted or not isinstance(value, bool))
    ):
        raise serializers.ValidationError(
            {"value": f"This custom field takes a {field.data_type} value."}
        )
    return attrs


@extend_schema_field(OpenApiTypes.STR)
class CustomValueField(serializers.Field):  # type: ignore[type-arg]
    """A custom field's value: its type is the custom field's."""

    def to_internal_value(self, data: Any) -> Any:
        return read_value(data)

    def to_representation(self, value: Any) -> Any:
        return value


class ReadWriteSerializerMethodField(serializers.SerializerMethodField):
    """A method field that can be written too (its value as sent)."""

    def __init__(self, method_name: str | None = None, **kwargs: Any) -> None:
        self.method_name = method_name  # type: ignore[assignment]
        kwargs["source"] = "*"
        super(serializers.SerializerMethodField, self).__init__(**kwargs)

    def to_internal_value(self, data: Any) -> Any:
        return {self.field_name: read_value(data)}


class CustomFieldSerializer(serializers.ModelSerializer[CustomField]):
    class Meta:
        model = CustomField
        fields = ("id", "name", "data_type")


class CustomFieldInstanceSerializer(serializers.ModelSerializer[CustomFieldInstance]):
    """A custom field's value on a document."""

    value = CustomValueField(allow_null=True)

    class Meta:
        model = CustomFieldInstance
        fields = ("id", "document", "field", "value")

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        return typed(attrs, getattr(self.instance, "field", None))

    def create(self, validated_data: dict[str, Any]) -> CustomFieldInstance:
        value = validated_data.pop("value", None)
        instance = CustomFieldInstance(**validated_data)
        instance.value = value
        instance.save()
        return instance

    def update(
        self, instance: CustomFieldInstance, validated_data: dict[str, Any]
    ) -> CustomFieldInstance:
        for name, value in validated_data.items():
            setattr(instance, name, value)
        instance.save()
        return instance


class MethodValueSerializer(CustomFieldInstanceSerializer):
    """The same, with the value as a writable method field."""

    value = ReadWriteSerializerMethodField(allow_null=True)  # type: ignore[assignment]

    def get_value(self, obj: CustomFieldInstance) -> str:  # type: ignore[override]
        return obj.value  # type: ignore[no-any-return]


class DocumentValueSerializer(serializers.ModelSerializer[CustomFieldInstance]):
    """A custom field's value, nested in its document."""

    value = CustomValueField(allow_null=True)

    class Meta:
        model = CustomFieldInstance
        fields = ("id", "field", "value")

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        return typed(attrs, None)


class DocumentSerializer(serializers.ModelSerializer[Document]):
    """A document and its custom fields, written all at once."""

    custom_fields = DocumentValueSerializer(many=True, required=False)

    class Meta:
        model = Document
        fields = ("id", "title", "custom_fields")

    def create(self, validated_data: dict[str, Any]) -> Document:
        values = validated_data.pop("custom_fields", [])
        document = Document.objects.create(**validated_data)
        self._store(document, values)
        return document

    def update(self, instance: Document, validated_data: dict[str, Any]) -> Document:
        values = validated_data.pop("custom_fields", None)
        instance.title = validated_data.get("title", instance.title)
        instance.save()
        if values is not None:
            instance.custom_fields.all().delete()
            self._store(instance, values)
        return instance

    def _store(self, document: Document, values: list[dict[str, Any]]) -> None:
        for item in values:
            row = CustomFieldInstance(document=document, field=item["field"])
            row.value = item.get("value")
            row.save()
