"""Results: each shape of ``structuredContent``, beside the one function
that writes it (ADR 0042), and :func:`output_schema`, every shape a tool can
answer, which clients check each result against (MCP 2025-11-25
server/tools "Output Schema", ADR 0038).
"""

from __future__ import annotations

import copy
from collections.abc import Collection, Mapping
from typing import Any

from django.db.models import Manager, Model, QuerySet

from frisian_mcp.arguments import next_token
from frisian_mcp.conf import mcp_settings
from frisian_mcp.jsonschema import plain
from frisian_mcp.notices import warn
from frisian_mcp.types import Call, Endpoint, JSONObject, ListState

__all__ = [
    "DELETED",
    "HELP",
    "UNCHECKED",
    "VALIDATION",
    "bulk",
    "bulk_shape",
    "deleted",
    "finish",
    "helped",
    "output_schema",
    "page",
    "page_shape",
    "record",
    "shapes",
    "validation",
]


def _object(properties: JSONObject, *required: str) -> JSONObject:
    return {"type": "object", "properties": properties, "required": list(required)}


#: A delete's answer (DRF's 204, which has no body).
DELETED = _object({"deleted": {"type": "boolean"}}, "deleted")


def deleted() -> JSONObject:
    """A delete's answer: :data:`DELETED`."""
    return {"deleted": True}


#: ``help``'s answer (:func:`frisian_mcp.manual.help_document`).
HELP = _object({"help": {"type": "object"}}, "help")


def helped(document: JSONObject) -> JSONObject:
    """``help``'s answer: :data:`HELP`."""
    return {"help": document}


#: A ``mode: "validate"`` call's answer (:func:`validation`): ``valid``,
#: ``action``, ``written: false`` and what the action would write; extras
#: add keys (``call.notes``: a confirmation's summary). Said briefly: every
#: write tool lists it within ``OUTPUT_SCHEMA_LIMIT``.
VALIDATION = _object({"validation": {"type": "object"}}, "validation")


def validation(data: Any, count: int | None, notes: JSONObject) -> JSONObject:
    """A ``mode: "validate"`` call's answer: what would be written, and the
    call hooks' ``notes``; ``count``: the items of a bulk body."""
    if count is not None:
        report: JSONObject = {"valid": True, "action": "create", "count": count}
        return {"validation": {**report, **notes}}
    validated, instance = data["validated"], data["instance"]
    report = {"valid": True, "action": "create" if instance is None else "update"}
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
    return {"validation": {**report, "written": False, **notes}}


def page_shape(record: JSONObject) -> JSONObject:
    """A page of records: :func:`page`, its ``next_token`` by :func:`finish`."""
    counts = {key: {"type": "integer"} for key in ("count", "page", "page_size")}
    properties: JSONObject = {"results": {"type": "array", "items": record}}
    properties |= {**counts, "has_more": {"type": "boolean"}}
    properties["next_token"] = {"type": "string"}
    return _object(properties, "results", "count", "page", "page_size", "has_more")


def page(rows: list[Any], count: int, listing: ListState) -> JSONObject:
    """One page (:func:`page_shape`): ``rows`` of ``count`` in all."""
    start = (listing.page - 1) * listing.page_size
    return {
        "results": rows,
        "count": count,
        "page": listing.page,
        "page_size": listing.page_size,
        "has_more": start + len(rows) < count,
    }


def bulk_shape(record: JSONObject) -> JSONObject:
    """A bulk create's answer: :func:`bulk`."""
    records = {"type": "array", "items": record}
    properties = {"created": {"type": "integer"}, "results": records}
    return _object({**properties, "ids": {"type": "array"}}, "created")


def bulk(data: Any, pk: str) -> JSONObject:
    """A bulk create's answer: the objects, or their ids past a page."""
    rows = plain(data) if isinstance(data, list) else []
    if len(rows) > mcp_settings.PAGE_SIZE:
        for key in (pk, "id"):
            if all(isinstance(row, dict) and key in row for row in rows):
                return {"created": len(rows), "ids": [row[key] for row in rows]}
    return {"created": len(rows), "results": rows}


def record(data: Any) -> JSONObject:
    """A view's answer: a record (its serializer's schema) as it is, other
    JSON under ``result``, nothing as ``{}``; always an object."""
    if data is None:
        return {}
    if not isinstance(data, dict | list):
        data = plain(data)  # inside a dict or list: replies.tool_result
    return dict(data) if isinstance(data, dict) else {"result": data}


#: The names of the arguments a call sent unchecked (ADR 0030), a key of
#: every shape of a tool that takes undeclared arguments.
UNCHECKED = {"type": "array", "items": {"type": "string"}}
UNCHECKED_WARNING = (
    "The tool {} sent arguments its schema does not declare to its view unchecked."
)


def finish(tool: str, call: Call, structured: JSONObject, caller: str) -> JSONObject:
    """Project records onto ``filter_keys``; add a page's ``next_token``,
    and the names of the arguments sent unchecked (:data:`UNCHECKED`)."""
    listing = call.listing
    keys = listing.filter_keys
    rows = structured.get("results") if call.paged else None
    if not isinstance(rows, list):
        structured = _project(structured, keys)
    else:
        if keys:
            structured["results"] = [_project(row, keys) for row in rows]
        if structured.get("has_more") is True:
            number = int(structured.get("page", listing.page)) + 1
            size = int(structured.get("page_size", listing.page_size))
            # A host's page: its size is in its link.
            size = listing.page_size if call.next_query else size
            structured["next_token"] = next_token(tool, call, caller, number, size)
    if call.unchecked:
        # A view's own "unchecked" key stays its own, under "result".
        if "unchecked" in structured:
            structured = {"result": structured}
        structured["unchecked"] = call.unchecked
        warn("unchecked_arguments", UNCHECKED_WARNING.format(tool), call.unchecked)
    return structured


def _project(record: Any, keys: list[str] | None) -> Any:
    """``record`` with only ``keys`` (anything but an object stays)."""
    if keys and isinstance(record, Mapping):
        return {key: record[key] for key in keys if key in record}
    return record


def shapes(
    endpoint: Endpoint, record: JSONObject | None
) -> tuple[JSONObject, ...] | None:
    """The shapes a stock action answers, by its row of ``KINDS``; ``None``
    where the action is the view's own, or its record unknown."""
    row = endpoint.row
    if not endpoint.stock or (row.result != "deleted" and record is None):
        return None
    if record is None:  # a delete: DRF's 204, no record
        return (DELETED,)
    shape = page_shape(record) if row.result == "page" else record
    return (shape, bulk_shape(record)) if row.bulk else (shape,)


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
