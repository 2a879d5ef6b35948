"""Results: the shapes of a tool's ``structuredContent``, beside their schemas.

A stock action answers a record, a page of records or ``{"deleted": true}``;
a bulk create ``{"created": n, ...}``; a ``mode: "validate"`` call a
``validation`` report; ``help`` its document. :func:`output_schema`
declares exactly the shapes a tool can answer, which clients check every
non-error result against (MCP 2025-11-25 server/tools "Output Schema",
ADR 0038).
"""

from __future__ import annotations

import copy
from collections.abc import Collection, Mapping
from typing import Any

from django.db.models import Manager, Model, QuerySet

from frisian_mcp.conf import mcp_settings
from frisian_mcp.jsonschema import plain
from frisian_mcp.types import JSONObject

__all__ = [
    "DELETED",
    "HELP",
    "UNCHECKED",
    "VALIDATION",
    "bulk",
    "bulk_shape",
    "deleted",
    "output_schema",
    "page_shape",
    "validation",
]


def _object(properties: JSONObject, *required: str) -> JSONObject:
    return {"type": "object", "properties": properties, "required": list(required)}


#: A delete's answer (DRF's 204, which has no body).
DELETED = _object({"deleted": {"type": "boolean"}}, "deleted")
#: ``help``'s answer (:func:`frisian_mcp.arguments.help_document`).
HELP = _object({"help": {"type": "object"}}, "help")
#: A ``mode: "validate"`` call's answer (:func:`validation`): ``valid``,
#: ``action``, ``written: false`` and what the action would write; extras
#: add keys (``call.notes``: a confirmation's summary). Said briefly: every
#: write tool lists it within ``OUTPUT_SCHEMA_LIMIT``.
VALIDATION = _object({"validation": {"type": "object"}}, "validation")
#: The names of the arguments a call sent unchecked (ADR 0030).
UNCHECKED = {"type": "array", "items": {"type": "string"}}


def page_shape(record: JSONObject) -> JSONObject:
    """A page of records (:func:`frisian_mcp.pagination.page`), its
    ``next_token`` signed by :func:`frisian_mcp.arguments.finish`."""
    counts = {key: {"type": "integer"} for key in ("count", "page", "page_size")}
    properties: JSONObject = {"results": {"type": "array", "items": record}}
    properties |= {**counts, "has_more": {"type": "boolean"}}
    properties["next_token"] = {"type": "string"}
    return _object(properties, "results", "count", "page", "page_size", "has_more")


def bulk_shape(record: JSONObject) -> JSONObject:
    """A bulk create's answer: :func:`bulk`."""
    records = {"type": "array", "items": record}
    properties = {"created": {"type": "integer"}, "results": records}
    return _object({**properties, "ids": {"type": "array"}}, "created")


def output_schema(
    shapes: tuple[JSONObject, ...] | None,
    arguments: Collection[str],
    unchecked: bool = False,
) -> JSONObject | None:
    """The outputSchema of a tool whose action answers ``shapes``.

    ``arguments``: the protocol arguments it takes, the extras' included
    (``help``, and ``mode`` wherever a hook adds it). ``None`` where the
    action's answer is the view's own, undeclared. A tool that takes
    undeclared arguments names them in ``unchecked`` (ADR 0030).
    """
    if shapes is None:
        return None
    every = [*shapes, *([VALIDATION] if "mode" in arguments else ())]
    if unchecked:
        every = [_with(shape, "unchecked", UNCHECKED) for shape in every]
    if "help" in arguments:
        every.insert(len(shapes), HELP)
    return {"type": "object", "anyOf": copy.deepcopy(every)}


def _with(shape: JSONObject, name: str, schema: JSONObject) -> JSONObject:
    """``shape`` with one more property (a copy: records are shared)."""
    return {**shape, "properties": {**shape.get("properties", {}), name: schema}}


def deleted() -> JSONObject:
    """A delete's answer: :data:`DELETED`."""
    return {"deleted": True}


def bulk(data: Any, pk: str) -> JSONObject:
    """A bulk create's answer: the objects, or their ids when many."""
    rows = plain(data) if isinstance(data, list) else []
    if len(rows) > mcp_settings.PAGE_SIZE:
        for key in (pk, "id"):
            if all(isinstance(row, dict) and key in row for row in rows):
                return {"created": len(rows), "ids": [row[key] for row in rows]}
    return {"created": len(rows), "results": rows}


def validation(data: Any, count: int | None) -> JSONObject:
    """A ``mode: "validate"`` call's answer (:data:`VALIDATION`): what
    would be written; ``count``: the items of a bulk body."""
    if count is not None:
        return {"validation": {"valid": True, "action": "create", "count": count}}
    validated, instance = data["validated"], data["instance"]
    action = "create" if instance is None else "update"
    report: JSONObject = {"valid": True, "action": action}
    if validated is None:  # a delete
        report.update(action="delete", id=_by_key(instance.pk))
    else:
        report["data"] = _by_key(validated)
    if instance is not None and validated is not None:
        report["id"] = _by_key(instance.pk)
        report["changed_fields"] = [
            name
            for name, value in validated.items()
            if _by_key(getattr(instance, name, None)) != _by_key(value)
        ]
    report["written"] = False
    return {"validation": report}


def _by_key(value: Any) -> Any:
    """Validated data as JSON: related rows become their primary keys."""
    if isinstance(value, Model):
        return _by_key(value.pk)
    if isinstance(value, Manager | QuerySet):
        return sorted(_by_key(v) for v in value.values_list("pk", flat=True))
    if isinstance(value, Mapping):
        return {str(k): _by_key(v) for k, v in value.items()}
    if isinstance(value, set):
        return sorted((_by_key(v) for v in value), key=str)
    if isinstance(value, list | tuple):
        return [_by_key(v) for v in value]
    return plain(value)
