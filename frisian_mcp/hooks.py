"""Seams for extras: call hooks, layouts, and the signals around one request.

``CALL_HOOKS`` names :class:`BaseCallHook` subclasses that see every tool's
schema, shape each call's inner request, step into every call between the
view's access checks and its action, and carry a body that is not JSON
(docs/extending.md, ADR 0027); an installed extra adds its own
(:func:`provide`, ADR 0032). A :class:`BaseLayout`, registered by name from
an app's ``ready()``, lists entries that stand for the flat tools when
``TOOL_LAYOUT`` names it. :data:`request_started` and
:data:`request_finished` frame each request to the endpoint, over HTTP or
another transport, with its :class:`~frisian_mcp.types.Exchange`; a thread
that takes up part of it (a streamed call's worker) runs in a :func:`part`.
"""

from __future__ import annotations

import contextlib
import re
import threading
import time
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from django.core import checks
from django.dispatch import Signal
from django.http import HttpResponseBase
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response

from frisian_mcp.conf import PROVIDED, mcp_settings
from frisian_mcp.contracts import BaseCallHook, BaseLayout, ContentResult
from frisian_mcp.exceptions import ConfigurationError, ToolExecutionError
from frisian_mcp.types import Call, Endpoint, ErrorCode, Exchange

if TYPE_CHECKING:
    from django.core.handlers.wsgi import WSGIRequest

__all__ = [
    "BaseCallHook",
    "BaseLayout",
    "ContentResult",
    "call_hooks",
    "check_layout",
    "exchange",
    "foreign_body",
    "form_only",
    "layout_class",
    "map_response",
    "part",
    "part_finished",
    "part_started",
    "provide",
    "reachable",
    "register_layout",
    "release",
    "request_finished",
    "request_limit",
    "request_started",
]

#: Sent when a request reaches the endpoint: ``exchange`` (an Exchange).
request_started = Signal()
#: Sent once the request is answered: ``exchange``, complete. Exactly one
#: per request, refused ones included; by the thread whose part ends last.
request_finished = Signal()
#: Sent in a thread that takes up part of a request (a streamed call's
#: worker, ADR 0044) as it starts: ``exchange``.
part_started = Signal()
#: Sent when one thread's part of a request ends while another's goes on
#: (instead of ``request_finished``, which the last one sends): ``exchange``.
part_finished = Signal()
_PARTS = threading.Lock()


def call_hooks() -> list[BaseCallHook]:
    """An instance of each ``CALL_HOOKS`` class, in order."""
    return [cls() for cls in mcp_settings.CALL_HOOKS]


def request_limit() -> int:
    """The largest request body: ``MAX_REQUEST_BYTES`` where the project
    sets it, else its default raised to what each call hook needs."""
    limit = int(mcp_settings.MAX_REQUEST_BYTES)
    if "MAX_REQUEST_BYTES" in mcp_settings.user_settings:
        return limit
    return max([limit, *(hook.get_request_bytes() for hook in call_hooks())])


_LAYOUTS: dict[str, type[BaseLayout]] = {}


def provide(app: str, key: str, value: str) -> None:
    """Let an installed extra work by being installed (from its ``ready()``).

    While the app ``app`` is installed, ``value`` (a dotted path) joins a
    list of classes (``CALL_HOOKS``: after the listed ones, unless it or a
    subclass is listed), or is the key's default (``STORE_BACKEND``,
    ``BROWSER_VIEW_CLASS``: a project that sets the key, ``None`` included,
    keeps its own value).
    """
    PROVIDED.setdefault(key, {})[app] = value
    mcp_settings.reload()


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


def form_only(view_class: type[Any]) -> bool:
    """Whether the view parses multipart or form data, and nothing else."""
    parsers = getattr(view_class, "parser_classes", None) or ()
    found = [p for p in parsers if isinstance(p, type)]
    return bool(found) and all(issubclass(p, _FORMS) for p in found)


def reachable(endpoint: Endpoint) -> bool:
    """Whether a tool call can send the endpoint a body it parses: JSON, or
    a form a call hook builds (:attr:`BaseCallHook.sends_forms`)."""
    if endpoint.method not in ("POST", "PUT", "PATCH"):
        return True
    if not form_only(endpoint.view_class):
        return True
    return any(getattr(h, "sends_forms", False) for h in mcp_settings.CALL_HOOKS)


_FORMS = (FormParser, MultiPartParser)
_JSON_TYPE = re.compile(r"^application/([\w.-]+\+)?json\b", re.IGNORECASE)


def foreign_body(response: HttpResponseBase) -> bool:
    """Whether a 2xx answer carries a body that is not JSON (a file).

    A streaming response always does; a DRF ``Response`` when no JSON
    renderer answered; a plain one when its type is not JSON and it has
    bytes or names a file (``Content-Disposition``).
    """
    if not 200 <= response.status_code < 300:
        return False
    if response.streaming:
        return True
    if isinstance(response, Response):
        media = getattr(getattr(response, "accepted_renderer", None), "media_type", "")
        return not _JSON_TYPE.match(media or "application/json")
    if _JSON_TYPE.match(response.get("Content-Type", "")):
        return False
    content = getattr(response, "content", b"")
    return bool(content) or response.has_header("Content-Disposition")


def map_response(
    tool: Any, call: Call, request: WSGIRequest, response: HttpResponseBase
) -> ContentResult:
    """The content a call hook makes of a :func:`foreign_body`; without
    one, an error saying the tool answers a body the core does not carry.
    """
    for hook in call_hooks():
        content = hook.map_response(tool, call, request, response)
        if content is not None:
            return content
    release(response)  # unread: a file or stream is never loaded
    kind = response.get("Content-Type", "") or "no content type"
    raise ToolExecutionError(
        f"{tool.name} answers a body that is not JSON ({kind.split(';')[0]}), "
        "which this server does not carry through tools.",
        code=ErrorCode.REQUEST_REJECTED,
        tool=tool.name,
        hint="Fetch it over the REST API, or ask the server's operator to "
        "install the files extra (docs/files.md).",
    )


def release(response: HttpResponseBase) -> None:
    """Close what the response holds open (its file, its generator).

    Not ``response.close()``: that sends Django's ``request_finished``,
    which would close the database connections in the middle of a request.
    """
    close = getattr(getattr(response, "_iterator", None), "close", None)
    if response.streaming and callable(close):
        close()
    closers = response._resource_closers  # type: ignore[attr-defined]
    for closer in closers:
        closer()
    closers.clear()


@contextlib.contextmanager
def exchange(transport: str) -> Iterator[Exchange]:
    """One request's :class:`Exchange`, framed by the two signals."""
    record = Exchange(transport, started=time.perf_counter())
    request_started.send(sender=Exchange, exchange=record)
    try:
        yield record
    finally:
        _finish(record)


def part(record: Exchange) -> contextlib.AbstractContextManager[Exchange]:
    """A part of ``record``'s request that another thread does, framed by
    :data:`part_started` and its end; called before that thread starts."""
    with _PARTS:
        record.parts += 1
    return _part(record)


@contextlib.contextmanager
def _part(record: Exchange) -> Iterator[Exchange]:
    try:
        part_started.send(sender=Exchange, exchange=record)
        yield record
    finally:
        _finish(record)


def _finish(record: Exchange) -> None:
    """One part ended: the last one's end is the request's."""
    with _PARTS:
        record.parts -= 1
        last = record.parts == 0
    signal = request_finished if last else part_finished
    signal.send(sender=Exchange, exchange=record)
