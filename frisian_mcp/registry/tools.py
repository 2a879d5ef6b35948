"""Tools: one discovered endpoint as an MCP tool, with its name and metadata.

A :class:`Tool` knows its endpoint, kind, title, annotations and (lazily)
its :class:`~frisian_mcp.schema.ToolSchema`. Names are made valid and unique
here: ``^[A-Za-z0-9_-]{1,64}$`` (the strictest rule common clients apply),
long names shortened with a stable hash, clashes separated deterministically.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field

from django.db import models

from frisian_mcp import arguments
from frisian_mcp.discovery import Endpoint
from frisian_mcp.schema import SchemaBuilder, ToolSchema
from frisian_mcp.types import ToolAnnotations, ToolDefinition

__all__ = ["TOOL_NAME_PATTERN", "Tool", "assign_names", "kind_of", "valid_name"]

#: Tool names every common client accepts.
TOOL_NAME_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_MAX_NAME = 64
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")

_KINDS = {
    "list": arguments.LIST,
    "retrieve": arguments.READ,
    "create": arguments.CREATE,
    "update": arguments.UPDATE,
    "partial_update": arguments.UPDATE,
    "destroy": arguments.DELETE,
}


def kind_of(endpoint: Endpoint) -> str:
    """The tool kind (``arguments.LIST``, ``CREATE``...) of an endpoint."""
    return _KINDS.get(endpoint.action, arguments.ACTION)


@dataclass
class Tool:
    """One MCP tool: a DRF action with a name, metadata and a lazy schema."""

    name: str
    endpoint: Endpoint
    builder: SchemaBuilder
    path_prefix: str
    lock: threading.RLock
    _schema: ToolSchema | None = field(default=None, init=False, repr=False)
    _built: bool = field(default=False, init=False, repr=False)
    _definition: ToolDefinition | None = field(default=None, init=False, repr=False)

    @property
    def kind(self) -> str:
        """What the tool does: list, read, create, update, delete or action."""
        return kind_of(self.endpoint)

    @property
    def model(self) -> type[models.Model] | None:
        """The model the view serves, when its class declares one."""
        view = self.endpoint.view_class
        model = getattr(getattr(view, "queryset", None), "model", None)
        if model is None:
            serializer = getattr(view, "serializer_class", None)
            model = getattr(getattr(serializer, "Meta", None), "model", None)
        return (
            model
            if isinstance(model, type) and issubclass(model, models.Model)
            else None
        )

    @property
    def schema(self) -> ToolSchema | None:
        """The tool's schema; ``None`` when ``@extend_schema(exclude=True)``."""
        if not self._built:
            with self.lock:
                if not self._built:
                    self._schema = self.builder.build(
                        self.endpoint, self.kind, self.path_prefix
                    )
                    self._built = True
        return self._schema

    def require_schema(self) -> ToolSchema:
        """The schema of a tool known not to be excluded."""
        schema = self.schema
        if schema is None:
            raise LookupError(f"Tool {self.name} is excluded from the schema.")
        return schema

    @property
    def title(self) -> str:
        """A short human-readable title from the model's verbose name."""
        model = self.model
        singular = (
            str(model._meta.verbose_name)
            if model
            else _humanize(self.endpoint.view_class.__name__)
        )
        plural = str(model._meta.verbose_name_plural) if model else singular
        action = self.endpoint.action
        titles = {
            "list": f"List {plural}",
            "retrieve": f"Get {singular}",
            "create": f"Create {singular}",
            "update": f"Update {singular}",
            "partial_update": f"Partially update {singular}",
            "destroy": f"Delete {singular}",
        }
        return titles.get(action) or f"{_humanize(action).capitalize()} ({singular})"

    @property
    def description(self) -> str:
        """What the tool does and how to call it; never empty."""
        schema = self.schema
        lead = self._lead_sentence(schema)
        parts = [lead]
        if schema is not None:
            for text in (schema.summary, schema.description):
                if text and text not in parts:
                    parts.append(text)
        return "\n\n".join(parts)

    @property
    def annotations(self) -> ToolAnnotations:
        """Behaviour hints (MCP 2025-11-25 ``ToolAnnotations``)."""
        kind = self.kind
        read_only = kind in (arguments.LIST, arguments.READ) or (
            kind == arguments.ACTION and self.endpoint.method == "GET"
        )
        hints: ToolAnnotations = {"title": self.title, "readOnlyHint": read_only}
        if kind == arguments.READ:
            hints["idempotentHint"] = True
        if not read_only:
            hints["destructiveHint"] = kind != arguments.CREATE
            hints["idempotentHint"] = kind in (arguments.UPDATE, arguments.DELETE)
        hints["openWorldHint"] = False
        return hints

    def definition(self) -> ToolDefinition | None:
        """The ``tools/list`` entry; ``None`` when the tool is excluded."""
        if self._definition is None:
            schema = self.schema
            if schema is None:
                return None
            self._definition = {
                "name": self.name,
                "title": self.title,
                "description": self.description,
                "inputSchema": schema.input_schema,
                "annotations": self.annotations,
            }
            if schema.output_schema is not None:
                self._definition["outputSchema"] = schema.output_schema
        return self._definition

    def _lead_sentence(self, schema: ToolSchema | None) -> str:
        model = self.model
        noun = str(model._meta.verbose_name) if model else "object"
        plural = str(model._meta.verbose_name_plural) if model else "objects"
        lookup = (
            ", ".join(schema.path_arguments)
            if schema and schema.path_arguments
            else "id"
        )
        sentences = {
            "list": (
                f"List {plural}, one page at a time (page, page_size); "
                "narrow the rows with filters."
            ),
            "retrieve": f"Get one {noun} by {lookup}.",
            "create": f"Create a {noun}. Send its fields flat, as top-level arguments.",
            "update": (
                f"Replace a {noun} found by {lookup}: send every required field, "
                "flat, as top-level arguments."
            ),
            "partial_update": (
                f"Change some fields of a {noun} found by {lookup}; fields you "
                "leave out stay as they are."
            ),
            "destroy": f"Delete a {noun} found by {lookup}.",
        }
        return sentences.get(self.endpoint.action) or (
            f"{_humanize(self.endpoint.action).capitalize()} ({self.endpoint.method} "
            f"on a {noun})."
        )


