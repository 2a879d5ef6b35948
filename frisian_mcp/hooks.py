"""Seams for extras: call hooks, and the signals around one request.

``CALL_HOOKS`` names :class:`BaseCallHook` subclasses that see every tool's
schema and step into every call between the view's access checks and its
action (docs/extending.md). :data:`request_started` and
:data:`request_finished` frame each request to the endpoint, over HTTP or
another transport, with its :class:`~frisian_mcp.types.Exchange`.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from django.dispatch import Signal

from frisian_mcp.conf import mcp_settings
from frisian_mcp.types import Call, CallContext, Exchange

if TYPE_CHECKING:
    from frisian_mcp.schema import ToolSchema
    from frisian_mcp.tools import Tool

__all__ = [
    "BaseCallHook",
    "call_hooks",
    "exchange",
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


@contextlib.contextmanager
def exchange(transport: str) -> Iterator[Exchange]:
    """One request's :class:`Exchange`, framed by the two signals."""
    record = Exchange(transport, started=time.perf_counter())
    request_started.send(sender=Exchange, exchange=record)
    try:
        yield record
    finally:
        request_finished.send(sender=Exchange, exchange=record)
