"""JSON values and JSON Schema: one normaliser, one walker, OpenAPI -> 2020-12.

MCP tool schemas are JSON Schema 2020-12 (MCP 2025-11-25 basic/index "JSON
Schema Usage"), which drf-spectacular's OAS 3.1 output is (ADR 0041); ``oneOf``
becomes ``anyOf`` (its alternatives overlap), components are inlined and
recursive ``$ref``\\ s go to ``$defs``.
"""

from __future__ import annotations

import decimal
from collections.abc import Callable, Mapping
from typing import Any

from django.utils.functional import Promise
from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError
from rest_framework.utils.encoders import JSONEncoder

__all__ = [
    "drop_required",
    "map_subschemas",
    "parameter_schema",
    "plain",
    "scalar_or_list",
    "schema_problem",
    "structural",
    "to_json_schema",
]

_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
_MAPS = ("properties", "patternProperties", "$defs")
_VALUES = ("items", "additionalProperties", "not", "contains")
_DROPPED = frozenset({"discriminator", "xml", "externalDocs", "readOnly", "nullable"})
_BOUNDS = ("exclusiveMinimum", "exclusiveMaximum")
_REF_PREFIX = "#/components/schemas/"
_STRUCTURAL = frozenset(
    {"type", "properties", "items", "anyOf", "description", "title", "format"}
    | {"additionalProperties", "$ref", "$defs"}
)
#: Keywords that constrain only values of their own JSON type.
_TYPED = frozenset(
    {"type", "format", "pattern", "minLength", "maxLength", "multipleOf"}
    | {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"}
    | {"title", "description"}
)
_SCALARS = frozenset({"string", "integer", "number", "boolean", "null"})
_ENCODER = JSONEncoder()
_JSON_TYPES = (str, int, float, bool)


def plain(value: Any) -> Any:
    """``value`` as plain JSON types, encoded as DRF's JSON renderer would."""
    if value is None or type(value) in _JSON_TYPES:
        return value
    if isinstance(value, str | Promise):
        return str(value)  # ErrorDetail, SafeString, lazy translations
    if isinstance(value, int | float):  # enums; bool is never subclassed
        return int(value) if isinstance(value, int) else float(value)
    if isinstance(value, Mapping):
        return {str(plain(k)): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [plain(v) for v in value]
    if isinstance(value, decimal.Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    try:
        return plain(_ENCODER.default(value))
    except TypeError:
        return str(value)


def map_subschemas(
    schema: Mapping[str, Any], visit: Callable[[Any], Any]
) -> dict[str, Any]:
    """A copy of ``schema`` with ``visit`` applied to each direct subschema."""
    result: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _LISTS and isinstance(value, list):
            result[key] = [visit(v) for v in value]
        elif key in _MAPS and isinstance(value, Mapping):
            result[key] = {k: visit(v) for k, v in value.items()}
        elif key in _VALUES and isinstance(value, Mapping):
            result[key] = visit(value)
        else:
            result[key] = value
    return result


def drop_required(schema: Any) -> Any:
    """``schema`` without ``required`` at any depth (a PATCH body)."""
    if not isinstance(schema, Mapping):
        return schema
    kept = {
        k: v for k, v in schema.items() if not (k == "required" and isinstance(v, list))
    }
    return map_subschemas(kept, drop_required)


def structural(schema: Any) -> Any:
    """``schema`` with structure only: no constraints, defaults or examples."""
    if not isinstance(schema, Mapping):
        return schema
    kept = {k: v for k, v in schema.items() if k in _STRUCTURAL}
    return map_subschemas(kept, structural)


def to_json_schema(
    schema: Mapping[str, Any],
    components: Mapping[str, Mapping[str, Any]],
    defs: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """One OpenAPI 3.1 schema object of spectacular's as a tool's JSON Schema.

    Components met again while inlined go once into ``defs`` and are
    referenced as ``#/$defs/<name>``; the caller puts ``defs`` at the root.
    """
    defs = {} if defs is None else defs

    def resolve(name: str, stack: tuple[str, ...]) -> Any:
        component = components.get(name)
        if component is None:
            return {}
        if name not in stack:
            return convert(component, (*stack, name))
        if name not in defs:
            defs[name] = {}  # a placeholder stops the recursion here
            defs[name] = convert(component, (*stack, name))
        return {"$ref": f"#/$defs/{name}"}

    def convert(node: Any, stack: tuple[str, ...]) -> Any:
        if not isinstance(node, Mapping):
            return plain(node)
        node = dict(node)
        ref = node.pop("$ref", None)
        if isinstance(ref, str) and ref.startswith(_REF_PREFIX):
            resolved = resolve(ref[len(_REF_PREFIX) :], stack)
            return {**resolved, **convert(node, stack)} if node else resolved
        all_of = node.get("allOf")
        if isinstance(all_of, list) and len(all_of) == 1:
            # Spectacular's way of adding metadata beside a $ref: merge it.
            rest = {k: v for k, v in node.items() if k not in ("allOf", "nullable")}
            result = {**convert(all_of[0], stack), **convert(rest, stack)}
        else:
            result = map_subschemas(_keywords(node), lambda c: convert(c, stack))
        enum, type_ = result.get("enum") or [], result.get("type")
        # A choice that takes null; or OAS 3.0's form, in a host's own text.
        if not (None in enum or node.get("nullable") is True) or not result:
            return result
        if isinstance(type_, str | list):
            types = [type_] if isinstance(type_, str) else type_
            result["type"] = types if "null" in types else [*types, "null"]
            if enum and None not in enum:
                result["enum"] = [*enum, None]
            return result
        return {"anyOf": [result, {"type": "null"}]}

    converted: dict[str, Any] = convert(schema, ())
    return converted


def parameter_schema(
    parameter: Mapping[str, Any] | None,
    components: Mapping[str, Any],
    defs: dict[str, Any],
) -> dict[str, Any] | None:
    """An OpenAPI parameter's schema, with its description.

    A query parameter's list takes one item alone too: REST reads ``?k=a``
    as a list of one (:func:`scalar_or_list`); its decimal text takes a
    number too, which the query string carries as the same text.
    """
    if parameter is None:
        return None
    schema = to_json_schema(parameter.get("schema") or {}, components, defs)
    if parameter.get("description") and "description" not in schema:
        schema["description"] = str(parameter["description"])
    if parameter.get("in") != "query":
        return schema
    return scalar_or_list(_decimal_numbers(schema))


def _decimal_numbers(schema: dict[str, Any]) -> dict[str, Any]:
    """A decimal string (``format: decimal``), or a list of them, that takes
    a JSON number too."""
    items = schema.get("items")
    if isinstance(items, dict):
        schema = {**schema, "items": _decimal_numbers(items)}
    if schema.get("type") == "string" and schema.get("format") == "decimal":
        return {**schema, "type": ["string", "number"]}
    return schema


def schema_problem(schema: Any) -> str | None:
    """Why ``schema`` is not a JSON Schema 2020-12 object, or ``None``."""
    if not isinstance(schema, Mapping):
        return "must be a JSON Schema object (a dict)"
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        return f"is not valid JSON Schema 2020-12: {exc.message}"
    return None


def scalar_or_list(schema: dict[str, Any]) -> dict[str, Any]:
    """A list of scalars that also takes one scalar alone.

    The item's keywords join the list's where each constrains only its own
    type (``{"type": ["integer", "array"], "items": ...}``); else ``anyOf``.
    """
    items, notes = schema.get("items"), {"title", "description"}
    if schema.get("type") != "array" or not isinstance(items, Mapping):
        return schema
    if schema.get("minItems", 0) > 1:  # a range's pair: never one alone
        return schema
    types = items.get("type")
    types = [types] if isinstance(types, str) else types
    if not (isinstance(types, list) and types and set(types) <= _SCALARS):
        return schema
    if set(items) <= _TYPED:
        own = {k: v for k, v in items.items() if k not in notes}
        return {**own, **schema, "type": [*types, "array"]}
    kept = {k: v for k, v in schema.items() if k in notes}
    array = {k: v for k, v in schema.items() if k not in notes}
    return {"anyOf": [dict(items), array], **kept}


def _keywords(node: Mapping[str, Any]) -> dict[str, Any]:
    """One schema object's own keywords in 2020-12 terms (subschemas as is)."""
    result: dict[str, Any] = {}
    for key, value in node.items():
        if key.startswith("x-") or key in _DROPPED:
            continue
        if key in _BOUNDS and isinstance(value, bool):  # OAS 3.0's form
            bound = "minimum" if key == "exclusiveMinimum" else "maximum"
            if value and bound in node:
                result[key] = plain(node[bound])
            continue
        if (
            key in ("minimum", "maximum")
            and node.get(f"exclusive{key.title()}") is True
        ):
            continue
        subschemas = key in _LISTS or key in _MAPS or key in _VALUES
        result["anyOf" if key == "oneOf" else key] = (
            value if subschemas else plain(value)
        )
    return result
