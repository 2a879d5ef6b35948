"""Tools: one discovered endpoint as an MCP tool, with its metadata.

A :class:`Tool` knows its endpoint, kind, title, annotations and, built on
first use, its :class:`~frisian_mcp.schema.ToolSchema`.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass, field, replace
from typing import Any, cast

from django.db import models

from frisian_mcp.conf import mcp_settings
from frisian_mcp.exceptions import HostError
from frisian_mcp.hooks import call_hooks
from frisian_mcp.schema import SchemaBuilder, ToolSchema
from frisian_mcp.spectacular import caller_serializer, chooses_serializer
from frisian_mcp.types import (
    ACTIONS,
    CallContext,
    Endpoint,
    Kind,
    ToolAnnotations,
    ToolDefinition,
    dotted,
)

__all__ = ["Tool", "lean"]


@dataclass
class Tool:
    """One MCP tool: a DRF action with a name, metadata and a lazy schema.

    ``serializer``: the serializer class a caller gets, for the tool as that
    caller sees it (:meth:`for_caller`).
    """

    name: str
    endpoint: Endpoint
    builder: SchemaBuilder
    path_prefix: str
    lock: threading.RLock = field(default_factory=threading.RLock, repr=False)
    serializer: type[Any] | None = None
    _schema: ToolSchema | None = field(default=None, init=False, repr=False)
    _built: bool = field(default=False, init=False, repr=False)
    _definition: ToolDefinition | None = field(default=None, init=False, repr=False)
    _variants: dict[str, Tool] = field(default_factory=dict, init=False, repr=False)
    _warned: bool = field(default=False, init=False, repr=False)

    @property
    def kind(self) -> Kind:
        """What the tool does: list, read, create, update, delete or action."""
        return self.endpoint.kind

    @property
    def model(self) -> type[models.Model] | None:
        """The model the view serves, when its class declares one."""
        view = self.endpoint.view_class
        model = getattr(getattr(view, "queryset", None), "model", None)
        if model is None:
            serializer = getattr(view, "serializer_class", None)
            model = getattr(getattr(serializer, "Meta", None), "model", None)
        is_model = isinstance(model, type) and issubclass(model, models.Model)
        return model if is_model else None

    @property
    def schema(self) -> ToolSchema | None:
        """The schema; ``None`` when broken, or requiring a file no call
        hook carries."""
        if not self._built:
            with self.lock:
                if not self._built:
                    schema = self.builder.build(
                        self.endpoint, self.path_prefix, self.serializer
                    )
                    for hook in call_hooks():
                        schema = schema and hook.map_schema(self, schema)
                    if schema and not set(schema.required_files) <= schema.declared:
                        schema = None  # no call could send the file (ADR 0027)
                    self._schema, self._built = schema, True
        return self._schema

    @property
    def built(self) -> bool:
        """Whether the schema was built (or adopted) already."""
        return self._built

    @property
    def left_out(self) -> bool:
        """Whether the schema was built and failed: ADR 0010."""
        return self._built and self._schema is None

    def adopt(
        self, schema: ToolSchema | None, serializer: type[Any] | None = None
    ) -> None:
        """Take a schema built elsewhere (another worker, via the cache);
        with ``serializer``, the schema of that class's variant."""
        tool = self if serializer is None else self.variant(serializer)
        with self.lock:
            tool._schema, tool._built, tool._definition = schema, True, None

    def for_caller(self, context: CallContext | None) -> Tool:
        """This tool as the caller of ``context`` gets it (ADR 0031).

        A view whose ``get_serializer_class()`` gives this caller another
        class than the schema was built with is served as that class's
        :meth:`variant`. When the host's code fails, the built schema stays
        (a warning, recorded once).
        """
        view = self.endpoint.view_class
        if context is None or self.serializer or not chooses_serializer(view):
            return self
        schema = self.schema
        if schema is None or schema.serializer is None:  # or built from none
            return self
        try:
            found = caller_serializer(self.endpoint, context.user, context.auth)
        except HostError as exc:
            if not self._warned:  # once per tool: it may fail for every call
                self._warned = True
                self.builder.warn(self.endpoint, exc.error, fatal=False)
            return self
        if not isinstance(found, type) or dotted(found) == schema.serializer:
            return self
        return self.variant(found)

    def variant(self, serializer: type[Any]) -> Tool:
        """This tool with the schema of ``serializer``: one per class."""
        key = dotted(serializer)
        with self.lock:
            if key not in self._variants:
                # Its own schema and definition; the same lock and builder.
                self._variants[key] = replace(self, serializer=serializer)
            return self._variants[key]

    @property
    def variants(self) -> list[Tool]:
        """The variants made so far (:meth:`variant`)."""
        with self.lock:
            return list(self._variants.values())

    def subject(self) -> tuple[str, str]:
        """The model's name for messages and its primary key's name."""
        model = self.model
        if model is None:
            return "object", "id"
        pk = model._meta.pk
        return str(model._meta.verbose_name), pk.name if pk is not None else "id"

    def nouns(self) -> tuple[str, str]:
        """The model's verbose names (singular, plural), else the view's."""
        model = self.model
        if model is None:
            noun = _humanize(self.endpoint.view_class.__name__)
            return noun, noun
        meta = model._meta
        return str(meta.verbose_name), str(meta.verbose_name_plural)

    @property
    def title(self) -> str:
        """A short human-readable title."""
        noun, plural = self.nouns()
        action = ACTIONS.get(self.endpoint.action)
        if action is not None:
            return action.title.format(noun=noun, plural=plural)
        return f"{_humanize(self.endpoint.action).capitalize()} ({noun})"

    @property
    def description(self) -> str:
        """What the tool does and how to call it; never empty."""
        schema = self.schema
        noun, plural = self.nouns() if self.model else ("object", "objects")
        lookup = schema.path_arguments if schema is not None else ("id",)
        action = ACTIONS.get(self.endpoint.action)
        lead = action.lead if action is not None else ""
        if not lookup:  # a route without a lookup ("/me/")
            lead = lead.replace(" found by {lookup}", "").replace(" by {lookup}", "")
        parts = [
            lead.format(noun=noun, plural=plural, lookup=", ".join(lookup))
            if action is not None
            else f"{_humanize(self.endpoint.action).capitalize()} "
            f"({self.endpoint.method} on a {noun})."
        ]
        if schema is not None:
            parts.extend(
                t for t in (schema.summary, schema.description) if t and t not in parts
            )
            note = _UNCHECKED.get(schema.unchecked_to or "")
            if note is not None:
                parts.append(note.format("guessed, " * bool(schema.guessed_body)))
        return "\n\n".join(parts)

    @property
    def annotations(self) -> ToolAnnotations:
        """Behaviour hints (MCP 2025-11-25 ``ToolAnnotations``)."""
        return {"title": self.title, **self.endpoint.row.annotations}

    def definition(self) -> ToolDefinition | None:
        """The ``tools/list`` entry; ``None`` when the tool has no schema.

        The entry is lean (docs/listing.md): what a model needs for a correct
        call. Large filter sets are summarised and a large outputSchema is
        left out; ``help`` gives both in full.
        """
        if self._definition is None:
            schema = self.schema
            if schema is None:
                return None
            seen: set[str] = set()  # object descriptions, listed once per tool
            self._definition = {
                "name": self.name,
                "title": self.title,
                "description": self.description,
                "inputSchema": lean(schema.input_schema, seen),
                "annotations": lean_annotations(self.annotations),
            }
            output = schema.output_schema
            output = lean(output, seen) if output is not None else None
            if output is not None and _size(output) <= mcp_settings.OUTPUT_SCHEMA_LIMIT:
                self._definition["outputSchema"] = output
        return self._definition


