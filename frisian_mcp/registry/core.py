"""The ToolRegistry: build the tools once, look them up, dispatch calls.

``dispatch`` is the one path every ``tools/call`` takes. Its steps run in a
fixed order, each a method, so the pipeline reads top to bottom:

1. look the tool up (unknown or hidden names get suggestions);
2. validate the arguments against the inputSchema (every problem reported);
3. strip the protocol arguments (``frisian_mcp.arguments``);
4. split what is left into path, query and body, and invoke the action;
5. map the view's answer to a structured result or a typed error.
"""

from __future__ import annotations

import difflib
import fnmatch
import logging
import re
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from django.core.signals import setting_changed
from django.dispatch import receiver
from jsonschema import Draft202012Validator

from frisian_mcp import arguments as protocol
from frisian_mcp.conf import mcp_settings
from frisian_mcp.discovery import get_discovery_backend
from frisian_mcp.exceptions import ToolExecutionError, ToolInputError
from frisian_mcp.invocation import (
    CallContext,
    EndpointMismatch,
    InvocationResult,
    PermissionProbe,
    PreparedCall,
    ViewHandle,
    invoke,
    invoke_bulk,
    validate_write,
)
from frisian_mcp.registry import guards
from frisian_mcp.registry.dispatchers import DispatcherTool, build_dispatchers
from frisian_mcp.registry.protocol import (
    help_document,
    issue_token,
    project,
    read_token,
)
from frisian_mcp.registry.references import has_lookup_objects, resolve_references
from frisian_mcp.registry.results import (
    bulk_item_error,
    bulk_result,
    raise_for_status,
    reference_problems,
    structured_result,
    validation_report,
)
from frisian_mcp.registry.tools import Tool, assign_names
from frisian_mcp.registry.validation import (
    FieldError,
    validate_arguments,
    validator_for,
)
from frisian_mcp.schema import SchemaBuilder, ToolSchema
from frisian_mcp.types import ErrorCode, JSONObject, ToolDefinition

__all__ = ["ToolRegistry", "get_registry", "reset_registry"]

logger = logging.getLogger("frisian_mcp")

#: How many distinct per-caller dispatcher sets a registry keeps.
_DISPATCHER_CACHE_SIZE = 64


@dataclass(frozen=True)
class ListState:
    """Where a list call is: its filters, page, page size and projection."""

    filters: dict[str, Any]
    page: int
    page_size: int
    filter_keys: list[str] | None = None


