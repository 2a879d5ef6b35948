"""A fast "certainly valid" check for flat JSON Schemas, before jsonschema.

jsonschema descends keyword by keyword, building a validator per subschema:
most of a tool call's argument-check time (docs/performance.md, transport).
Most tools' argument schemas are flat objects of scalars, for which a few
closures say the same. They answer ``True`` only for an instance the schema
accepts; anything else (``False``) goes to jsonschema, which alone explains
problems. ``tests/test_fastcheck.py`` holds the two to agreement.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

__all__ = ["Check", "fast_check"]

#: A predicate over a JSON value.
Check = Callable[[Any], bool]
#: Keywords that only annotate (no format checker is used: formats too).
_ANNOTATIONS = frozenset(
    {"description", "title", "default", "examples", "format", "deprecated"}
    | {"contentEncoding", "contentMediaType"}  # annotations in 2020-12
    | {"readOnly", "writeOnly", "$comment"}
)
_FAST_TYPES: dict[str, Check] = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: type(v) is int,  # 1.0 is one too: jsonschema decides
    "number": lambda v: type(v) in (int, float),
    "boolean": lambda v: type(v) is bool,
    "null": lambda v: v is None,
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
}


def fast_check(schema: Any) -> Check | None:
    """A check of ``schema`` that says ``True`` only for valid instances.

    It knows the keywords of the flat argument schemas most tools have;
    ``False`` means "ask jsonschema", never "invalid". ``None`` when the
    schema uses anything else. Where in doubt (bools among integers, floats
    that are integers), it says ``False``.
    """
    if not isinstance(schema, dict):
        return None
    checks: list[Check] = []
    for keyword, value in schema.items():
        if keyword in _ANNOTATIONS:
            continue
        check = _keyword_check(keyword, value, schema)
        if check is None:
            return None
        checks.append(check)
    return lambda v: all(check(v) for check in checks)


def _keyword_check(keyword: str, value: Any, schema: dict[str, Any]) -> Check | None:
    if keyword == "type":
        names = [value] if isinstance(value, str) else value
        if not isinstance(names, list) or not set(names) <= _FAST_TYPES.keys():
            return None
        kinds = [_FAST_TYPES[name] for name in names]
        return lambda v: any(kind(v) for kind in kinds)
    if keyword in ("enum", "const"):
        options = value if keyword == "enum" else [value]
        if not isinstance(options, list):
            return None
        return lambda v: any(type(o) is type(v) and o == v for o in options)
    if keyword == "anyOf":
        branches = [fast_check(b) for b in value] if isinstance(value, list) else [None]
        if None in branches:
            return None
        return lambda v: any(branch(v) for branch in branches)  # type: ignore[misc]
    if keyword in _BOUNDS and type(value) in (int, float):
        test, kind = _BOUNDS[keyword]
        return lambda v: not _FAST_TYPES[kind](v) or test(v, value)
    if keyword == "pattern" and isinstance(value, str):
        try:
            search = re.compile(value).search
        except re.error:  # an ECMA-only pattern: jsonschema's problem
            return None
        return lambda v: not isinstance(v, str) or search(v) is not None
    if keyword in ("properties", "required", "additionalProperties"):
        return _object_check(keyword, value, schema)
    if keyword == "items":
        item = fast_check(value)
        if item is None:
            return None
        return lambda v: not isinstance(v, list) or all(item(i) for i in v)
    if keyword == "uniqueItems" and value is True:
        return lambda v: (
            not isinstance(v, list)
            or (all(isinstance(i, str) for i in v) and len(set(v)) == len(v))
        )
    return None


_BOUNDS: dict[str, tuple[Callable[[Any, Any], bool], str]] = {
    "minLength": (lambda v, n: len(v) >= n, "string"),
    "maxLength": (lambda v, n: len(v) <= n, "string"),
    "minItems": (lambda v, n: len(v) >= n, "array"),
    "maxItems": (lambda v, n: len(v) <= n, "array"),
    "minProperties": (lambda v, n: len(v) >= n, "object"),
    "maxProperties": (lambda v, n: len(v) <= n, "object"),
    "minimum": (lambda v, n: v >= n, "number"),
    "maximum": (lambda v, n: v <= n, "number"),
    "exclusiveMinimum": (lambda v, n: v > n, "number"),
    "exclusiveMaximum": (lambda v, n: v < n, "number"),
}


def _object_check(keyword: str, value: Any, schema: dict[str, Any]) -> Check | None:
    if keyword == "required":
        if not isinstance(value, list):
            return None
        return lambda v: not isinstance(v, dict) or all(k in v for k in value)
    if keyword == "additionalProperties":
        if value is True:
            return lambda v: True
        known = schema.get("properties", {})
        extra = (lambda v: False) if value is False else fast_check(value)
        if extra is None or not isinstance(known, dict):
            return None
        return lambda v: (
            not isinstance(v, dict)
            or all(k in known or extra(item) for k, item in v.items())
        )
    if not isinstance(value, dict):
        return None
    fields = {name: fast_check(sub) for name, sub in value.items()}
    if None in fields.values():
        return None
    return lambda v: (
        not isinstance(v, dict)
        or all(
            fields[k](item)  # type: ignore[misc]
            for k, item in v.items()
            if k in fields
        )
    )
