"""Redaction: a host's error data as field errors that quote no caller value.

Reads DRF's error shape, drf-standardized-errors' and RFC 9457 problem
details; every value the caller sent is replaced by ``<value>`` (seed 002).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from frisian_mcp.exceptions import plain_name
from frisian_mcp.types import FieldError

__all__ = ["field_errors", "host_detail", "redact", "sent_values"]

_DOTTED = re.compile(r"[\w.\[\]-]{1,128}")
# DRF error codes whose stock messages quote the submitted value.
_REPLACED = {
    "invalid_choice": "is not one of the allowed choices",
    "does_not_exist": "refers to an object that does not exist or is not visible to you",
    "incorrect_type": "is not in a form this reference accepts (its description lists them)",
    "no_match": "is not a link to an object of the right kind",
    "incorrect_match": "is not a link to an object of the right kind",
    "not_a_list": "must be a list",
    "not_a_dict": "must be an object",
}


def field_errors(data: Any, sent: set[str]) -> list[FieldError]:
    """A 400's error data as ``[{"field", "code", "message"}]``.

    Reads DRF's own shape, drf-standardized-errors' (``errors`` of ``code``,
    ``detail``, ``attr``) and RFC 9457 problem details; anything else gets
    one value-free entry rather than a guess. Every value the caller sent
    (``sent``) is redacted from every message, whatever the shape.
    """
    if isinstance(data, Mapping):
        listed = data.get("errors", data.get("invalid_params"))
        if (
            isinstance(listed, list)
            and listed
            and all(isinstance(e, Mapping) for e in listed)
        ):
            return [_listed(entry, sent) for entry in listed]
        if "status" in data and ("title" in data or "type" in data):
            detail = host_detail(data, sent) or "the request is invalid"
            return [{"field": "non_field_errors", "code": "invalid", "message": detail}]
    found = _drf_errors(data, sent, "")
    if found is not None:
        return found
    return [
        {
            "field": "non_field_errors",
            "code": "invalid",
            "message": "the API rejected the data in a form frisian_mcp cannot "
            "read; the same request over REST shows why",
        }
    ]


def _drf_errors(data: Any, sent: set[str], prefix: str) -> list[FieldError] | None:
    """DRF's error shape (text leaves in lists and dicts) as entries, else None."""
    if isinstance(data, str):
        return [_entry(prefix, data, sent)]
    if isinstance(data, Mapping):
        parts = [
            (f"{prefix}[{key}]", value)
            if isinstance(key, int)  # ListSerializer errors, by item index
            else (f"{prefix}.{plain_name(key) or '<key>'}".lstrip("."), value)
            for key, value in data.items()
        ]
    elif isinstance(data, list | tuple):
        if all(isinstance(item, str) for item in data):
            parts = [(prefix, item) for item in data]
        else:  # errors per item; an item without errors is empty
            parts = [(f"{prefix}[{i}]", v) for i, v in enumerate(data) if v != ""]
    else:
        return None
    errors: list[FieldError] = []
    for path, value in parts:
        found = _drf_errors(value, sent, path)
        if found is None:
            return None
        errors.extend(found)
    return errors


def _listed(entry: Mapping[str, Any], sent: set[str]) -> FieldError:
    """One entry of drf-standardized-errors' or RFC 9457's ``invalid_params``."""
    attr = entry.get("attr", entry.get("name"))
    field = plain_name(attr)
    if field is None and isinstance(attr, str) and _DOTTED.fullmatch(attr):
        field = attr  # a dotted path to a nested field, e.g. "items.0.name"
    code = entry.get("code")
    detail = entry.get("detail", entry.get("reason"))
    return {
        "field": field or "non_field_errors",
        "code": code if isinstance(code, str) and plain_name(code) else "invalid",
        "message": _REPLACED.get(str(code))
        or redact(str(detail or "is invalid"), sent),
    }


def host_detail(data: Any, sent: set[str]) -> str | None:
    """The host's refusal reason (``detail``, a problem's ``title``), redacted."""
    text = data[0] if isinstance(data, list | tuple) and len(data) == 1 else data
    if isinstance(text, Mapping):
        listed = text.get("errors")
        first = listed[0] if isinstance(listed, list) and listed else None
        text = text.get("detail") or text.get("title")
        if text is None and isinstance(first, Mapping):
            text = first.get("detail")
    if not isinstance(text, str) or not text.strip():
        return None
    return redact(text.strip()[:500], sent)


def _entry(field: str, detail: Any, sent: set[str]) -> FieldError:
    code = str(getattr(detail, "code", None) or "invalid")
    message = _REPLACED.get(code) or redact(str(detail), sent)
    return {"field": field or "non_field_errors", "code": code, "message": message}


def sent_values(sent: Any) -> set[str]:
    """Every scalar the caller sent, as text."""
    if isinstance(sent, Mapping):
        sent = list(sent.values())
    if isinstance(sent, list | tuple):
        return set().union(*(sent_values(v) for v in sent)) if sent else set()
    if sent is None or isinstance(sent, bool) or str(sent) == "":
        return set()
    return {str(sent)}


def redact(message: str, values: Iterable[str]) -> str:
    """``message`` with every one of ``values`` replaced by ``<value>``.

    Numbers of one or two digits stay: they carry nothing to hide, and
    redacting them would mangle the host's counts and limits.
    """
    for value in sorted(values, key=len, reverse=True):
        if (len(value) < 2 and not value.isalnum()) or (
            value.isdigit() and len(value) < 3
        ):
            continue
        pattern = re.escape(value)
        if value[:1].isalnum():
            pattern = r"(?<![\w])" + pattern + r"(?![\w])"
        message = re.sub(pattern, "<value>", message)
    return message
