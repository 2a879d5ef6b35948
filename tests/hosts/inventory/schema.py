"""The host's own schema class (its ``DEFAULT_SCHEMA_CLASS``), and an extension."""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.plumbing import get_doc

WRITES = ("POST", "PUT", "PATCH")


class InventoryAutoSchema(AutoSchema):
    """Writable request serializers and generated descriptions."""

    def get_request_serializer(self) -> Any:
        serializer = super().get_request_serializer()
        if serializer is not None and self.method in WRITES:
            self.writable_fields(serializer)
        return serializer

    def writable_fields(self, serializer: Any) -> list[str]:
        """The fields of the host's "Writable" twin of ``serializer``.

        It reads ``serializer.fields``: an instance's, never a class's.
        """
        return [n for n, f in serializer.fields.items() if not f.read_only]

    def get_description(self) -> str:  # type: ignore[override]
        if self.view.__doc__:
            return get_doc(self.view.__class__)
        handler = getattr(self.view, getattr(self.view, "action", "") or "", None)
        if handler is not None and handler.__doc__:
            return get_doc(handler)
        view: Any = self.view  # generic, in the host's own API
        model = view.get_serializer_class().Meta.model
        return f"{self.method.capitalize()} {model._meta.verbose_name_plural}."


class CustomFieldsExtension(OpenApiSerializerFieldExtension):
    """The host's custom fields: an object of any keys."""

    target_class = "tests.hosts.inventory.serializers.CustomFieldsField"

    def map_serializer_field(self, auto_schema: Any, direction: str) -> Any:
        return {"type": "object", "additionalProperties": True}
