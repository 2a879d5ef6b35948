"""Validate tool arguments against their inputSchema, reporting every problem.

``jsonschema``'s own messages quote the offending value ("'abc' is not of
type 'integer'"); an MCP error must never echo caller input (seed 002). So
each error is rewritten from the schema side: the field path (declared names
and indexes), a per-field ``code`` and a message built only from schema
values (types, enum members, bounds, patterns).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

__all__ = ["FieldError", "is_plain_identifier", "validate_arguments", "validator_for"]

#: A key that may be named in an error although the caller chose it.
_PLAIN_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")

FieldError = dict[str, Any]

_CODES = {
    "type": "invalid_type",
    "enum": "invalid_choice",
    "const": "invalid_choice",
    "required": "required",
    "maxLength": "max_length",
    "minLength": "min_length",
    "maximum": "max_value",
    "exclusiveMaximum": "max_value",
    "minimum": "min_value",
    "exclusiveMinimum": "min_value",
    "pattern": "invalid_format",
    "format": "invalid_format",
    "additionalProperties": "unknown_key",
    "anyOf": "invalid_form",
    "oneOf": "invalid_form",
    "maxItems": "max_items",
    "minItems": "min_items",
    "uniqueItems": "duplicate_items",
    "minProperties": "empty_object",
    "maxProperties": "too_many_keys",
    "multipleOf": "invalid_number",
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


def is_plain_identifier(key: object) -> bool:
    """Whether a caller-chosen key is safe to name in an error message."""
    return isinstance(key, str) and bool(_PLAIN_IDENTIFIER.match(key))


def validator_for(schema: Mapping[str, Any]) -> Draft202012Validator:
    """A validator for a tool's inputSchema with the root left open.

    Undeclared top-level arguments are not schema errors here: the
    nested-wrapper and unknown-key guards that run next explain them far
    better than "additional properties are not allowed" would.
    """
    root = {k: v for k, v in schema.items() if k != "additionalProperties"}
    return Draft202012Validator(root)


def validate_arguments(
    validator: Draft202012Validator, arguments: Mapping[str, Any]
) -> list[FieldError]:
    """Return every schema problem of ``arguments``, one entry per field."""
    if validator.is_valid(arguments):
        return []
    problems: list[FieldError] = []
    seen: set[tuple[str, str]] = set()
    for error in sorted(validator.iter_errors(arguments), key=_error_order):
        for problem in _describe(error):
            key = (problem["field"], problem["code"])
            if key not in seen:
                seen.add(key)
                problems.append(problem)
    return problems


def _error_order(error: ValidationError) -> tuple[str, str]:
    return (_path(error.absolute_path), str(error.validator))


def _path(parts: Iterable[Any]) -> str:
    path = ""
    for part in parts:
        if isinstance(part, int):
            path += f"[{part}]"
        elif is_plain_identifier(part) or not path:
            path += f".{part}" if path else str(part)
        else:
            path += ".<key>"
    return path


def _describe(error: ValidationError) -> list[FieldError]:
    validator = str(error.validator)
    value = error.validator_value
    path = _path(error.absolute_path)
    code = _CODES.get(validator, "invalid")
    if validator == "required":
        instance = error.instance if isinstance(error.instance, Mapping) else {}
        missing = [
            n for n in (value if isinstance(value, list) else []) if n not in instance
        ]
        return [
            {
                "field": f"{path}.{name}" if path else str(name),
                "code": "required",
                "message": "is required",
            }
            for name in missing
        ]
    if validator == "additionalProperties":
        instance = error.instance if isinstance(error.instance, Mapping) else {}
        schema = error.schema if isinstance(error.schema, Mapping) else {}
        allowed = set((schema.get("properties") or {}).keys())
        extra = [k for k in instance if k not in allowed]
        named = [k for k in extra if is_plain_identifier(k)]
        message = "has keys that are not allowed"
        if named:
            message += ": " + ", ".join(sorted(named))
        if allowed:
            message += "; allowed keys: " + ", ".join(sorted(allowed))
        return [{"field": path or "arguments", "code": code, "message": message}]
    return [
        {
            "field": path or "arguments",
            "code": code,
            "message": _message(validator, value, error),
        }
    ]


def _message(validator: str, value: Any, error: ValidationError) -> str:
    if validator == "type":
        types = value if isinstance(value, list) else [value]
        return "must be " + " or ".join(_TYPE_NAMES.get(t, str(t)) for t in types)
    if validator == "enum":
        return "must be one of: " + ", ".join(_show(v) for v in value)
    if validator == "const":
        return f"must be {_show(value)}"
    if validator == "maxLength":
        return f"must be at most {value} characters long"
    if validator == "minLength":
        return (
            "must not be empty"
            if value == 1
            else f"must be at least {value} characters long"
        )
    if validator == "maximum":
        return f"must be at most {value}"
    if validator == "exclusiveMaximum":
        return f"must be less than {value}"
    if validator == "minimum":
        return f"must be at least {value}"
    if validator == "exclusiveMinimum":
        return f"must be greater than {value}"
    if validator == "pattern":
        return f"must match the pattern {value}"
    if validator == "maxItems":
        return f"must have at most {value} items"
    if validator == "minItems":
        return (
            "must not be empty" if value == 1 else f"must have at least {value} items"
        )
    if validator == "uniqueItems":
        return "must not repeat items"
    if validator == "minProperties":
        return "must not be an empty object"
    if validator == "multipleOf":
        return f"must be a multiple of {value}"
    if validator in ("anyOf", "oneOf"):
        hint = (
            error.schema.get("description")
            if isinstance(error.schema, Mapping)
            else None
        )
        return "does not match any accepted form" + (f" ({hint})" if hint else "")
    return "is not valid here"


def _show(value: Any) -> str:
    return (
        "null"
        if value is None
        else repr(value)
        if isinstance(value, str)
        else str(value)
    )
