"""The ToolRegistry: every tool by name, who may see it, and the call path.

:meth:`ToolRegistry.dispatch` takes three downward steps: check the
arguments (:mod:`~frisian_mcp.guards`), run the action
(:mod:`~frisian_mcp.invocation`), shape the result
(:mod:`~frisian_mcp.outcomes`). The registry is built once per process and
rebuilt when a relevant setting changes.
"""

from __future__ import annotations

import difflib
import functools
import itertools
import json
import threading
from collections.abc import Iterator, Mapping
from typing import Any

from frisian_mcp import guards, invocation, manual, notices, outcomes, results
from frisian_mcp.conf import mcp_settings, on_change
from frisian_mcp.contracts import BaseLayout, BaseStore, ContentResult
from frisian_mcp.credentials import served
from frisian_mcp.discovery import assign_names, get_discovery_backend, selected
from frisian_mcp.exceptions import ConfigurationError, Forbidden, ToolInputError
from frisian_mcp.filtersets import live_filters
from frisian_mcp.hooks import layout_class, reachable
from frisian_mcp.rights import Answers
from frisian_mcp.schema import SchemaBuilder
from frisian_mcp.spectacular import excluded
from frisian_mcp.tools import Tool
from frisian_mcp.types import (
    CallContext,
    ErrorCode,
    JSONObject,
    SchemaProblem,
    ToolDefinition,
)
from frisian_mcp.visibility import Visibility, grant_of

__all__ = ["ToolRegistry", "get_registry", "reset_registry"]

#: The warning a call of a deprecated operation's tool gives (ADR 0044).
DEPRECATED = "The tool {} is deprecated: its operation is marked deprecated."


