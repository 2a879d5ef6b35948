"""A tool's manual: what ``help: true`` answers instead of running it.

Above :mod:`~frisian_mcp.tools`, so it takes the ``Tool`` whole (ADR 0042).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from frisian_mcp import results
from frisian_mcp.arguments import ARGUMENTS, NAMES
from frisian_mcp.examples import example_arguments, schema_types
from frisian_mcp.schema import ToolSchema
from frisian_mcp.tools import Tool
from frisian_mcp.types import JSONObject

__all__ = ["help_document"]


def help_document(tool: Tool, filters: Mapping[str, Any] | None = None) -> JSONObject:
    """The ``help`` result (:data:`~frisian_mcp.results.HELP`) of ``tool``.

    ``filters``: those a filter-set instance adds now. The outputSchema is
    given here when the listing left it out.
    """
    schema = tool.schema
    if schema is None:  # the registry documents only tools with a schema
        raise ValueError(f"{tool.name} has no schema")
    properties: Mapping[str, Any] = schema.input_schema.get("properties", {})
    growing = bool(schema.growing_filters)
    doc: JSONObject = {
        "tool": tool.name,
        "title": tool.title,
        "kind": tool.kind.value,
        "description": tool.description,
        "arguments": _documented(schema),
        "example": {
            "name": tool.name,
            "arguments": example_arguments(schema.input_schema, NAMES),
        },
        "protocol_arguments": {
            name: ARGUMENTS[name].explained(growing=growing)
            if name in ARGUMENTS  # else a call hook's own (frisian_mcp.hooks)
            else properties[name].get("description", "")
            for name in schema.protocol_arguments
            if name in properties
        },
    }
    every = {**(filters or {}), **schema.filter_parameters}
    if every:
        doc["filters"] = {name: _summary(p) for name, p in sorted(every.items())}
    if schema.record_fields:
        doc["record_fields"] = list(schema.record_fields)
    row = tool.endpoint.row
    if row.bulk and schema.body_argument is None and not schema.path_arguments:
        doc["bulk"] = (
            'Create many at once: {"objects": [{...}, {...}]} as the only argument; '
            "all are saved or none."
        )
    listed = "outputSchema" in (tool.definition() or {})
    if not listed and schema.output_schema is not None:
        doc["output_schema"] = schema.output_schema
    return results.helped(doc)


def _documented(schema: ToolSchema) -> list[JSONObject]:
    """One entry per argument that is not a protocol argument."""
    properties: Mapping[str, Any] = schema.input_schema.get("properties", {})
    required = set(schema.input_schema.get("required", ()))
    places = dict.fromkeys(schema.query_arguments, "query")
    places.update(dict.fromkeys(schema.path_arguments, "path"))
    documented = []
    for name, prop in properties.items():
        if name in schema.protocol_arguments:
            continue
        where = places.get(name, "body")
        entry: JSONObject = {"name": name, "required": name in required, "in": where}
        entry.update(_summary(prop))
        relation = schema.relations.get(name)
        if relation is not None and relation.managed:
            entry["lookup_keys"] = [list(key) for key in relation.lookup_sets]
        documented.append(entry)
    return documented


def _summary(schema: Mapping[str, Any]) -> JSONObject:
    """Type, enum, format, bounds and description of one argument."""
    summary: JSONObject = {}
    types = schema_types(schema)
    if types:
        summary["type"] = types[0] if len(types) == 1 else types
    keys = ("enum", "format", "maxLength", "minLength", "minimum", "maximum")
    for key in (*keys, "default", "description"):
        if key in schema:
            summary[key] = schema[key]
    items = schema.get("items")
    item_types = schema_types(items) if isinstance(items, Mapping) else []
    if item_types:
        summary["items"] = item_types[0] if len(item_types) == 1 else item_types
    return summary