#: What a tool whose schema is a guess says of it (ADR 0030).
_UNCHECKED = {
    "body": "Body {}not declared: other arguments are sent in it unchecked and "
    "listed in the result's 'unchecked'.",
    "query": "Query not declared: other arguments are sent as query parameters, "
    "unchecked, and listed in the result's 'unchecked'.",
}


def lean_annotations(hints: ToolAnnotations) -> ToolAnnotations:
    """``hints`` as listed: none a client already infers from the MCP spec.

    The tool's own ``title`` says the title; ``readOnlyHint`` and
    ``idempotentHint`` default to false, and ``idempotentHint`` means
    nothing on a read-only tool. ``destructiveHint`` and ``openWorldHint``
    default to true, so they stay whenever false.
    """
    listed = {k: v for k, v in hints.items() if k != "title"}
    for key in ("readOnlyHint", "idempotentHint"):  # false by default
        if not listed.get(key):
            listed.pop(key, None)
    if listed.get("readOnlyHint"):
        listed.pop("idempotentHint", None)  # meaningless on a read-only tool
    return cast(ToolAnnotations, listed)


def lean(schema: dict[str, Any], seen: set[str] | None = None) -> dict[str, Any]:
    """``schema`` as listed: no restated choices, int64 bounds or pk texts.

    An object's description (a serializer's docstring) is listed once per
    tool (``seen``), and never on a lookup object. A ``filters`` object with
    more than ``FILTER_LIST_LIMIT`` keys becomes an open object naming them;
    the arguments are still checked in full.
    """
    listed: dict[str, Any] = _trimmed(schema, set() if seen is None else seen)
    properties = listed.get("properties")
    if not isinstance(properties, dict):
        return listed
    filters = properties.get("filters")
    keys = list((filters or {}).get("properties", ()))
    limit = mcp_settings.FILTER_LIST_LIMIT
    if len(keys) > limit:
        named = ", ".join(keys[:limit])
        properties["filters"] = {
            "type": "object",
            "description": f"{len(keys)} filter keys, among them {named}. "
            "Call with help: true for all of them, their types and choices.",
        }
    return listed


