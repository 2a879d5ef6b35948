"""Answers that carry notifications: a live SSE stream, or a short SSE body.

A request whose client takes ``text/event-stream`` gets a
:class:`~frisian_mcp.notices.Channel` (ADR 0044). With a progress token its
call runs in a worker thread and the request thread streams the worker's
queue: notifications as they come, then the response; a call that reports
nothing before it ends is answered as without a token. Without one, log
messages the call left are sent before the response in one short body.
Every other request is answered as before, byte for byte.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import queue
import threading
import uuid
from collections.abc import Callable, Iterator, Mapping
from typing import Any, TypeVar

from django import db
from django.http import HttpResponse, StreamingHttpResponse

from frisian_mcp import hooks, jsonrpc, levels, notices, replies
from frisian_mcp.bodies import BULK_ARGUMENTS
from frisian_mcp.conf import mcp_settings
from frisian_mcp.exceptions import InternalError, JSONRPCError
from frisian_mcp.guards import BULK_BODY_KEYS
from frisian_mcp.parsers import readable_id
from frisian_mcp.revisions import REVISIONS, select
from frisian_mcp.types import CallContext, Exchange, JSONObject

__all__ = ["answer"]

_SSE = "text/event-stream"
_CANCELLED = "notifications/cancelled"
#: Items the worker may queue ahead of the stream: 20 progress
#: notifications and a few log messages fit, one slot stays for the response.
_BOUND = 64
#: The arguments that carry a bulk tool's rows (ADR 0033).
_BULK_KEYS = BULK_BODY_KEYS | frozenset(BULK_ARGUMENTS.values())


def answer(
    message: Any, context: CallContext, headers: Mapping[str, str]
) -> jsonrpc.Reply | HttpResponse | StreamingHttpResponse:
    """``message`` answered as a :class:`~frisian_mcp.jsonrpc.Reply` (as
    without notifications), or as an SSE response that carries them."""
    run = functools.partial(jsonrpc.handle, message, context, headers=headers)
    if isinstance(message, dict) and message.get("method") == _CANCELLED:
        params = message.get("params")
        if "id" not in message and isinstance(params, dict):
            levels.mark_cancelled(context, params.get("requestId"))
    accept = headers.get("Accept") or ""
    if not isinstance(message, dict) or _SSE not in accept.lower():
        return run()
    params = message.get("params")
    modern = _modern(message, headers)
    level: str | Callable[[], str | None] | None = notices.requested_level(params)
    if not modern:
        level = functools.partial(levels.kept_level, context)
    token = notices.progress_token(params)
    if token is not None and _reports(message):
        stopped = None  # 2026-07-28 cancels by closing the stream
        if not modern:
            stopped = functools.partial(levels.cancelled, context, message.get("id"))
        channel = notices.Channel(token=token, level=level, stopped=stopped)
        return _live(run, channel, message, modern, context.exchange)
    channel = notices.Channel(level=level)
    with notices.opened(channel):
        reply = run()
    if not channel.kept or reply.status != 200 or reply.body is None:
        return reply
    return _short(channel.kept, reply)


def _reports(message: JSONObject) -> bool:
    """Whether the call may report progress: a tool's bulk body (a list), or
    a page of more than ``LARGE_PAGE`` rows."""
    params = message.get("params")
    arguments = params.get("arguments") if isinstance(params, dict) else None
    if message.get("method") != "tools/call" or not isinstance(arguments, dict):
        return False
    if any(isinstance(arguments.get(key), list) for key in _BULK_KEYS):
        return True
    size = arguments.get("page_size", mcp_settings.PAGE_SIZE)
    large = isinstance(size, int) and size > notices.LARGE_PAGE
    return large and mcp_settings.MAX_PAGE_SIZE > notices.LARGE_PAGE


def _modern(message: JSONObject, headers: Mapping[str, str]) -> bool:
    try:
        version = select(message, headers.get("MCP-Protocol-Version"))
    except JSONRPCError:
        return False  # answered as an error, with nothing to notify
    return REVISIONS[version].stateless


def _event(message: Any) -> bytes:
    return b"event: message\ndata: " + replies.encode(message).encode() + b"\n\n"


def _priming() -> bytes:
    """MCP 2025-11-25 basic/transports: an event id with empty data first."""
    return f"id: {uuid.uuid4().hex}\ndata: \n\n".encode()


_Response = TypeVar("_Response", HttpResponse, StreamingHttpResponse)


def _headed(response: _Response) -> _Response:
    # 2026-07-28 basic/transports/streamable-http: proxies must not buffer.
    response["X-Accel-Buffering"] = "no"
    response["Cache-Control"] = "no-cache"
    return response


def _short(kept: list[JSONObject], reply: jsonrpc.Reply) -> HttpResponse:
    """The log messages, then the response, as one SSE body (ADR 0044, G2)."""
    body = b"" if reply.modern else _priming()
    body += b"".join(_event(n) for n in kept) + _event(reply.body)
    response = HttpResponse(body, status=200, content_type=_SSE)
    for name, value in reply.headers.items():
        response[name] = value
    return _headed(response)


def _live(
    run: Callable[[], jsonrpc.Reply],
    channel: notices.Channel,
    message: JSONObject,
    modern: bool,
    exchange: Exchange,
) -> jsonrpc.Reply | StreamingHttpResponse:
    """Run the call in a worker; stream once it first reports, else answer."""
    items: queue.Queue[Any] = queue.Queue(_BOUND)

    def send(notification: JSONObject) -> None:
        if items.qsize() < _BOUND - 1:  # else dropped: progress is advice
            items.put_nowait(notification)

    channel.send = send
    worker = contextvars.copy_context()
    part = hooks.part(exchange)  # the request's record waits for the worker
    threading.Thread(
        target=worker.run,
        args=(_work, run, part, channel, items, readable_id(message)),
        name="frisian-mcp-call",
        daemon=True,
    ).start()
    first = items.get()
    if isinstance(first, jsonrpc.Reply):
        return first  # nothing reported: answered as without a token
    stream = _Stream(channel, items, first, modern)
    return _headed(StreamingHttpResponse(stream, status=200, content_type=_SSE))


def _work(
    run: Callable[[], jsonrpc.Reply],
    part: contextlib.AbstractContextManager[Any],
    channel: notices.Channel,
    items: queue.Queue[Any],
    request_id: Any,
) -> None:
    """The worker: the call, its part of the request's frame ended (the
    audit record written), then its reply last; its connections closed."""

    def failed(error: JSONRPCError) -> jsonrpc.Reply:
        return jsonrpc.Reply(error.http_status, jsonrpc.error_body(request_id, error))

    reply = failed(InternalError())  # what the stream ends with, whatever happens
    try:
        with part, notices.opened(channel):
            reply = jsonrpc.last_resort(run, failed, "in a streamed call")
    finally:
        channel.close()  # nothing follows the response
        items.put_nowait(reply)
        db.connections.close_all()


class _Stream:
    """The SSE body: the worker's notifications, then its reply, then the end.

    Closed before the reply was sent, the client went away: a 2026-07-28
    call is cancelled (its next step raises and rolls back); a handshake-era
    one runs to its end, its notifications dropped (2025-11-25
    basic/transports: a disconnect is not a cancellation).
    """

    def __init__(
        self,
        channel: notices.Channel,
        items: queue.Queue[Any],
        first: JSONObject,
        modern: bool,
    ) -> None:
        self.channel, self.items, self.first, self.modern = (
            channel,
            items,
            first,
            modern,
        )
        self.finished = False

    def __iter__(self) -> Iterator[bytes]:
        if not self.modern:
            yield _priming()
        item: Any = self.first
        while not isinstance(item, jsonrpc.Reply):
            yield _event(item)
            item = self.items.get()
        self.finished = True
        # A cancelled request gets no response (basic/utilities/cancellation).
        if item.body is not None and not self.channel.cancelled:
            yield _event(item.body)

    def close(self) -> None:
        if not self.finished:
            if self.modern:
                self.channel.cancel()
            else:
                self.channel.close()
