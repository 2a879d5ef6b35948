"""Validation: every JSON Schema problem of a call, in value-free messages.

Messages use schema values only (declared names, limits, choices), where
jsonschema's own would quote the input (seed 002). JSON text sent where the
schema wants an object or array is parsed first (:func:`coerce`, seed 003).
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Collection, Iterable, Mapping
from typing import Any, cast

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from frisian_mcp.examples import schema_types
from frisian_mcp.exceptions import LIST_LIMIT, few, plain_name
from frisian_mcp.types import FieldError

__all__ = [
    "as_object",
    "coerce",
    "field_path",
    "in_words",
    "problems",
    "suggest",
    "unknown_keys",
]

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


def problems(validator: Draft202012Validator, instance: Any) -> list[FieldError]:
    """Every schema problem of ``instance``, one entry per field and code."""
    if validator.is_valid(instance):
        return []
    found: dict[tuple[str, str], FieldError] = {}
    errors = sorted(
        validator.iter_errors(instance),
        key=lambda e: (field_path(e.absolute_path), str(e.validator)),
    )
    for error in errors:
        for problem in _describe(_branch(error)):
            found.setdefault((problem["field"], problem["code"]), problem)
    return list(found.values())


def _branch(error: ValidationError) -> ValidationError:
    """The one error in the one ``anyOf`` branch of the value's type.

    A filter of choices takes an item or a list (:func:`frisian_mcp.jsonschema.scalar_or_list`): a
    bad item, alone or in a list, is reported as the item's error, naming
    the choices.
    """
    if str(error.validator) not in ("anyOf", "oneOf"):
        return error
    roots = (e for e in error.context or () if not e.relative_path)
    wrong_type = {e.schema_path[0] for e in roots if e.validator == "type"}
    typed = [e for e in error.context or () if e.schema_path[0] not in wrong_type]
    return typed[0] if len(typed) == 1 else error


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
        known = schema.get("properties") or {}
        # Read-only keys are taken (and dropped), never suggested.
        allowed = [k for k, v in known.items() if not _read_only(v)]
        message = unknown_keys([k for k in instance if k not in known], allowed)
    elif keyword == "type":
        types = value if isinstance(value, list) else [value]
        message = "must be " + in_words(types)
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
        # By type only: a description may be pages of markdown (issue 25).
        forms = [_TYPE_NAMES.get(t, str(t)) for b in value for t in _types(b)]
        message = "does not match any accepted form"
        if forms:
            message += f" ({' or '.join(dict.fromkeys(forms))})"
    else:
        message = "is not valid here"
    return [{"field": path or "arguments", "code": code, "message": message}]


def in_words(types: Iterable[str]) -> str:
    """JSON types in words: ``"an integer or a string"``."""
    return " or ".join(_TYPE_NAMES.get(t, str(t)) for t in types)


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


def suggest(
    keys: Iterable[str], names: Iterable[str], spare: Iterable[str] = ()
) -> dict[str, str]:
    """A "did you mean" per key: the name it is a plausible typo of.

    A typo is at most one edit (a letter added, dropped, changed, or two
    swapped; case aside) per five characters, so ``language_code`` is no
    typo of ``language_code_style``. Keys without one take the ``spare``
    names (path arguments left out: "id" for "code"), most alike first.
    """
    candidates = sorted(names)
    found: dict[str, str] = {}
    for key in keys:
        most = max(1, len(key) // 5)
        typos = [(_edits(key, n, most), n) for n in candidates]
        close = [(edits, name) for edits, name in typos if edits <= most]
        if close:
            found[key] = min(close)[1]
    free = [name for name in spare if name not in found.values()]
    pairs = [
        (difflib.SequenceMatcher(None, key, name).ratio(), -j, key, name)
        for key in keys
        if key not in found
        for j, name in enumerate(free)
    ]
    for *_, key, name in sorted(pairs, reverse=True):
        if key not in found and name not in found.values():
            found[key] = name
    return found


def _edits(a: str, b: str, most: int) -> int:
    """Edits from ``a`` to ``b``, case aside (optimal string alignment);
    past ``most``, only "more": the band beyond it is never computed."""
    a, b = a.casefold(), b.casefold()
    # Each edit adds at most two letters to those only one of them has.
    if abs(len(a) - len(b)) > most or len(set(a) ^ set(b)) > 2 * most:
        return most + 1
    far = most + 1
    before: list[int] = []
    row = [min(j, far) for j in range(len(b) + 1)]
    for i in range(1, len(a) + 1):
        current = [min(i, far)] + [far] * len(b)
        for j in range(max(1, i - most), min(len(b), i + most) + 1):
            cost = min(
                row[j] + 1, current[j - 1] + 1, row[j - 1] + (a[i - 1] != b[j - 1])
            )
            if before and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                cost = min(cost, before[j - 2] + 1)
            current[j] = min(cost, far)
        if min(current) > most:
            return far
        before, row = row, current
    return row[-1]


def _types(schema: Any) -> list[Any]:
    kind = schema.get("type") if isinstance(schema, Mapping) else None
    return kind if isinstance(kind, list) else [kind] if kind else []


def _read_only(schema: Any) -> bool:
    return isinstance(schema, Mapping) and schema.get("readOnly") is True


def _show(value: Any) -> str:
    if isinstance(value, str):
        return repr(value)
    return "null" if value is None else str(value)


def coerce(
    schema: Mapping[str, Any], args: Mapping[str, Any], lists: Collection[str] = ()
) -> dict[str, Any]:
    """Parse JSON text sent where the schema wants an object or array.

    Only when the string is not valid as it is, parses, and has a type the
    property accepts: a numeric string for an id stays a string. An
    undeclared argument named in ``lists`` (a bulk body) takes a list.
    """
    properties = schema.get("properties") or {}
    result = dict(args)
    for name, value in args.items():
        parsed = _json_container(value) if isinstance(value, str) else None
        if parsed is None:
            continue
        prop = properties.get(name)
        if isinstance(prop, Mapping):
            wanted = "object" if isinstance(parsed, dict) else "array"
            if wanted in schema_types(prop) and not (
                Draft202012Validator(prop).is_valid(value)
            ):
                result[name] = parsed
        elif name in lists and isinstance(parsed, list):
            result[name] = parsed
    return result


def as_object(value: Any) -> Any:
    """``value``, or the object its JSON text holds."""
    parsed = _json_container(value) if isinstance(value, str) else None
    return parsed if isinstance(parsed, Mapping) else value


def _json_container(text: str) -> Any:
    stripped = text.strip()
    if not stripped or stripped[0] not in "[{":
        return None
    try:
        value = json.loads(stripped)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict | list) else None