#: drf-spectacular's description of a choice field, restating its enum.
_CHOICES_TEXT = re.compile(r"^\* `")
_INT64 = (-(2**63), 2**63 - 1)


#: DRF's description of an integer primary key, which its type already says.
_PK_TEXT = re.compile(r"^A unique integer value identifying this [^.]*\.$")
#: DRF's stock texts of its search and ordering parameters, which their
#: names already say (SearchFilter / OrderingFilter ``*_description``).
_STOCK_TEXTS = frozenset(
    {"A search term.", "Which field to use when ordering the results."}
)
_NUMERIC = {"type": "string", "pattern": "^-?[0-9]+$"}
_OBJECTS = {"object", "null", None}


def _trimmed(node: Any, seen: set[str]) -> Any:
    if isinstance(node, list):
        return [_trimmed(item, seen) for item in node]
    if not isinstance(node, dict):
        return node
    forms = node.get("anyOf")
    if isinstance(forms, list) and any(map(_scalar, forms)):
        # An id or an object: the object is a lookup, described by the
        # argument; its own text is the nested serializer's docstring.
        node = {**node, "anyOf": [_undescribed(f) for f in forms]}
    out = {k: _trimmed(v, seen) for k, v in node.items()}
    text = out.get("description")
    if isinstance(text, str) and (
        ("enum" in out and _CHOICES_TEXT.match(text))
        or _PK_TEXT.match(text)
        or text in _STOCK_TEXTS
        or ("properties" in out and text in seen)
    ):
        del out["description"]
    elif isinstance(text, str) and "properties" in out:
        seen.add(text)
    if (out.get("minimum"), out.get("maximum")) == _INT64:
        del out["minimum"], out["maximum"]
    branches = out.get("anyOf")
    if isinstance(branches, list) and branches[:2] == [{"type": "integer"}, _NUMERIC]:
        # A reference's id or numeric string, said once (same meaning); a
        # native field's any string includes the numeric one.
        rest = branches[2:]
        kinds = ["integer", "string"] + (["null"] if {"type": "null"} in rest else [])
        first: dict[str, Any] = {"type": kinds}
        if {"type": "string"} not in rest:
            first["pattern"] = _NUMERIC["pattern"]
        dropped = ({"type": "null"}, {"type": "string"})
        out["anyOf"] = [first] + [b for b in rest if b not in dropped]
    return out


def _scalar(form: Any) -> bool:
    """Whether an ``anyOf`` form is a plain value (an id), not an object."""
    kind = form.get("type") if isinstance(form, dict) else None
    return not (set(kind) if isinstance(kind, list) else {kind}) <= _OBJECTS


def _undescribed(form: Any) -> Any:
    if not isinstance(form, dict) or "properties" not in form:
        return form
    return {k: v for k, v in form.items() if k != "description"}


def _size(schema: Any) -> int:
    return len(json.dumps(schema, separators=(",", ":")))


def _humanize(name: str) -> str:
    name = re.sub(r"(?<!^)(?=[A-Z])", " ", name).replace("_", " ").replace("-", " ")
    return re.sub(r"\s+", " ", name).strip().lower()
