"""A tool's inputSchema as form fields: one :class:`FormField` per argument.

Scalars become inputs of their type and format, enums selects, a related
field (an id or a lookup object) an id input beside the lookup's fields,
objects fieldsets, arrays lists of items; whatever has no plain form (a
union of objects, an open object) is a JSON text area. The page's script
reads the fields back into arguments by their ``kind`` (explorer.js).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["FormField", "form_fields"]

#: Arguments the page's buttons set, never a form field.
SET_BY_BUTTONS = frozenset({"help", "mode", "confirm"})
#: Nesting deeper than this is edited as JSON.
MAX_DEPTH = 4
#: drf-spectacular's description of a choice: ``* `value` - Label``.
_CHOICE = re.compile(r"^\* `(?P<value>.*?)` - (?P<label>.*)$")
_SCALARS = ("string", "integer", "number", "boolean")
_INPUT_TYPES = {"email": "email", "uri": "url", "date": "date"}
_HINTS = (
    ("format", "format: {}"),
    ("minLength", "at least {} characters"),
    ("maxLength", "at most {} characters"),
    ("pattern", "matches {}"),
    ("minItems", "at least {} items"),
    ("maxItems", "at most {} items"),
)


@dataclass
class FormField:
    """One argument (or part of one) as a labelled form control."""

    name: str
    path: str
    kind: str  # text, integer, number, boolean, enum, ref, object, array, json
    required: bool = False
    description: str = ""
    input_type: str = "text"
    hints: list[str] = field(default_factory=list)
    options: list[tuple[str, str]] = field(default_factory=list)
    children: list[FormField] = field(default_factory=list)
    item: FormField | None = None
    attrs: dict[str, str] = field(default_factory=dict)

    @property
    def dom_id(self) -> str:
        """An element id unique within the page's tool (the tool prefixes it)."""
        return re.sub(r"[^A-Za-z0-9_-]", "-", self.path or "item")


def form_fields(schema: Mapping[str, Any]) -> list[FormField]:
    """The form of an inputSchema's properties, in the schema's order."""
    properties = schema.get("properties") or {}
    required = set(schema.get("required") or ())
    return [
        _field(name, prop, name, name in required, 1)
        for name, prop in properties.items()
        if name not in SET_BY_BUTTONS and isinstance(prop, dict)
    ]


def _field(
    name: str, schema: Mapping[str, Any], path: str, required: bool, depth: int
) -> FormField:
    schema, nullable = _collapsed(schema)
    text = str(schema.get("description") or "")
    made = FormField(name, path, "json", required, text, hints=_hints(schema))
    if nullable:
        made.hints.append("may be null (edit as JSON to send null)")
    if depth > MAX_DEPTH:
        return made
    if "enum" in schema:
        labels = _labels(text)
        if labels:
            made.description = ""
        made.kind = "enum"
        made.options = [
            (json.dumps(v), _option_text(v, labels))
            for v in schema["enum"]
            if v is not None
        ]
        return made
    forms = schema.get("anyOf")
    if isinstance(forms, list):
        lookup = next((f for f in forms if _is_object(f)), None)
        if lookup is not None and any(map(_is_scalar, forms)):
            made.kind = "ref"
            made.hints.insert(0, "an id, or look it up by one of the fields below")
            made.children = _children(lookup, path, depth, optional=True)
        return made
    kind = _type(schema)
    if kind == "string":
        made.kind = "text"
        made.input_type = _INPUT_TYPES.get(str(schema.get("format")), "text")
    elif kind in ("integer", "number"):
        made.kind, made.input_type = kind, "number"
        made.attrs = _bounds(schema, kind)
    elif kind == "boolean":
        made.kind = "boolean"
    elif kind == "object" and isinstance(schema.get("properties"), dict):
        made.kind = "object"
        made.children = _children(schema, path, depth)
    elif kind == "array" and isinstance(schema.get("items"), dict):
        made.kind = "array"
        made.item = _field("", schema["items"], f"{path}[]", False, depth + 1)
        if made.item.kind == "enum":
            made.kind, made.options, made.item = "multiple", made.item.options, None
    return made


def _children(
    schema: Mapping[str, Any], path: str, depth: int, *, optional: bool = False
) -> list[FormField]:
    required = set() if optional else set(schema.get("required") or ())
    return [
        _field(name, prop, f"{path}.{name}", name in required, depth + 1)
        for name, prop in (schema.get("properties") or {}).items()
        if isinstance(prop, dict)
    ]


def _collapsed(schema: Mapping[str, Any]) -> tuple[Mapping[str, Any], bool]:
    """``schema`` without its null form; scalar unions of one type merged."""
    forms = schema.get("anyOf")
    kind = schema.get("type")
    if isinstance(kind, list) and "null" in kind:
        rest = [k for k in kind if k != "null"]
        return {**schema, "type": rest[0] if len(rest) == 1 else rest}, True
    if not isinstance(forms, list):
        return schema, False
    present = [
        f for f in forms if not (isinstance(f, dict) and f.get("type") == "null")
    ]
    nullable = len(present) < len(forms)
    outer = {k: v for k, v in schema.items() if k != "anyOf"}
    kinds = {_type(f) for f in present}
    if len(kinds) == 1 and kinds <= set(_SCALARS) and not any(map(_is_object, present)):
        return {**present[0], **outer}, nullable
    if len(present) == 1 and isinstance(present[0], dict):
        return {**present[0], **outer}, nullable
    return {**outer, "anyOf": present}, nullable


def _type(schema: Any) -> str | None:
    kind = schema.get("type") if isinstance(schema, dict) else None
    if isinstance(kind, list):
        # An id sent as an integer or a numeric string: a text input.
        kind = "string" if "string" in kind else (kind[0] if kind else None)
    return kind if isinstance(kind, str) else None


def _is_object(form: Any) -> bool:
    return isinstance(form, dict) and isinstance(form.get("properties"), dict)


def _is_scalar(form: Any) -> bool:
    return _type(form) in _SCALARS


def _labels(text: str) -> dict[str, str]:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    found = [_CHOICE.match(line) for line in lines]
    if not lines or not all(found):
        return {}
    return {m["value"]: m["label"] for m in found if m is not None}


def _option_text(value: Any, labels: Mapping[str, str]) -> str:
    shown = value if isinstance(value, str) else json.dumps(value)
    label = labels.get(shown)
    return f"{shown} — {label}" if label and label != shown else shown


def _hints(schema: Mapping[str, Any]) -> list[str]:
    hints = [text.format(schema[key]) for key, text in _HINTS if key in schema]
    if "default" in schema:
        hints.append(f"default: {json.dumps(schema['default'])}")
    return ["not empty" if h == "at least 1 characters" else h for h in hints]


def _bounds(schema: Mapping[str, Any], kind: str) -> dict[str, str]:
    attrs = {"step": "1" if kind == "integer" else "any"}
    for key, attr in (("minimum", "min"), ("maximum", "max")):
        if isinstance(schema.get(key), int | float) and abs(schema[key]) < 2**53:
            attrs[attr] = str(schema[key])
    return attrs
