"""The ToolRegistry: every tool by name, who may see it, and the call path.

:meth:`ToolRegistry.dispatch` takes three downward steps: check the
arguments (:mod:`~frisian_mcp.guards`), run the action
(:mod:`~frisian_mcp.invocation`), shape the result
(:mod:`~frisian_mcp.arguments`). The registry is built once per process and
rebuilt when a relevant setting changes.
"""

from __future__ import annotations

import difflib
import functools
import itertools
import threading
from collections.abc import Iterator, Mapping
from typing import Any

from django.core.signals import setting_changed
from django.dispatch import receiver

from frisian_mcp import arguments, guards, invocation, outcomes
from frisian_mcp.conf import mcp_settings
from frisian_mcp.discovery import assign_names, get_discovery_backend, selected
from frisian_mcp.dispatchers import DispatcherTool, build_dispatchers
from frisian_mcp.exceptions import ConfigurationError, Forbidden, ToolInputError
from frisian_mcp.hooks import ContentResult, reachable
from frisian_mcp.schema import SchemaBuilder
from frisian_mcp.spectacular import excluded, live_filters
from frisian_mcp.tools import Tool
from frisian_mcp.types import (
    CallContext,
    ErrorCode,
    JSONObject,
    SchemaProblem,
    ToolDefinition,
)
from frisian_mcp.visibility import BaseStore, Visibility, grant_of

__all__ = ["ToolRegistry", "get_registry", "reset_registry"]


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
        self.dispatchers = build_dispatchers(self._tools.values())
        self._dispatcher_sets: dict[frozenset[str], dict[str, DispatcherTool]] = {}

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
        tools = {
            name: Tool(name, endpoint, builder, prefix, lock)
            for name, endpoint in names.items()
            if selected(name) and reachable(endpoint)  # ADR 0027
        }
        return cls(tools, clashes, builder)

    def __iter__(self) -> Iterator[Tool]:
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    @property
    def layout(self) -> str:
        """``"flat"`` or ``"dispatcher"``: what ``tools/list`` shows."""
        layout = mcp_settings.TOOL_LAYOUT
        if layout == "auto":
            many = len(self._tools) > mcp_settings.DISPATCHER_THRESHOLD
            return "dispatcher" if many else "flat"
        return layout

    @property
    def problems(self) -> list[SchemaProblem]:
        """What went wrong while the schemas built so far were built."""
        return list(self.builder.problems)

    @functools.cached_property
    def store(self) -> BaseStore | None:
        """Where schemas and visible sets are kept beyond the process, if set."""
        backend = mcp_settings.STORE_BACKEND
        if backend is None:
            return None
        if not (isinstance(backend, type) and issubclass(backend, BaseStore)):
            raise ConfigurationError(
                "FRISIAN_MCP['STORE_BACKEND'] must name a subclass of "
                "frisian_mcp.visibility.BaseStore."
            )
        return backend(self)

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
        if (layout or self.layout) == "dispatcher":
            found = [d.definition() for d in self._dispatchers(seen).values()]
        else:
            found = [t.definition() for t in self._tools.values() if seen(t)]
        self.share_schemas()
        return [d for d in found if d is not None]

    def page(
        self, offset: int, size: int, context: CallContext | None = None
    ) -> tuple[list[ToolDefinition], int | None]:
        """One ``tools/list`` page from position ``offset``, and the next one.

        Positions count the unfiltered list, so a page probes only the tools
        it walks past. ``None`` marks the last page.
        """
        if self.layout == "dispatcher":
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
            definition = tool.definition() if seen(tool) else None
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
        if name not in self._tools and name in self.dispatchers:
            seen = self.visible(context)
            if args.get("help") is True:
                self._build_routes(name, args.get("resource"))
            dispatcher = self._dispatchers(seen).get(name)
            if dispatcher is None:
                raise self._unknown_tool(name, seen)
            target, routed = dispatcher.route(args)
            if target is None:
                return routed
            name, args = target, routed
        tool = self._tools.get(name)
        schema = tool.schema if tool is not None else None
        if tool is None or schema is None:
            raise self._unknown_tool(name, self.visible(context))
        # The filters a filter set adds per instance, for this caller, now.
        live = functools.partial(
            live_filters, tool.endpoint, tool.path_prefix, context.user, context.auth
        )
        self._check_grant(tool, context)
        if args.get("help") is True and "help" in schema.protocol_arguments:
            self._must_see(tool, context)
            return arguments.help_document(
                tool.name,
                tool.title,
                tool.kind,
                tool.description,
                schema,
                filters=live({}) if schema.growing_filters else None,
                output_listed="outputSchema" in (tool.definition() or {}),
            )
        call = guards.check(tool.name, tool.kind, schema, args, context.caller, live)
        if call.error and len(call.path_kwargs) < len(tool.endpoint.path_variables):
            # No URL names a row without every path argument: its view has
            # nothing to check first (and would see placeholders).
            self._must_see(tool, context)
            raise call.error
        try:
            answer = invocation.run(tool, call, context)
            if isinstance(answer.data, ContentResult):
                return answer.data  # a file's content blocks (ADR 0027)
            noun, pk = tool.subject()
            result = outcomes.result(
                tool.name, tool.kind, noun, pk, call, answer, schema.field_names
            )
        except outcomes.ToolRefused:
            # A tool listed to the caller answers as its view did (its
            # permission class may read the URL, which a listing cannot);
            # only a tool hidden from the caller is unknown.
            seen = self.visible(context)
            if seen(tool):
                raise
            raise self._unknown_tool(name, seen) from None
        return arguments.finish(tool.name, tool.kind, call, result, context.caller)

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
            raise self._unknown_tool(tool.name, seen)

    def _build_routes(self, name: str, resource: object) -> None:
        """Build the schemas a dispatcher's help names (ADR 0010).

        The listing does not build every schema, so a dispatcher names a
        left-out tool's action until its schema is built; help builds the
        group's (or the resource's) first, and so never names one.
        """
        routes = self.dispatchers[name].routes
        chosen = routes.get(resource) if isinstance(resource, str) else None
        for actions in [chosen] if chosen else routes.values():
            for tool_name in actions.values():
                self._tools[tool_name].schema  # noqa: B018 - builds it
        self.share_schemas()

    def _dispatchers(self, seen: Visibility) -> dict[str, DispatcherTool]:
        """The dispatchers holding only the routes the caller may use.

        Tools known to be left out (built, without a schema) are dropped too.
        """
        visible = [
            tool for tool in self._tools.values() if not tool.left_out and seen(tool)
        ]
        if len(visible) == len(self._tools):
            return self.dispatchers
        # Callers with the same permissions share dispatchers (and their
        # definitions); a few distinct sets are the usual case.
        key = frozenset(tool.name for tool in visible)
        if key not in self._dispatcher_sets:
            if len(self._dispatcher_sets) >= 64:
                self._dispatcher_sets.clear()
            self._dispatcher_sets[key] = build_dispatchers(visible)
        return self._dispatcher_sets[key]

    def _unknown_tool(self, name: object, seen: Visibility) -> ToolInputError:
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


_RELEVANT = frozenset(
    {"FRISIAN_MCP", "ROOT_URLCONF", "REST_FRAMEWORK", "SPECTACULAR_SETTINGS"}
    | {"INSTALLED_APPS"}
)


@receiver(setting_changed)
def _reset_on_setting_change(*, setting: str, **kwargs: Any) -> None:
    if setting in _RELEVANT:
        reset_registry()
