"""Example values: one value a JSON schema accepts, for ``help`` documents.

:func:`example_arguments` makes the example call of a tool's ``help``;
:func:`schema_types` tells which JSON types a schema accepts.
"""

from __future__ import annotations

import copy
from collections.abc import Collection, Mapping
from typing import Any

from jsonschema import Draft202012Validator

from frisian_mcp.types import JSONObject

__all__ = ["example_arguments", "example_value", "schema_types"]


def example_arguments(
    input_schema: Mapping[str, Any], skip: Collection[str] = ()
) -> JSONObject:
    """Arguments of one call that satisfies ``input_schema``.

    The required arguments (else the first one not in ``skip``), or only the
    required ones if an optional example does not fit.
    """
    properties: Mapping[str, Any] = input_schema.get("properties", {})
    required = [n for n in input_schema.get("required", ()) if n in properties]
    names = required or [n for n in properties if n not in skip][:1]
    example = {name: example_value(properties[name]) for name in names}
    if not Draft202012Validator(input_schema).is_valid(example):
        example = {name: example_value(properties[name]) for name in required}
    return example


_EXAMPLE_STRINGS = {
    "email": "user@example.com",
    "uuid": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
    "date": "2026-01-31",
    "date-time": "2026-01-31T12:00:00Z",
    "time": "12:00:00",
    "uri": "https://example.com/",
    "ipv4": "192.0.2.1",
    "ipv6": "2001:db8::1",
    "decimal": "1.00",
    "duration": "1 00:00:00",
    "hostname": "example.com",
}


def example_value(schema: Any) -> Any:
    """A value ``schema`` accepts, for documentation."""
    if not isinstance(schema, Mapping):
        return None
    for key in ("examples", "enum"):
        values = [v for v in schema.get(key) or () if v is not None]
        if values:
            return copy.deepcopy(values[0])
    if schema.get("default") is not None:
        return copy.deepcopy(schema["default"])
    options = [
        o
        for o in schema.get("anyOf") or schema.get("oneOf") or ()
        if isinstance(o, Mapping) and o.get("type") != "null"
    ]
    if options:
        return example_value(options[0])
    type_ = next((t for t in schema_types(schema) if t != "null"), None)
    if type_ == "string":
        return _example_string(schema)
    if type_ == "integer":
        top = schema.get("maximum", 1)
        return max(int(schema.get("minimum", 1)), 1) if top >= 1 else int(top)
    if type_ == "number":
        return float(schema.get("minimum", 1.5))
    if type_ == "boolean":
        return True
    if type_ == "array":
        return [example_value(schema.get("items", {}))]
    if type_ == "object":
        props = schema.get("properties") or {}
        names = list(schema.get("required") or [])
        for option in schema.get("anyOf") or ():
            names = names or list(option.get("required") or [])
        names = names or list(props)[:1]
        more = int(schema.get("minProperties", 0)) - len(names)
        names += [name for name in props if name not in names][: max(more, 0)]
        return {name: example_value(props.get(name, {})) for name in names}
    return "value"


def _example_string(schema: Mapping[str, Any]) -> str:
    value = _EXAMPLE_STRINGS.get(str(schema.get("format")), "text")
    if schema.get("pattern") == "^-?[0-9]+$":
        value = "1"
    value += "x" * max(0, int(schema.get("minLength", 0)) - len(value))
    maximum = schema.get("maxLength")
    return value if maximum is None else value[: int(maximum)]


def schema_types(schema: Mapping[str, Any]) -> list[str]:
    """The JSON types ``schema`` accepts, its alternatives' included."""
    type_ = schema.get("type")
    found: list[str] = [type_] if isinstance(type_, str) else list(type_ or [])
    for option in schema.get("anyOf") or schema.get("oneOf") or ():
        if isinstance(option, Mapping):
            found.extend(t for t in schema_types(option) if t not in found)
    return found
