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
import threading
from collections.abc import Iterator, Mapping
from functools import cached_property
from typing import Any

from django.core.signals import setting_changed
from django.dispatch import receiver
from jsonschema import Draft202012Validator

from frisian_mcp.discovery import get_discovery_backend
from frisian_mcp.exceptions import ToolInputError
from frisian_mcp.invocation import CallContext, PreparedCall, invoke
from frisian_mcp.registry.results import raise_for_status, structured_result
from frisian_mcp.registry.tools import Tool, assign_names
from frisian_mcp.registry.validation import validate_arguments, validator_for
from frisian_mcp.schema import SchemaBuilder, ToolSchema
from frisian_mcp.types import ErrorCode, JSONObject, ToolDefinition

__all__ = ["ToolRegistry", "get_registry", "reset_registry"]


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

    @classmethod
    def from_settings(cls) -> ToolRegistry:
        """Discover the endpoints with the configured backend and name them."""
        backend = get_discovery_backend()
        endpoints = backend.get_endpoints()
        prefix = backend.get_path_prefix(endpoints)
        names, clashes = assign_names(
            (backend.get_tool_name(e, prefix), e) for e in endpoints
        )
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

    def get(self, name: str) -> Tool:
        """Return the tool called ``name`` or raise an unknown-tool error."""
        tool = self._tools.get(name)
        if tool is None or tool.schema is None:
            raise self._unknown_tool(name)
        return tool

    def definitions(self) -> list[ToolDefinition]:
        """``tools/list`` entries of every tool, in name order."""
        result = []
        for tool in self._tools.values():
            definition = tool.definition()
            if definition is not None:
                result.append(definition)
        return result

    # -- the call pipeline --------------------------------------------------

    def dispatch(
        self, name: str, arguments: Mapping[str, Any] | None, context: CallContext
    ) -> JSONObject:
        """Run one ``tools/call``; return its structured result.

        Raises :class:`ToolInputError` for any argument problem and
        :class:`~frisian_mcp.exceptions.ToolExecutionError` when the action
        ran and failed.
        """
        tool = self.get(name)
        schema = tool.require_schema()
        args = dict(arguments or {})
        self.check_schema(tool, schema, args)
        options = self.strip_protocol_arguments(schema, args)
        call = self.prepare_call(schema, args, options)
        result = invoke(tool.endpoint, call, context)
        raise_for_status(tool.name, _noun(tool), result, call.body)
        return structured_result(result.data)

    def check_schema(
        self, tool: Tool, schema: ToolSchema, args: Mapping[str, Any]
    ) -> None:
        """Validate ``args`` against the inputSchema; report every problem."""
        validator = self._validators.get(tool.name)
        if validator is None:
            validator = self._validators[tool.name] = validator_for(schema.input_schema)
        problems = validate_arguments(validator, args)
        if problems:
            summary = "; ".join(f"{p['field']} {p['message']}" for p in problems[:5])
            if len(problems) > 5:
                summary += f"; and {len(problems) - 5} more"
            raise ToolInputError(
                f"Invalid arguments for {tool.name}: {summary}.",
                error_code=ErrorCode.INVALID_ARGUMENT,
                tool=tool.name,
                fields=problems,
                hint="Fix the listed fields and call again; the tool's inputSchema has the rules.",
            )

    def strip_protocol_arguments(
        self, schema: ToolSchema, args: dict[str, Any]
    ) -> dict[str, Any]:
        """Remove the protocol arguments from ``args`` and return them."""
        return {
            name: args.pop(name) for name in schema.protocol_arguments if name in args
        }

    def prepare_call(
        self, schema: ToolSchema, args: Mapping[str, Any], options: Mapping[str, Any]
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
        for key, value in (options.get("filters") or {}).items():
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
            page=int(options.get("page") or 1),
            page_size=options.get("page_size"),
        )

    def _unknown_tool(self, name: object) -> ToolInputError:
        suggestions = (
            difflib.get_close_matches(str(name), self.names, n=3, cutoff=0.6)
            if isinstance(name, str)
            else []
        )
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


def _noun(tool: Tool) -> str:
    model = tool.model
    return str(model._meta.verbose_name) if model is not None else "object"


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
