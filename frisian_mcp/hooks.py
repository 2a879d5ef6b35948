"""Seams for extras: call hooks, layouts, and the signals around one request.

``CALL_HOOKS`` names :class:`BaseCallHook` subclasses that see every tool's
schema and step into every call between the view's access checks and its
action (docs/extending.md). A :class:`BaseLayout`, registered by name from
an app's ``ready()``, lists entries that stand for the flat tools when
``TOOL_LAYOUT`` names it. :data:`request_started` and
:data:`request_finished` frame each request to the endpoint, over HTTP or
another transport, with its :class:`~frisian_mcp.types.Exchange`.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Collection, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from django.core import checks
from django.dispatch import Signal

from frisian_mcp.conf import mcp_settings
from frisian_mcp.exceptions import ConfigurationError
from frisian_mcp.types import Call, CallContext, Exchange, JSONObject, ToolDefinition

if TYPE_CHECKING:
    from frisian_mcp.registry import ToolRegistry
    from frisian_mcp.schema import ToolSchema
    from frisian_mcp.tools import Tool
    from frisian_mcp.visibility import Visibility

__all__ = [
    "BaseCallHook",
    "BaseLayout",
    "call_hooks",
    "check_layout",
    "exchange",
    "layout_class",
    "register_layout",
    "request_finished",
    "request_started",
]

#: Sent when a request reaches the endpoint: ``exchange`` (an Exchange).
request_started = Signal()
#: Sent once the request is answered: ``exchange``, complete. Exactly one
#: per request, refused ones included.
request_finished = Signal()


class BaseCallHook:
    """Steps into tool calls; every method's default changes nothing.

    ``settings``: the ``FRISIAN_MCP`` keys the hook reads, so a check can
    tell a setting that no listed hook reads.
    """

    settings: tuple[str, ...] = ()

    def map_schema(self, tool: Tool, schema: ToolSchema) -> ToolSchema:
        """The tool's schema as listed and checked (built once per tool).

        A hook may add protocol arguments (in ``input_schema`` and
        ``protocol_arguments``) and words to ``description``.
        """
        return schema

    def check_call(
        self, tool: Tool, call: Call, view: Any, context: CallContext
    ) -> None:
        """Run after the view's access checks, before its action.

        Raise a :class:`~frisian_mcp.exceptions.ToolError` to answer the call
        instead (nothing is written), or
        :class:`~frisian_mcp.exceptions.InputRequired` to ask the client
        first. ``call.notes`` adds to a ``mode: "validate"`` report.
        """


def call_hooks() -> list[BaseCallHook]:
    """An instance of each ``CALL_HOOKS`` class, in order."""
    return [cls() for cls in mcp_settings.CALL_HOOKS]


class BaseLayout:
    """A ``TOOL_LAYOUT`` besides ``"flat"``: entries that stand for tools.

    One instance per registry. ``tools/list`` lists its entries instead of
    the flat tools; a call to an entry is routed to a flat tool, which runs
    as if called by name (flat names stay callable).
    """

    def __init__(self, registry: ToolRegistry) -> None:
        self.registry = registry

    def names(self) -> Collection[str]:
        """Every entry's name, whoever calls."""
        raise NotImplementedError

    def definitions(self, seen: Visibility) -> list[ToolDefinition]:
        """The entries the caller of ``seen`` may use, in listing order."""
        raise NotImplementedError

    def route(
        self, name: str, arguments: Mapping[str, Any], seen: Visibility
    ) -> tuple[str, Mapping[str, Any]] | JSONObject:
        """``(flat tool, its arguments)`` for a call to entry ``name``.

        Or the call's result, when the entry answers itself (``help``).
        Raise a :class:`~frisian_mcp.exceptions.ToolInputError` for
        arguments that reach no tool; a flat tool name the caller may not
        see is unknown to it, as if called by name.
        """
        raise NotImplementedError

    def describe(self) -> list[str]:
        """Lines for ``manage.py frisian_mcp_tools``' table (default: names)."""
        return sorted(self.names())


_LAYOUTS: dict[str, type[BaseLayout]] = {}


def register_layout(name: str, layout: type[BaseLayout]) -> None:
    """Offer ``layout`` as ``TOOL_LAYOUT = name`` (from an app's ``ready()``)."""
    _LAYOUTS[name] = layout


def layout_class(name: str) -> type[BaseLayout] | None:
    """The layout registered as ``name``, if an installed app offers one."""
    return _LAYOUTS.get(name)


@checks.register()
def check_layout(
    app_configs: Iterable[Any] | None = None, **kwargs: Any
) -> list[checks.CheckMessage]:
    """E016: ``TOOL_LAYOUT`` names a layout no installed app offers."""
    try:
        layout = mcp_settings.TOOL_LAYOUT
    except ConfigurationError:  # the settings checks report it
        return []
    if layout in ("auto", "flat") or layout_class(str(layout)) is not None:
        return []
    return [
        checks.Error(
            f"FRISIAN_MCP['TOOL_LAYOUT'] is {layout!r}, but no installed app "
            "offers that layout: tools/list would fail.",
            hint='For "dispatcher", add the dispatchers extra to INSTALLED_APPS '
            '(docs/index.md, "Large APIs"); or set TOOL_LAYOUT to "flat" or "auto".',
            id="frisian_mcp.E016",
        )
    ]


@contextlib.contextmanager
def exchange(transport: str) -> Iterator[Exchange]:
    """One request's :class:`Exchange`, framed by the two signals."""
    record = Exchange(transport, started=time.perf_counter())
    request_started.send(sender=Exchange, exchange=record)
    try:
        yield record
    finally:
        request_finished.send(sender=Exchange, exchange=record)