class ToolRegistry:
    """Every tool of the project, by name; no HTTP, no JSON-RPC."""

    def __init__(
        self,
        tools: Mapping[str, Tool],
        clashes: list[str] | None = None,
        builder: SchemaBuilder | None = None,
    ) -> None:
        self._tools = dict(sorted(tools.items()))
        self.clashes = list(clashes or [])
        self.builder = builder or SchemaBuilder()
        self._layouts: dict[str, BaseLayout] = {}
        #: Tools left out because they would end their caller's credentials.
        self.withheld: list[str] = []
        self.answers = Answers()  # each caller's, for listings without a store

    @classmethod
    def from_settings(cls, *, log: bool = True) -> ToolRegistry:
        """Discover the endpoints with the configured backend and name them.

        ``log=False`` leaves logging the problems to the caller (the checks).
        """
        backend = get_discovery_backend()
        # Views left out of the API schema are no tools, and must not
        # shorten the shared path prefix either.
        endpoints = [e for e in backend.get_endpoints() if not excluded(e)]
        prefix = backend.get_path_prefix(endpoints)
        names, clashes = assign_names(
            (backend.get_tool_name(e, prefix), e) for e in endpoints
        )
        builder, lock = SchemaBuilder(log=log), threading.RLock()
        for problem in getattr(backend, "problems", ()):
            builder.record(problem)
        kept = {
            name: endpoint
            for name, endpoint in names.items()
            if selected(name) and reachable(endpoint)  # ADR 0027
        }
        # No tool ends the credentials of its caller (ADR 0031).
        withheld = [
            name for name, endpoint in kept.items() if not served(name, endpoint)
        ]
        tools = {
            name: Tool(name, endpoint, builder, prefix, lock)
            for name, endpoint in kept.items()
            if name not in withheld
        }
        registry = cls(tools, clashes, builder)
        registry.withheld = withheld
        return registry

    def __iter__(self) -> Iterator[Tool]:
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def get(self, name: str) -> Tool | None:
        """The flat tool ``name``, if there is one."""
        return self._tools.get(name)

    @property
    def layout(self) -> str:
        """What ``tools/list`` shows: ``"flat"``, or a registered layout's name.

        ``"auto"`` is ``"dispatcher"`` above ``DISPATCHER_THRESHOLD`` tools
        where an installed app offers that layout (docs/index.md, "Large APIs").
        """
        layout = mcp_settings.TOOL_LAYOUT
        if layout == "auto":
            many = len(self._tools) > mcp_settings.DISPATCHER_THRESHOLD
            return "dispatcher" if many and layout_class("dispatcher") else "flat"
        return layout

    def arranged(self, layout: str | None = None) -> BaseLayout | None:
        """The layout object for ``layout`` (default: the configured one).

        ``None`` for the flat layout. Raises ConfigurationError for a name no
        installed app registered.
        """
        name = layout or self.layout
        if name == "flat":
            return None
        if name not in self._layouts:
            cls = layout_class(name)
            if cls is None:
                raise ConfigurationError(
                    f"FRISIAN_MCP['TOOL_LAYOUT'] is {name!r}, but no installed app "
                    "offers that layout: add the app to INSTALLED_APPS "
                    "(docs/index.md, 'Large APIs')."
                )
            self._layouts[name] = cls(self)
        return self._layouts[name]

    def knows(self, name: str) -> bool:
        """Whether ``name`` is a flat tool or an entry of the layout."""
        arranged = self.arranged()
        return name in self._tools or (
            arranged is not None and name in arranged.names()
        )

    def lists_output_schema(self, name: str) -> bool:
        """Whether the flat tool ``name`` is listed with an outputSchema."""
        tool = self._tools.get(name)
        definition = tool.definition() if tool is not None else None
        return definition is not None and "outputSchema" in definition

    @property
    def problems(self) -> list[SchemaProblem]:
        """What went wrong while the schemas built so far were built."""
        return list(self.builder.problems)

    @functools.cached_property
    def store(self) -> BaseStore | None:
        """Where schemas and visible sets are kept beyond the process, if set."""
        backend = mcp_settings.STORE_BACKEND  # a BaseStore subclass (conf.py)
        return None if backend is None else backend(self)

    def visible(self, context: CallContext | None) -> Visibility:
        """Who-may-see-what for one caller (everything without a context)."""
        return Visibility(self, context)

    def share_schemas(self) -> None:
        """Adopt schemas the store holds, and keep new ones there."""
        if self.store is not None:
            self.store.share_schemas()

    def definitions(
        self, layout: str | None = None, context: CallContext | None = None
    ) -> list[ToolDefinition]:
        """``tools/list`` entries in name order: flat tools or dispatchers."""
        self.share_schemas()
        seen = self.visible(context)
        found: list[ToolDefinition | None]
        arranged = self.arranged(layout)
        if arranged is not None:
            found = [*arranged.definitions(seen)]
        else:
            found = [
                t.for_caller(context).definition()
                for t in self._tools.values()
                if seen(t)
            ]
        self.share_schemas()
        return [d for d in found if d is not None]

    def page(
        self, offset: int, size: int, context: CallContext | None = None
    ) -> tuple[list[ToolDefinition], int | None]:
        """One ``tools/list`` page from position ``offset``, and the next one.

        Positions count the unfiltered list, so a page probes only the tools
        it walks past. ``None`` marks the last page.
        """
        if self.arranged() is not None:
            entries = self.definitions(context=context)
            end = offset + size
            return entries[offset:end], (end if end < len(entries) else None)
        self.share_schemas()
        seen = self.visible(context)
        tools = list(self._tools.values())
        result: list[ToolDefinition] = []
        position = offset
        while position < len(tools) and len(result) < size:
            tool = tools[position]
            position += 1
            definition = tool.for_caller(context).definition() if seen(tool) else None
            if definition is not None:
                result.append(definition)
        rest = tools[position:]
        more = any(seen(t) and t.definition() is not None for t in rest)
        self.share_schemas()
        return result, (position if more else None)

    def dispatch(
        self, name: str, args: Mapping[str, Any], context: CallContext
    ) -> JSONObject:
        """Run one ``tools/call``: its ``structuredContent``, or a ToolError."""
        arranged = self.arranged()
        if arranged and name not in self._tools and name in arranged.names():
            routed = arranged.route(name, args, self.visible(context))
            if not isinstance(routed, tuple):
                return routed
            name, args = routed
        tool = self._tools.get(name)
        # A call before the warm-up adopted the fleet's schemas adopts them
        # first, and keeps what it builds; a built tool costs nothing here.
        fresh = tool is not None and not tool.built
        if fresh:
            self.share_schemas()
        # The caller's own serializer class, where the view picks one (ADR 0031).
        tool = tool.for_caller(context) if tool is not None else None
        schema = tool.schema if tool is not None else None
        if fresh:
            self.share_schemas()
        if tool is None or schema is None:
            raise self.unknown_tool(name, self.visible(context))
        # The filters a filter set adds per instance, for this caller, now.
        live = functools.partial(
            live_filters, tool.endpoint, tool.path_prefix, context.user, context.auth
        )
        self._check_grant(tool, context)
        if schema.deprecated:
            notices.warn("deprecated_tool", DEPRECATED.format(tool.name), [])
        if args.get("help") is True and "help" in schema.protocol_arguments:
            self._must_see(tool, context)
            filters = live({}) if schema.growing_filters else None
            return manual.help_document(tool, filters)
        call = guards.check(tool, args, context.caller, live)
        if call.error and len(call.path_kwargs) < len(tool.endpoint.path_variables):
            # No URL names a row without every path argument: its view has
            # nothing to check first (and would see placeholders).
            self._must_see(tool, context)
            raise call.error
        try:
            answer = invocation.run(tool, call, context)
            if isinstance(answer.data, ContentResult):
                if call.unchecked:  # said beside the file (ADR 0030)
                    text = json.dumps({"unchecked": call.unchecked})
                    answer.data["content"].append({"type": "text", "text": text})
                return answer.data  # a file's content blocks (ADR 0027)
            result = outcomes.result(tool, call, answer)
        except outcomes.ToolRefused:
            # A tool listed to the caller answers as its view did (its
            # permission class may read the URL, which a listing cannot);
            # only a tool hidden from the caller is unknown.
            seen = self.visible(context)
            if seen(tool):
                raise
            raise self.unknown_tool(name, seen) from None
        return results.finish(tool.name, call, result, context.caller)

    def _check_grant(self, tool: Tool, context: CallContext) -> None:
        """The credential's grant refuses a tool; a hidden one is unknown."""
        grant = grant_of(context)
        if grant is not None:
            try:
                grant.check_tool(tool)
            except Forbidden:
                self._must_see(tool, context, scopes=False)  # hidden: no step-up
                raise

    def _must_see(self, tool: Tool, context: CallContext, scopes: bool = True) -> None:
        """Raise ``unknown_tool`` if ``tool`` is hidden (its scopes too, if ``scopes``)."""
        seen = self.visible(context)
        if not (seen(tool) if scopes else seen.permitted(tool)):
            raise self.unknown_tool(tool.name, seen)

    def unknown_tool(self, name: object, seen: Visibility) -> ToolInputError:
        """The error for a tool ``name`` the caller of ``seen`` cannot call."""
        close = (
            difflib.get_close_matches(name, list(self._tools), n=10, cutoff=0.6)
            if isinstance(name, str)
            else []
        )
        # Left-out tools (no schema) are unknown too, never a suggestion; nor
        # is a destructive tool of another resource than the one named.
        resource = name.rpartition("__")[0] if isinstance(name, str) else ""
        tools = (self._tools[n] for n in close)
        usable = (
            t.name
            for t in tools
            if seen(t)
            and t.schema is not None
            and (
                not t.annotations.get("destructiveHint")
                or t.name.rpartition("__")[0] == resource
            )
        )
        suggestions = list(itertools.islice(usable, 3))
        message = "Unknown tool."
        if suggestions:
            message += f" Did you mean: {', '.join(suggestions)}?"
        return ToolInputError(
            message,
            code=ErrorCode.UNKNOWN_TOOL,
            hint="Call tools/list for the available tools.",
            extra={"suggestions": suggestions},
        )


_registry: ToolRegistry | None = None
_registry_lock = threading.Lock()


def get_registry() -> ToolRegistry:
    """The process-wide registry, built on first use."""
    global _registry
    with _registry_lock:
        if _registry is None:
            _registry = ToolRegistry.from_settings()
        return _registry


def reset_registry() -> None:
    """Forget the registry; the next use discovers again."""
    global _registry
    with _registry_lock:
        _registry = None


on_change(
    *("FRISIAN_MCP", "ROOT_URLCONF", "REST_FRAMEWORK", "SPECTACULAR_SETTINGS"),
    "INSTALLED_APPS",
)(reset_registry)
