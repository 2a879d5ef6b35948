"""Serializer fields as arguments and as record entries.

A writable field's schema is drf-spectacular's, changed where the field is
not what that schema says: related fields take an id or a lookup object
(:mod:`~frisian_mcp.relations`), unmapped fields any value
(``UNMAPPED_FIELD_POLICY``), and nested serializers refuse unknown keys
but take their read-only ones back (ADR 0034).
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.exceptions import FieldDoesNotExist
from rest_framework import serializers

from frisian_mcp.conf import mcp_settings
from frisian_mcp.exceptions import SchemaError
from frisian_mcp.jsonschema import plain, structural
from frisian_mcp.relations import (
    Relation,
    describe_relation,
    has_explicit_schema,
    relation_argument,
)

__all__ = ["argument_schema", "record_schema"]

logger = logging.getLogger("frisian_mcp")
_NO_DEFAULT: Any = object()
_OBJECTS = ("object", ["object", "null"])


def argument_schema(
    serializer: Any, name: str, field: Any, schema: dict[str, Any]
) -> tuple[dict[str, Any], Relation | None]:
    """A writable field's argument schema from spectacular's, and its relation.

    Unmapped fields follow ``UNMAPPED_FIELD_POLICY``, relations take an id or
    a lookup object, nested serializers refuse unknown keys (DRF would drop
    them silently) and a constant model default is shown.
    """
    if _is_unmapped(field):
        schema = _unmapped(serializer, name, schema)
    relation = describe_relation(name, field)
    if relation is not None:
        schema, relation = relation_argument(relation, field, schema)
    else:
        schema = _field_schema(schema, field)
    default = _model_default(serializer, field)
    if default is not _NO_DEFAULT and "default" not in schema:
        schema["default"] = default
    return schema, relation


def record_schema(field: Any, schema: dict[str, Any]) -> Any:
    """A readable field's schema in a record, structure only."""
    if field is not None and (_is_unmapped(field) or _untyped_method(field)):
        schema = {k: v for k, v in schema.items() if k == "description"}
    return structural(schema)


def _is_unmapped(field: Any) -> bool:
    """A project field subclassing ``Field`` directly with no declared schema."""
    drf = (c for c in type(field).__mro__ if c.__module__.startswith("rest_framework."))
    return next(drf, None) is serializers.Field and not has_explicit_schema(field)


def _untyped_method(field: Any) -> bool:
    """A SerializerMethodField whose method declares no return type."""
    if not isinstance(field, serializers.SerializerMethodField):
        return False
    method = getattr(field.parent, field.method_name or "", None)
    annotations = getattr(method, "__annotations__", {})
    return "return" not in annotations and not has_explicit_schema(field)


def _unmapped(serializer: Any, name: str, schema: dict[str, Any]) -> dict[str, Any]:
    policy = mcp_settings.UNMAPPED_FIELD_POLICY.upper()
    where = f"{type(serializer).__name__}.{name}"
    if policy == "RAISE":
        raise SchemaError(
            f"Field {where} has no JSON Schema mapping. Decorate its class with "
            "@extend_schema_field(...) or set FRISIAN_MCP['UNMAPPED_FIELD_POLICY']."
        )
    if policy == "WARN":
        logger.warning(
            "frisian_mcp: field %s has no JSON Schema mapping; accepting any JSON "
            "value for it. Decorate its class with @extend_schema_field(...).",
            where,
        )
    note = "Any JSON value (the field declares no schema)."
    result = {k: v for k, v in schema.items() if k == "title"}
    description = schema.get("description")
    result["description"] = f"{description} {note}" if description else note
    return result


def _model_default(serializer: Any, field: Any) -> Any:
    """The model field's constant default, when DRF made the field optional."""
    model = getattr(getattr(serializer, "Meta", None), "model", None)
    source = getattr(field, "source", None) or "*"
    if model is None or field.required or "." in source or source == "*":
        return _NO_DEFAULT
    try:
        model_field = model._meta.get_field(source)
    except FieldDoesNotExist:
        return _NO_DEFAULT
    has_default = getattr(model_field, "has_default", None)
    if not (has_default and has_default()) or callable(model_field.default):
        return _NO_DEFAULT
    return plain(model_field.default)


def _field_schema(schema: dict[str, Any], field: Any) -> dict[str, Any]:
    """A field's schema; a nested serializer's object closed to unknown keys.

    Nested serializers refuse unknown keys (DRF drops them silently) but
    take their read-only keys back from retrieve, which DRF drops too.
    """
    target, node = field, schema
    if isinstance(field, serializers.ListSerializer):
        target, node = field.child, schema.get("items") or {}
    if not isinstance(target, serializers.Serializer) or not isinstance(node, dict):
        return schema
    nested = dict(target.fields.items())
    for option in node.get("anyOf") or [node]:
        if isinstance(option, dict) and option.get("type") in _OBJECTS:
            option.setdefault("additionalProperties", False)
            properties = option.setdefault("properties", {})
            for name, child in nested.items():
                if child.read_only:
                    properties.setdefault(name, {"readOnly": True})
                elif isinstance(properties.get(name), dict):
                    properties[name] = _field_schema(properties[name], child)
    return schema
