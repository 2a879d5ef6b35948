"""Convert drf-spectacular's OpenAPI 3.0 schemas to JSON Schema 2020-12.

MCP tool schemas are JSON Schema 2020-12 (MCP 2025-11-25, basic/index
"JSON Schema Usage"); spectacular emits OpenAPI 3.0. This module inlines
``$ref``\\ s (recursive components go to ``$defs``), turns ``nullable`` into
``null`` types, boolean ``exclusiveMinimum``/``exclusiveMaximum`` into
numbers, ``example`` into ``examples``, drops ``x-*`` extensions and OpenAPI
``discriminator``/``xml`` members, and makes every value JSON-safe (Decimal,
lazy translation strings, dates). ``oneOf`` becomes ``anyOf``: the
alternatives spectacular emits may overlap, and a schema must never refuse
what the serializer accepts.
"""

from __future__ import annotations

import datetime
import decimal
import uuid
from collections.abc import Mapping
from typing import Any

from django.utils.functional import Promise

__all__ = ["json_safe", "to_json_schema"]

_REF_PREFIX = "#/components/schemas/"
_DROPPED_KEYS = frozenset({"discriminator", "xml", "externalDocs", "readOnly"})
_SCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
_SCHEMA_MAPS = ("properties", "patternProperties", "$defs")
_SCHEMA_VALUES = ("items", "additionalProperties", "not", "contains")


def json_safe(value: Any) -> Any:
    """Return ``value`` with every member a plain JSON type."""
    if isinstance(value, Promise):
        return str(value)
    if isinstance(value, bool | int | str | float) or value is None:
        return value
    if isinstance(value, decimal.Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, datetime.datetime | datetime.date | datetime.time):
        return value.isoformat()
    if isinstance(value, datetime.timedelta):
        return str(value.total_seconds())
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, Mapping):
        return {str(json_safe(k)): json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [json_safe(v) for v in value]
    return str(value)


def to_json_schema(
    schema: Mapping[str, Any],
    components: Mapping[str, Mapping[str, Any]],
    defs: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Convert one OpenAPI 3.0 schema object to JSON Schema 2020-12.

    ``components`` maps component names to their (OpenAPI) schemas.
    Components met again while being inlined are emitted once into ``defs``
    and referenced as ``#/$defs/<name>``; the caller puts ``defs`` at the
    root of the final schema.
    """
    converter = _Converter(components, defs if defs is not None else {})
    return converter.convert(schema, ())


class _Converter:
    def __init__(
        self, components: Mapping[str, Mapping[str, Any]], defs: dict[str, Any]
    ) -> None:
        self.components = components
        self.defs = defs

    def convert(
        self, node: Mapping[str, Any], stack: tuple[str, ...]
    ) -> dict[str, Any]:
        node = dict(node)
        ref = node.pop("$ref", None)
        if isinstance(ref, str) and ref.startswith(_REF_PREFIX):
            name = ref[len(_REF_PREFIX) :]
            resolved = self._resolve(name, stack)
            siblings = self.convert(node, stack) if node else {}
            return {**resolved, **siblings} if siblings else resolved
        # allOf with a single member is spectacular's way of adding metadata
        # next to a $ref; merge it so agents see one flat object.
        all_of = node.get("allOf")
        if isinstance(all_of, list) and len(all_of) == 1:
            nullable = bool(node.pop("nullable", False))
            del node["allOf"]
            merged = {**self.convert(all_of[0], stack), **self.convert(node, stack)}
            return _make_nullable(merged) if nullable else merged

        result: dict[str, Any] = {}
        nullable = bool(node.pop("nullable", False))
        for key, value in node.items():
            if key.startswith("x-") or key in _DROPPED_KEYS:
                continue
            if key in ("exclusiveMinimum", "exclusiveMaximum") and isinstance(
                value, bool
            ):
                bound = "minimum" if key == "exclusiveMinimum" else "maximum"
                if value and bound in node:
                    result[key] = json_safe(node[bound])
                continue
            if (
                key in ("minimum", "maximum")
                and node.get(
                    "exclusiveMinimum" if key == "minimum" else "exclusiveMaximum"
                )
                is True
            ):
                continue
            if key == "example":
                result["examples"] = [json_safe(value)]
            elif key == "oneOf" and isinstance(value, list):
                # Spectacular's alternatives (a blank string beside an email,
                # say) often overlap; oneOf would then refuse values the
                # serializer accepts.
                result["anyOf"] = [self.convert(v, stack) for v in value]
            elif key in _SCHEMA_LISTS and isinstance(value, list):
                result[key] = [self.convert(v, stack) for v in value]
            elif key in _SCHEMA_MAPS and isinstance(value, Mapping):
                result[key] = {k: self.convert(v, stack) for k, v in value.items()}
            elif key in _SCHEMA_VALUES and isinstance(value, Mapping):
                result[key] = self.convert(value, stack)
            else:
                result[key] = json_safe(value)
        if nullable:
            return _make_nullable(result)
        return _fix_enum_null(result)

    def _resolve(self, name: str, stack: tuple[str, ...]) -> dict[str, Any]:
        component = self.components.get(name)
        if component is None:
            return {}
        if name in stack:
            if name not in self.defs:
                self.defs[name] = {}  # placeholder: stops the recursion here
                self.defs[name] = self.convert(component, (*stack, name))
            return {"$ref": f"#/$defs/{name}"}
        return self.convert(component, (*stack, name))


def _make_nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """Let ``schema`` also accept ``null``."""
    if not schema:
        return schema
    type_ = schema.get("type")
    composite = any(k in schema for k in ("$ref", "allOf", "anyOf", "oneOf"))
    if isinstance(type_, str) and not composite:
        schema = {**schema, "type": [type_, "null"]}
        if "enum" in schema and None not in schema["enum"]:
            schema["enum"] = [*schema["enum"], None]
        return schema
    if isinstance(type_, list) and not composite:
        if "null" not in type_:
            schema = {**schema, "type": [*type_, "null"]}
        return schema
    annotations: dict[str, Any] = {
        k: schema[k]
        for k in ("title", "description", "default", "examples")
        if k in schema
    }
    inner = {k: v for k, v in schema.items() if k not in annotations}
    if list(inner) == ["anyOf"]:
        options = list(inner["anyOf"])
        if {"type": "null"} not in options:
            options.append({"type": "null"})
        return {"anyOf": options, **annotations}
    return {"anyOf": [inner, {"type": "null"}], **annotations}


def _fix_enum_null(schema: dict[str, Any]) -> dict[str, Any]:
    """An enum that lists ``None`` must allow the ``null`` type too."""
    enum = schema.get("enum")
    type_ = schema.get("type")
    if isinstance(enum, list) and None in enum and isinstance(type_, str):
        return {**schema, "type": [type_, "null"]}
    return schema
