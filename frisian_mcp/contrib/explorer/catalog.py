"""What one person may explore: the tools ``tools/list`` gives them, grouped.

The list needs names, titles and annotations only, none of which builds a
schema, so a page of a thousand tools builds none; a tool's schema is built
when its details are opened (:func:`detail`), through a ``help`` call that
the registry checks as it checks every ``tools/call``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from frisian_mcp.contrib.explorer.forms import FormField, form_fields
from frisian_mcp.exceptions import ToolError
from frisian_mcp.registry import ToolRegistry
from frisian_mcp.tools import Tool
from frisian_mcp.types import CallContext

__all__ = ["DESCRIBED_UP_TO", "Detail", "Entry", "Group", "detail", "entries", "groups"]

#: Up to this many tools the list shows every description (building their
#: schemas, as the first ``tools/list`` page does); above it, those built
#: already, and each of the others once its details are opened.
DESCRIBED_UP_TO = 100
#: Annotation hints shown as badges, in this order.
BADGES = (
    ("readOnlyHint", "read-only"),
    ("destructiveHint", "destructive"),
    ("idempotentHint", "idempotent"),
)


@dataclass(frozen=True, slots=True)
class Entry:
    """One tool in the list: what it is called, shows and is called as.

    ``call`` is the name ``tools/list`` gives: the tool's own, or in the
    dispatcher layout its dispatcher's, with ``route`` naming the resource
    and action.
    """

    name: str
    title: str
    description: str
    badges: tuple[str, ...]
    group: str
    call: str
    route: dict[str, str] = field(default_factory=dict)

    @property
    def summary(self) -> str:
        """The description's first paragraph."""
        return self.description.split("\n\n", 1)[0]

    @property
    def search_text(self) -> str:
        """What the search box matches, lower case."""
        return f"{self.name} {self.title} {self.description}".lower()

    @property
    def destructive(self) -> bool:
        """Whether the tool may change or delete data it did not create."""
        return "destructive" in self.badges


@dataclass(frozen=True)
class Group:
    """The tools of one resource (or one dispatcher's resource)."""

    name: str
    entries: list[Entry]


@dataclass
class Detail:
    """What an opened tool shows beyond its list entry."""

    entry: Entry
    fields: list[FormField]
    validates: bool
    paged: bool
    server_confirms: bool
    example: str
    arguments: str
    input_schema: str
    output_schema: str
    notes: list[str]


def entries(registry: ToolRegistry, context: CallContext) -> list[Entry]:
    """Every tool the caller's ``tools/list`` gives, in name order."""
    registry.share_schemas()
    seen = registry.visible(context)
    tools = [tool for tool in registry if not tool.left_out and seen(tool)]
    if len(tools) <= DESCRIBED_UP_TO:
        tools = [tool for tool in tools if tool.definition() is not None]
        registry.share_schemas()
    routes = _routes(registry)
    return [_entry(tool, routes.get(tool.name)) for tool in tools]


def groups(found: list[Entry], query: str = "") -> list[Group]:
    """``found`` grouped by resource, keeping those that match ``query``."""
    words = query.lower().split()
    by_group: dict[str, list[Entry]] = {}
    for entry in found:
        if all(word in entry.search_text for word in words):
            by_group.setdefault(entry.group, []).append(entry)
    return [Group(name, by_group[name]) for name in sorted(by_group)]


def detail(registry: ToolRegistry, context: CallContext, name: str) -> Detail | None:
    """The opened tool, or ``None`` when the caller may not see it."""
    tool = next((t for t in registry if t.name == name), None)
    if tool is None or not registry.visible(context)(tool):
        return None
    tool = tool.for_caller(context)  # the person's own schema (ADR 0031)
    schema = tool.schema
    if schema is None or "help" not in schema.protocol_arguments:
        return None
    try:
        doc: dict[str, Any] = registry.dispatch(name, {"help": True}, context)["help"]
    except ToolError:
        return None
    entry = _entry(tool, _routes(registry).get(name))
    example = {**entry.route, **doc["example"]["arguments"]}
    properties = schema.input_schema.get("properties", {})
    call = {"name": entry.call, "arguments": example}
    output = schema.output_schema
    return Detail(
        entry=entry,
        fields=form_fields(schema.input_schema),
        validates="mode" in properties,
        paged="continuation_token" in properties,
        server_confirms="confirm" in properties,
        example=_pretty(
            {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call}
        ),
        arguments=_pretty(doc["example"]["arguments"]),
        input_schema=_pretty(schema.input_schema),
        output_schema=_pretty(output) if output is not None else "",
        notes=[str(doc["bulk"])] if "bulk" in doc else [],
    )


def _entry(tool: Tool, route: tuple[str, str, str] | None) -> Entry:
    hints = tool.annotations
    badges = tuple(label for key, label in BADGES if hints.get(key))
    description = tool.description if tool.built else ""
    if route is None:
        group = tool.name.rpartition("__")[0] or tool.name
        return Entry(tool.name, tool.title, description, badges, group, tool.name)
    dispatcher, resource, action = route
    where, group = {"resource": resource, "action": action}, f"{dispatcher}: {resource}"
    return Entry(tool.name, tool.title, description, badges, group, dispatcher, where)


def _routes(registry: ToolRegistry) -> dict[str, tuple[str, str, str]]:
    """Tool name -> (dispatcher, resource, action) in the dispatcher layout."""
    # The dispatcher layout's own table (contrib/dispatchers), if it is on.
    dispatchers = getattr(registry.arranged(), "dispatchers", None) or {}
    return {
        tool: (dispatcher.name, resource, action)
        for dispatcher in dispatchers.values()
        for resource, actions in dispatcher.routes.items()
        for action, tool in actions.items()
    }


def _pretty(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)