class ToolRegistry:
    """Every tool of the project, by name, and the call pipeline.

    Plain Python: no HTTP, no JSON-RPC. Build it with :meth:`from_settings`
    (what :func:`get_registry` caches per process) or from an explicit list of
    tools in tests.
    """

    def __init__(
        self, tools: Mapping[str, Tool], clashes: list[str] | None = None
    ) -> None:
        self._tools = dict(sorted(tools.items()))
        self.clashes = list(clashes or [])
        self._validators: dict[str, Draft202012Validator] = {}
        self.dispatchers = build_dispatchers(self._tools.values())
        self._dispatcher_cache: dict[frozenset[str], dict[str, DispatcherTool]] = {}

    @property
    def layout(self) -> str:
        """``"flat"`` or ``"dispatcher"``: what ``tools/list`` shows."""
        layout = str(mcp_settings.TOOL_LAYOUT)
        if layout == "auto":
            threshold = int(mcp_settings.DISPATCHER_THRESHOLD)
            return "dispatcher" if len(self._tools) > threshold else "flat"
        return layout

    @classmethod
    def from_settings(cls) -> ToolRegistry:
        """Discover the endpoints with the configured backend and name them."""
        backend = get_discovery_backend()
        endpoints = backend.get_endpoints()
        prefix = backend.get_path_prefix(endpoints)
        names, clashes = assign_names(
            (backend.get_tool_name(e, prefix), e) for e in endpoints
        )
        names = {name: e for name, e in names.items() if _selected(name)}
        builder = SchemaBuilder()
        lock = threading.RLock()
        tools = {
            name: Tool(
                name=name,
                endpoint=endpoint,
                builder=builder,
                path_prefix=prefix,
                lock=lock,
            )
            for name, endpoint in names.items()
        }
        return cls(tools, clashes)

    def __iter__(self) -> Iterator[Tool]:
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    @cached_property
    def names(self) -> tuple[str, ...]:
        """Every tool name, sorted."""
        return tuple(self._tools)

    def get(self, name: str, context: CallContext | None = None) -> Tool:
        """Return the tool called ``name`` or raise an unknown-tool error.

        With a ``context``, a tool the caller may not use is unknown too:
        its existence is not the caller's business (DESIGN.md §9).
        """
        tool = self._tools.get(name)
        if tool is None or tool.schema is None or not self.visible(tool, context):
            raise self._unknown_tool(name, context)
        return tool

    def visible(self, tool: Tool, context: CallContext | None) -> bool:
        """Whether ``context``'s caller passes the tool's permission classes."""
        if context is None or not mcp_settings.FILTER_TOOLS_BY_PERMISSION:
            return True
        return _probe(context).allows(tool.endpoint)

    def visible_tools(self, context: CallContext | None) -> list[Tool]:
        """The tools ``context``'s caller may use, in name order."""
        return [tool for tool in self._tools.values() if self.visible(tool, context)]

    def dispatchers_for(self, context: CallContext | None) -> dict[str, DispatcherTool]:
        """The dispatchers, holding only routes the caller may use."""
        if context is None or not mcp_settings.FILTER_TOOLS_BY_PERMISSION:
            return self.dispatchers
        visible = self.visible_tools(context)
        if len(visible) == len(self._tools):
            return self.dispatchers
        # Callers with the same permissions share their dispatchers (and the
        # definitions those cache); a few distinct sets are the usual case.
        key = frozenset(tool.name for tool in visible)
        cached = self._dispatcher_cache.get(key)
        if cached is None:
            if len(self._dispatcher_cache) >= _DISPATCHER_CACHE_SIZE:
                self._dispatcher_cache.clear()
            cached = self._dispatcher_cache[key] = build_dispatchers(visible)
        return cached

    def _visible_dispatcher(
        self, name: str, context: CallContext
    ) -> DispatcherTool | None:
        """The dispatcher ``name`` with the caller's routes; probes only its tools."""
        full = self.dispatchers[name]
        if not mcp_settings.FILTER_TOOLS_BY_PERMISSION:
            return full
        names = [n for routes in full.routes.values() for n in routes.values()]
        visible = [
            self._tools[n] for n in names if self.visible(self._tools[n], context)
        ]
        if len(visible) == len(names):
            return full
        return build_dispatchers(visible).get(name)

    def definitions(
        self, layout: str | None = None, context: CallContext | None = None
    ) -> list[ToolDefinition]:
        """``tools/list`` entries, in name order: flat tools or dispatchers.

        ``layout`` (``"flat"`` or ``"dispatcher"``) overrides :attr:`layout`;
        with a ``context``, only what the caller may use is listed.
        """
        if (layout or self.layout) == "dispatcher":
            return [d.definition() for d in self.dispatchers_for(context).values()]
        result = []
        for tool in self.visible_tools(context):
            definition = tool.definition()
            if definition is not None:
                result.append(definition)
        return result

    def page(
        self, offset: int, size: int, context: CallContext | None = None
    ) -> tuple[list[ToolDefinition], int | None]:
        """One ``tools/list`` page from position ``offset``; and the next position.

        Positions count entries of the unfiltered list, so a page probes the
        caller's permissions only for the tools it walks past, not for every
        tool of a large API. The next position is ``None`` on the last page.
        Dispatchers are listed whole (their enums need every probe anyway).
        """
        if self.layout == "dispatcher":
            entries = self.definitions(context=context)
            end = offset + size
            return entries[offset:end], (end if end < len(entries) else None)
        tools = list(self._tools.values())
        result: list[ToolDefinition] = []
        position = offset
        while position < len(tools) and len(result) < size:
            tool = tools[position]
            position += 1
            if self.visible(tool, context):
                definition = tool.definition()
                if definition is not None:
                    result.append(definition)
        if not any(
            self.visible(tool, context) and tool.definition() is not None
            for tool in tools[position:]
        ):
            return result, None
        return result, position

    # -- the call pipeline --------------------------------------------------

    def dispatch(
        self, name: str, arguments: Mapping[str, Any] | None, context: CallContext
    ) -> JSONObject:
        """Run one ``tools/call``; return its structured result.

        The steps, in order: JSON-string coercion; ``help`` (answers and
        stops); schema validation (every problem collected); stripping the
        protocol arguments; bulk-body detection; the nested-wrapper and
        unknown-key guards (reported with the schema problems); the
        empty-write guard; foreign-key normalization; the call itself, or
        only its validation under ``mode: "validate"``. Raises
        :class:`ToolInputError` for any argument problem and
        :class:`~frisian_mcp.exceptions.ToolExecutionError` when the action
        ran and failed.
        """
        dispatcher = None
        if name not in self._tools and name in self.dispatchers:
            dispatcher = self._visible_dispatcher(name, context)
            if dispatcher is None:
                raise self._unknown_tool(name, context)
        if dispatcher is not None:
            return dispatcher.dispatch(
                arguments or {}, lambda sub, args: self.dispatch(sub, args, context)
            )
        tool = self.get(name, context)
        schema = tool.require_schema()
        args = guards.coerce_json_strings(schema.input_schema, arguments or {})
        if args.get("help") is True and "help" in schema.protocol_arguments:
            return help_document(tool)
        try:
            return self._dispatch_tool(tool, schema, args, context)
        except ToolInputError as exc:
            # DRF checks permissions (and finds the object: 404, object
            # permissions) before it looks at the body; a caller who may not
            # use the tool or touch the row learns that first, as over REST.
            self._access_first(tool, schema, args, context)
            raise exc

    def _access_first(
        self,
        tool: Tool,
        schema: ToolSchema,
        args: Mapping[str, Any],
        context: CallContext,
    ) -> None:
        try:
            self.check_access(tool, schema, args, context)
        except (ToolExecutionError, ToolInputError):
            raise
        except Exception:
            # The argument error stands; a view that cannot even be set up
            # for the row will fail the same way once the call is fixed.
            logger.debug(
                "frisian_mcp: access check of %s failed", tool.name, exc_info=True
            )

    def _dispatch_tool(
        self,
        tool: Tool,
        schema: ToolSchema,
        args: dict[str, Any],
        context: CallContext,
    ) -> JSONObject:
        problems = self.validate(tool, schema, args)
        options = self.strip_protocol_arguments(schema, args)
        validate_only = options.get("mode") == "validate"
        items = guards.detect_bulk_body(tool.name, tool.kind, schema, args)
        if items is not None:
            # The items are checked one by one; at the top level only the
            # protocol arguments are.
            protocol_problems = [p for p in problems if _root(p["field"]) in options]
            guards.check_undeclared(tool.name, schema, {}, protocol_problems)
            return self.dispatch_bulk(
                tool, schema, items, context, validate_only=validate_only
            )
        guards.check_undeclared(tool.name, schema, args, problems)
        listing = self.list_state(tool, options, context)
        call = self.prepare_call(schema, args, listing)
        sources = {p: a for a, p in schema.query_arguments.items()}
        sources.update((key, f"filters.{key}") for key in listing.filters)
        guards.check_query_length(
            tool.name, call.query, sources, int(mcp_settings.MAX_QUERY_LENGTH)
        )
        if tool.kind == protocol.CREATE:
            guards.check_not_empty(tool.name, schema, call.body)
        if isinstance(call.body, dict) and has_lookup_objects(schema, [call.body]):
            self.resolve_lookups(tool, schema, [call.body], context, call)
        if validate_only:
            result = validate_write(tool.endpoint, call, context)
            raise_for_status(tool, result, call.body)
            return validation_report(tool, result.data)
        result = invoke(tool.endpoint, call, context)
        raise_for_status(tool, result, call.body)
        return self.shape_result(tool, result, listing, context)

    def list_state(
        self, tool: Tool, options: Mapping[str, Any], context: CallContext
    ) -> ListState:
        """Filters, page, page size and projection, from a token or the call."""
        state = ListState(
            filters=dict(options.get("filters") or {}),
            page=int(options.get("page") or 1),
            page_size=int(options.get("page_size") or mcp_settings.PAGE_SIZE),
            filter_keys=options.get("filter_keys"),
        )
        token = options.get("continuation_token")
        if token is None:
            return state
        if "page" in options:
            raise ToolInputError(
                "Send either page or continuation_token, not both: the token already "
                "names the next page.",
                error_code=ErrorCode.INVALID_ARGUMENT,
                tool=tool.name,
                field="page",
            )
        payload = read_token(token, tool.name, context)
        for option, key in (("filters", "f"), ("page_size", "s"), ("filter_keys", "k")):
            if option in options and options[option] != payload.get(key):
                raise ToolInputError(
                    f"The continuation_token was issued for other {option}: send it "
                    f"without {option}, or start again from page 1.",
                    error_code=ErrorCode.INVALID_TOKEN,
                    tool=tool.name,
                    field="continuation_token",
                )
        return ListState(
            filters=dict(payload.get("f") or {}),
            page=int(payload.get("p") or 1),
            page_size=int(payload.get("s") or mcp_settings.PAGE_SIZE),
            filter_keys=payload.get("k"),
        )

    def shape_result(
        self,
        tool: Tool,
        result: InvocationResult,
        listing: ListState,
        context: CallContext,
    ) -> JSONObject:
        """The structured result: projected, with a continuation token."""
        if tool.kind == protocol.DELETE and result.data is None:
            return {"deleted": True}
        structured = structured_result(result.data)
        keys = listing.filter_keys
        rows = structured.get("results") if tool.kind == protocol.LIST else None
        if isinstance(rows, list):
            if keys:
                structured["results"] = [project(row, keys) for row in rows]
            if structured.get("has_more") is True:
                structured["next_token"] = issue_token(
                    tool.name,
                    context,
                    filters=listing.filters,
                    filter_keys=keys,
                    page=int(structured.get("page", listing.page)) + 1,
                    page_size=int(structured.get("page_size", listing.page_size)),
                )
        elif keys:
            structured = project(structured, keys)
        return structured

    def dispatch_bulk(
        self,
        tool: Tool,
        schema: ToolSchema,
        items: list[dict[str, Any]],
        context: CallContext,
        *,
        validate_only: bool = False,
    ) -> JSONObject:
        """Guard every item like a single create, then save all or none."""
        if schema.path_arguments:
            raise ToolInputError(
                f"{tool.name} takes path arguments ({', '.join(schema.path_arguments)}), "
                "so it cannot take a bulk body; send one call per object.",
                error_code=ErrorCode.INVALID_BULK_BODY,
                tool=tool.name,
            )
        failures: list[tuple[int, ToolInputError]] = []
        bodies: list[dict[str, Any]] = []
        for index, raw in enumerate(items):
            item = guards.coerce_json_strings(schema.input_schema, raw)
            try:
                problems = self.validate(tool, schema, item)
                guards.check_undeclared(tool.name, schema, item, problems)
                body = {k: item[k] for k in schema.body_fields if k in item}
                guards.check_not_empty(tool.name, schema, body)
            except ToolInputError as exc:
                failures.append((index, exc))
                continue
            bodies.append(body)
        if failures:
            raise bulk_item_error(tool.name, len(items), failures)
        if has_lookup_objects(schema, bodies):
            self.resolve_lookups(
                tool, schema, bodies, context, PreparedCall(), indexed=True
            )
        result = invoke_bulk(
            tool.endpoint, bodies, context, validate_only=validate_only
        )
        raise_for_status(tool, result, bodies, bulk=True)
        if validate_only:
            return {
                "validation": {"valid": True, "action": "create", "count": len(bodies)}
            }
        return bulk_result(tool, result.data)

    def validate(
        self, tool: Tool, schema: ToolSchema, args: Mapping[str, Any]
    ) -> list[FieldError]:
        """Every schema problem of ``args`` (undeclared keys excepted)."""
        validator = self._validators.get(tool.name)
        if validator is None:
            validator = self._validators[tool.name] = validator_for(schema.input_schema)
        return reference_problems(schema, validate_arguments(validator, args))

    def strip_protocol_arguments(
        self, schema: ToolSchema, args: dict[str, Any]
    ) -> dict[str, Any]:
        """Remove the protocol arguments from ``args`` and return them."""
        return {
            name: args.pop(name) for name in schema.protocol_arguments if name in args
        }

    def prepare_call(
        self, schema: ToolSchema, args: Mapping[str, Any], listing: ListState
    ) -> PreparedCall:
        """Split the arguments into URL variables, query string and body."""
        path_kwargs = {
            kwarg: str(args[name])
            for name, kwarg in schema.path_arguments.items()
            if name in args
        }
        query: list[tuple[str, str]] = []
        for name, parameter in schema.query_arguments.items():
            if name in args:
                query.extend(_query_pairs(parameter, args[name], schema))
        for key, value in listing.filters.items():
            query.extend(_query_pairs(key, value, schema))
        if schema.body_argument is not None:
            body: Any = args.get(schema.body_argument)
        elif schema.body_fields:
            body = {name: args[name] for name in schema.body_fields if name in args}
        else:
            body = None
        return PreparedCall(
            path_kwargs=path_kwargs,
            query=query,
            body=body,
            page=listing.page,
            page_size=listing.page_size,
        )

    def resolve_lookups(
        self,
        tool: Tool,
        schema: ToolSchema,
        bodies: list[dict[str, Any]],
        context: CallContext,
        call: PreparedCall,
        *,
        indexed: bool = False,
    ) -> None:
        """Resolve lookup objects once the caller passed the view's permissions.

        Checking permissions first means a caller who may not use the tool
        learns nothing about which related rows exist.
        """
        handle = self._permitted_view(tool, context, call)
        try:
            fields = handle.view.get_serializer().fields  # type: ignore[attr-defined]
        except Exception as exc:  # the view's handler decides
            raise_for_status(tool, handle.result_for(exc), None)
            raise
        resolve_references(tool.name, schema, bodies, fields, indexed=indexed)

    def check_access(
        self,
        tool: Tool,
        schema: ToolSchema,
        args: Mapping[str, Any],
        context: CallContext,
    ) -> None:
        """Raise the view's error when the caller may not use the tool here.

        Runs the view's permission checks and, for a tool addressing a row
        whose URL arguments are plain values, ``get_object()`` (404, object
        permissions); writes nothing and counts no throttle. Returns when
        access is granted or the URL arguments themselves are not usable.
        """
        values = {name: args.get(name) for name in schema.path_arguments}
        if not all(
            isinstance(v, str | int) and not isinstance(v, bool)
            for v in values.values()
        ):
            return
        call = PreparedCall(
            path_kwargs={
                kwarg: str(values[name])
                for name, kwarg in schema.path_arguments.items()
            }
        )
        handle = self._permitted_view(tool, context, call)
        get_object = getattr(handle.view, "get_object", None)
        if schema.path_arguments and get_object is not None:
            try:
                get_object()
            except Exception as exc:  # the view's handler decides
                raise_for_status(tool, handle.result_for(exc), None)
                raise

    def _permitted_view(
        self, tool: Tool, context: CallContext, call: PreparedCall
    ) -> ViewHandle:
        """The tool's view for ``call``, once its permission checks passed.

        Raises the view's own error (as a tool error) when they fail, and
        ``not_found`` when the call's URL arguments do not address the view.
        """
        try:
            handle = ViewHandle(tool.endpoint, context, call)
        except EndpointMismatch:
            raise_for_status(tool, InvocationResult(404, None), None)
            raise
        try:
            handle.check_permissions()
        except Exception as exc:  # the view's handler decides
            raise_for_status(tool, handle.result_for(exc), None)
            raise
        return handle

    def _unknown_tool(
        self, name: object, context: CallContext | None = None
    ) -> ToolInputError:
        close = (
            difflib.get_close_matches(str(name), self.names, n=10, cutoff=0.6)
            if isinstance(name, str)
            else []
        )
        # Probe only the close names, not every tool, for the caller's view.
        suggestions = [n for n in close if self.visible(self._tools[n], context)][:3]
        message = "Unknown tool."
        if suggestions:
            message += " Did you mean: " + ", ".join(suggestions) + "?"
        return ToolInputError(
            message,
            error_code=ErrorCode.UNKNOWN_TOOL,
            tool=None,
            hint="Call tools/list for the available tools.",
            extra={"suggestions": suggestions},
        )


