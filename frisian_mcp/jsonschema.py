"""JSON values and JSON Schema: one normaliser, one walker, OpenAPI -> 2020-12.

MCP tool schemas are JSON Schema 2020-12 (MCP 2025-11-25 basic/index "JSON
Schema Usage"); drf-spectacular emits OpenAPI 3.0. ``oneOf`` becomes ``anyOf``
(spectacular's alternatives overlap); recursive ``$ref``\\ s go to ``$defs``.
"""

from __future__ import annotations

import decimal
import difflib
from collections.abc import Callable, Iterable, Mapping
from typing import Any, cast

from django.utils.functional import Promise
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError
from rest_framework.utils.encoders import JSONEncoder

from frisian_mcp.exceptions import LIST_LIMIT, few, plain_name
from frisian_mcp.types import FieldError

__all__ = [
    "drop_required",
    "field_path",
    "map_subschemas",
    "plain",
    "problems",
    "structural",
    "to_json_schema",
    "unknown_keys",
]

_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
_MAPS = ("properties", "patternProperties", "$defs")
_VALUES = ("items", "additionalProperties", "not", "contains")
_DROPPED = frozenset({"discriminator", "xml", "externalDocs", "readOnly", "nullable"})
_REF_PREFIX = "#/components/schemas/"
_STRUCTURAL = frozenset(
    {"type", "properties", "items", "anyOf", "description", "title", "format"}
    | {"additionalProperties", "$ref", "$defs"}
)
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
    """Convert one OpenAPI 3.0 schema object to JSON Schema 2020-12.

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
        nullable, all_of = bool(node.get("nullable")), node.get("allOf")
        if isinstance(all_of, list) and len(all_of) == 1:
            # Spectacular's way of adding metadata beside a $ref: merge it.
            rest = {k: v for k, v in node.items() if k not in ("allOf", "nullable")}
            merged = {**convert(all_of[0], stack), **convert(rest, stack)}
            return _nullable(merged) if nullable else merged
        result = map_subschemas(_keywords(node), lambda c: convert(c, stack))
        if nullable:
            return _nullable(result)
        enum, type_ = result.get("enum"), result.get("type")
        if isinstance(enum, list) and None in enum and isinstance(type_, str):
            result["type"] = [type_, "null"]
        return result

    converted: dict[str, Any] = convert(schema, ())
    return converted


def _keywords(node: Mapping[str, Any]) -> dict[str, Any]:
    """One schema object's own keywords in 2020-12 terms (subschemas as is)."""
    result: dict[str, Any] = {}
    for key, value in node.items():
        if key.startswith("x-") or key in _DROPPED:
            continue
        if key in ("exclusiveMinimum", "exclusiveMaximum"):
            bound = "minimum" if key == "exclusiveMinimum" else "maximum"
            if value is True and bound in node:
                result[key] = plain(node[bound])
            elif not isinstance(value, bool):
                result[key] = plain(value)
        elif key in ("minimum", "maximum") and (
            node.get(f"exclusive{key.title()}") is True
        ):
            continue
        elif key == "example":
            result["examples"] = [plain(value)]
        elif key == "oneOf":
            result["anyOf"] = value
        else:
            subschemas = key in _LISTS or key in _MAPS or key in _VALUES
            result[key] = value if subschemas else plain(value)
    return result


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` that also accepts ``null``."""
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
        return schema if "null" in type_ else {**schema, "type": [*type_, "null"]}
    notes: dict[str, Any] = {
        k: schema[k]
        for k in ("title", "description", "default", "examples")
        if k in schema
    }
    inner = {k: v for k, v in schema.items() if k not in notes}
    if list(inner) == ["anyOf"]:
        options = list(inner["anyOf"])
        if {"type": "null"} not in options:
            options.append({"type": "null"})
        return {"anyOf": options, **notes}
    return {"anyOf": [inner, {"type": "null"}], **notes}


# -- value-free validation -------------------------------------------------

# keyword -> (code, message); messages use schema values only, where
# jsonschema's own would quote the input.
_KEYWORDS: dict[str, tuple[str, str | None]] = {
    "type": ("invalid_type", None),
    "enum": ("invalid_choice", None),
    "const": ("invalid_choice", None),
    "required": ("required", None),
    "additionalProperties": ("unknown_key", None),
    "anyOf": ("invalid_form", None),
    "oneOf": ("invalid_form", None),
    "format": ("invalid_format", None),
    "maxProperties": ("too_many_keys", None),
    "maxLength": ("max_length", "must be at most {} characters long"),
    "minLength": ("min_length", "must be at least {} characters long"),
    "maximum": ("max_value", "must be at most {}"),
    "exclusiveMaximum": ("max_value", "must be less than {}"),
    "minimum": ("min_value", "must be at least {}"),
    "exclusiveMinimum": ("min_value", "must be greater than {}"),
    "pattern": ("invalid_format", "must match the pattern {}"),
    "maxItems": ("max_items", "must have at most {} items"),
    "minItems": ("min_items", "must have at least {} items"),
    "uniqueItems": ("duplicate_items", "must not repeat items"),
    "minProperties": ("empty_object", "must not be an empty object"),
    "multipleOf": ("invalid_number", "must be a multiple of {}"),
}
_TYPE_NAMES = {
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "true or false",
    "array": "a list",
    "object": "an object",
    "null": "null",
}


def problems(
    validator: Draft202012Validator,
    instance: Any,
    fast: Callable[[Any], bool] | None = None,
) -> list[FieldError]:
    """Every schema problem of ``instance``, one entry per field and code.

    ``fast``, from :func:`frisian_mcp.fastcheck.fast_check` on the
    validator's schema, answers the common case (valid) without jsonschema's
    per-keyword descent.
    """
    if (fast is not None and fast(instance)) or validator.is_valid(instance):
        return []
    found: dict[tuple[str, str], FieldError] = {}
    errors = sorted(
        validator.iter_errors(instance),
        key=lambda e: (field_path(e.absolute_path), str(e.validator)),
    )
    for error in errors:
        for problem in _describe(error):
            found.setdefault((problem["field"], problem["code"]), problem)
    return list(found.values())


def field_path(parts: Any) -> str:
    """``a.b[0].c`` from path parts; caller-chosen keys only when plain."""
    path = ""
    for part in parts:
        if isinstance(part, int):
            path += f"[{part}]"
        elif plain_name(part) or not path:
            path += f".{part}" if path else str(part)
        else:
            path += ".<key>"
    return path


def _describe(error: ValidationError) -> list[FieldError]:
    keyword, value = str(error.validator), cast(Any, error.validator_value)
    path = field_path(error.absolute_path)
    instance = error.instance if isinstance(error.instance, Mapping) else {}
    schema = error.schema if isinstance(error.schema, Mapping) else {}
    code, template = _KEYWORDS.get(keyword, ("invalid", None))
    if keyword == "required":
        return [
            {
                "field": f"{path}.{n}" if path else str(n),
                "code": code,
                "message": "is required",
            }
            for n in value
            if n not in instance
        ]
    if keyword == "additionalProperties":
        allowed = schema.get("properties") or {}
        message = unknown_keys([k for k in instance if k not in allowed], allowed)
    elif keyword == "type":
        types = value if isinstance(value, list) else [value]
        message = "must be " + " or ".join(_TYPE_NAMES.get(t, str(t)) for t in types)
    elif keyword == "enum" and len(value) > LIST_LIMIT:
        choices = few(map(_show, value))
        message = f"must be one of {len(value)} choices: {choices} (help lists all)"
    elif keyword == "enum":
        message = "must be one of: " + ", ".join(_show(v) for v in value)
    elif keyword == "const":
        message = "must be " + _show(value)
    elif keyword in ("minLength", "minItems") and value == 1:
        message = "must not be empty"
    elif template is not None:
        message = template.format(value)
    elif keyword in ("anyOf", "oneOf"):
        hint = schema.get("description")
        message = "does not match any accepted form" + (f" ({hint})" if hint else "")
    else:
        message = "is not valid here"
    return [{"field": path or "arguments", "code": code, "message": message}]


def unknown_keys(unknown: list[Any], allowed: Iterable[str]) -> str:
    """The message for ``unknown`` keys of an object that takes ``allowed``.

    Names a few of each and counts them; of many allowed keys, those
    closest to the unknown ones come first.
    """
    named = sorted(k for k in unknown if plain_name(k))
    message = "has keys that are not allowed"
    if named:
        message += f": {few(named)}"
    ordered = sorted(allowed)
    if len(ordered) > LIST_LIMIT:
        close = [
            match
            for key in named[:LIST_LIMIT]
            for match in difflib.get_close_matches(key, ordered, n=3, cutoff=0.6)
        ]
        ordered = list(dict.fromkeys([*close, *ordered]))
        message += f"; allowed keys ({len(ordered)}): {few(ordered)}"
    elif ordered:
        message += f"; allowed keys: {', '.join(ordered)}"
    return message


def _show(value: Any) -> str:
    if value is None:
        return "null"
    return repr(value) if isinstance(value, str) else str(value)