def assign_names(
    proposals: Iterable[tuple[str, Endpoint]],
) -> tuple[dict[str, Endpoint], list[str]]:
    """Make proposed names valid and unique; return them and the clashes.

    Each proposal is made of safe characters and shortened to 64 with a
    stable hash. Proposals that clash get the HTTP method appended, then an
    index in endpoint order. The second value lists the proposals that had to
    be renamed, for the system check.
    """
    groups: dict[str, list[Endpoint]] = {}
    for proposal, endpoint in proposals:
        groups.setdefault(valid_name(proposal), []).append(endpoint)
    names: dict[str, Endpoint] = {}
    clashes: list[str] = []
    for proposal in sorted(groups):
        endpoints = sorted(groups[proposal], key=lambda e: e.sort_key)
        if len(endpoints) == 1:
            names[proposal] = endpoints[0]
            continue
        clashes.append(proposal)
        for index, endpoint in enumerate(endpoints):
            candidate = valid_name(f"{proposal}_{endpoint.method.lower()}")
            if (
                candidate in names
                or sum(e.method == endpoint.method for e in endpoints) > 1
            ):
                candidate = valid_name(f"{proposal}_{index + 1}")
            names[candidate] = endpoint
    return names, clashes


def valid_name(name: str) -> str:
    """``name`` made of safe characters and at most 64 long (stable hash)."""
    name = _UNSAFE.sub("_", name).strip("_") or "tool"
    if len(name) <= _MAX_NAME:
        return name
    digest = hashlib.sha256(name.encode()).hexdigest()[:8]
    _, _, action = name.rpartition("__")
    tail = f"_{digest}__{action}" if action and len(action) < 24 else f"_{digest}"
    return name[: _MAX_NAME - len(tail)].rstrip("_") + tail


def _humanize(name: str) -> str:
    name = re.sub(r"(?<!^)(?=[A-Z])", " ", name).replace("_", " ").replace("-", " ")
    return re.sub(r"\s+", " ", name).strip().lower()