def _probe(context: CallContext) -> PermissionProbe:
    """The permission probe of one request, shared by all its lookups."""
    probe = context.memo.get("probe")
    if probe is None:
        probe = context.memo["probe"] = PermissionProbe(context)
    return probe


def _selected(name: str) -> bool:
    """Whether INCLUDE and EXCLUDE let the tool ``name`` through."""
    include = list(mcp_settings.INCLUDE or [])
    exclude = list(mcp_settings.EXCLUDE or [])
    if include and not any(fnmatch.fnmatchcase(name, p) for p in include):
        return False
    return not any(fnmatch.fnmatchcase(name, p) for p in exclude)


def _root(field: str) -> str:
    return re.split(r"[.\[]", field, maxsplit=1)[0]


def _query_pairs(name: str, value: Any, schema: ToolSchema) -> list[tuple[str, str]]:
    if value is None:
        return []
    if isinstance(value, list):
        items = [_query_value(v) for v in value if v is not None]
        if name in schema.comma_separated:
            return [(name, ",".join(items))]
        return [(name, item) for item in items]
    return [(name, _query_value(value))]


def _query_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


_registry: ToolRegistry | None = None
_registry_lock = threading.Lock()


def get_registry() -> ToolRegistry:
    """The process-wide registry, built on first use."""
    global _registry
    registry = _registry
    if registry is None:
        with _registry_lock:
            registry = _registry
            if registry is None:
                registry = _registry = ToolRegistry.from_settings()
    return registry


def reset_registry() -> None:
    """Forget the cached registry; the next call discovers again."""
    global _registry
    with _registry_lock:
        _registry = None


_RELEVANT_SETTINGS = frozenset(
    {
        "FRISIAN_MCP",
        "ROOT_URLCONF",
        "REST_FRAMEWORK",
        "SPECTACULAR_SETTINGS",
        "INSTALLED_APPS",
    }
)


@receiver(setting_changed)
def _reset_on_setting_change(*, setting: str, **kwargs: Any) -> None:
    if setting in _RELEVANT_SETTINGS:
        reset_registry()
