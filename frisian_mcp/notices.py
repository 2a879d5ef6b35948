"""Notifications about the request at hand: its progress, the server's warnings.

A transport that can carry them opens a :class:`Channel` around the call
(ADR 0044); the call reports through :func:`report` and :func:`warn`, which
cost a context variable's read outside one.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import Any

from frisian_mcp.exceptions import RequestCancelled
from frisian_mcp.revisions import LOG_LEVEL_META, LOG_LEVELS
from frisian_mcp.types import JSONObject

__all__ = [
    "Channel",
    "counted",
    "opened",
    "progress_token",
    "report",
    "requested_level",
    "warn",
]

logger = logging.getLogger("frisian_mcp")
#: Notifications a call's progress sends at most: one each twentieth.
STEPS = 20
#: Rows a list page holds before it reports its progress.
LARGE_PAGE = 1000
#: Seconds between notifications of a progress without a total.
_UNTOTALLED_INTERVAL = 1.0
_CURRENT: ContextVar[Channel | None] = ContextVar("frisian_mcp_channel", default=None)


class Channel:
    """Where one request's notifications go, and whether they may go.

    ``token``: the request's progress token (``None``: no progress is
    sent); ``level``: the client's minimum log level, or a function that
    finds it when a message first needs it; ``send``: a function that sends
    a notification at once (a live stream, stdio), else they are kept in
    :attr:`kept` for the response's own body; ``stopped``: whether the
    client cancelled the request, asked before each progress notification.
    """

    def __init__(
        self,
        *,
        token: str | int | None = None,
        level: str | Callable[[], str | None] | None = None,
        send: Callable[[JSONObject], None] | None = None,
        stopped: Callable[[], bool] | None = None,
    ) -> None:
        self.token, self.send, self.stopped = token, send, stopped
        self._level = level
        self.kept: list[JSONObject] = []
        self.closed = self.cancelled = False
        # The next ``done`` worth a notification: progress only increases.
        self._next, self._step = 1, 0
        self._when = 0.0

    def advance(self, done: int, total: int | None, verb: str) -> None:
        """``done`` of ``total`` rows are ``verb``: notify at each twentieth.

        Raises:
            RequestCancelled: the client closed the stream (2026-07-28).
        """
        if self.cancelled:
            raise RequestCancelled
        if self.token is None or self.closed or done < self._next:
            return
        if total is None:
            now = time.monotonic()
            if now - self._when < _UNTOTALLED_INTERVAL:
                return
            self._when, self._next = now, done + 1
        else:
            step = min(done, total) * STEPS // max(total, 1)
            self._next = -(-total * (step + 1) // STEPS)  # the ceiling
            if step <= self._step:
                return
            self._step = step
        if self.stopped is not None and self.stopped():
            self.cancel()
            raise RequestCancelled
        params: JSONObject = {"progressToken": self.token, "progress": done}
        counted = f"{verb} {done:,} rows"
        if total is not None:
            params["total"] = total
            counted = f"{verb} {done:,} of {total:,} rows"
        params["message"] = counted
        self._emit("notifications/progress", params)

    def message(self, level: str, data: JSONObject) -> None:
        """Send a log message if the client's level admits ``level``."""
        wanted = self._level() if callable(self._level) else self._level
        self._level = wanted  # asked once
        if self.closed or wanted not in LOG_LEVELS:
            return
        if LOG_LEVELS.index(level) < LOG_LEVELS.index(wanted):
            return
        params = {"level": level, "logger": logger.name, "data": data}
        self._emit("notifications/message", params)

    def close(self) -> None:
        """The call is answered: nothing more is sent (basic/utilities/progress)."""
        self.closed = True

    def cancel(self) -> None:
        """The client went away and that cancels: the next step raises."""
        self.closed = self.cancelled = True

    def _emit(self, method: str, params: JSONObject) -> None:
        notification = {"jsonrpc": "2.0", "method": method, "params": params}
        if self.send is None:
            self.kept.append(notification)
        else:
            self.send(notification)


@contextlib.contextmanager
def opened(channel: Channel) -> Iterator[Channel]:
    """Route :func:`report` and :func:`warn` to ``channel`` within the block."""
    reset = _CURRENT.set(channel)
    try:
        yield channel
    finally:
        _CURRENT.reset(reset)


def report(done: int, total: int | None, verb: str) -> None:
    """The call has ``verb`` ``done`` of ``total`` rows (``None``: unknown)."""
    channel = _CURRENT.get()
    if channel is not None:
        channel.advance(done, total, verb)


def counted(write: Callable[[Any], Any], total: int, verb: str) -> Callable[[Any], Any]:
    """``write`` (one row a call), reporting each row it has ``verb``."""
    done = 0

    def counted(row: Any) -> Any:
        nonlocal done
        written, done = write(row), min(done + 1, total)
        report(done, total, verb)
        return written

    return counted


def warn(code: str, message: str, arguments: list[str]) -> None:
    """A warning about the call: to the ``frisian_mcp`` logger, and to the
    client that asked for it. ``arguments`` are names, never values."""
    logger.warning("%s (%s): %s", message, code, ", ".join(arguments))
    channel = _CURRENT.get()
    if channel is not None:
        data = {"code": code, "message": message, "arguments": list(arguments)}
        channel.message("warning", data)


def progress_token(params: object) -> str | int | None:
    """``params._meta.progressToken`` if a string or an integer."""
    meta = params.get("_meta") if isinstance(params, dict) else None
    token = meta.get("progressToken") if isinstance(meta, dict) else None
    if isinstance(token, bool) or not isinstance(token, str | int):
        return None
    return token


def requested_level(params: object) -> str | None:
    """A 2026-07-28 request's own log level (``_meta``), if it names one."""
    meta = params.get("_meta") if isinstance(params, dict) else None
    level = meta.get(LOG_LEVEL_META) if isinstance(meta, dict) else None
    return level if level in LOG_LEVELS else None
