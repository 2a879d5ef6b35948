"""One audit record per request, on the ``frisian_mcp.audit`` logger.

:func:`started` counts the rows the request writes: an execute wrapper on
each database connection of each thread that works on it (a streamed call's
worker too) notes every INSERT, UPDATE and DELETE, and keeps it
once its transaction commits (a rolled-back write, such as a refused bulk
create's, counts nothing). A cursor's row count is read right after the
statement (PostgreSQL drivers reset it when the cursor closes) and again at
the end (SQLite sets it only once a RETURNING clause's rows were fetched);
the larger one counts; :func:`counted` adds a thread's rows as its part
ends. :func:`finished` logs the
:class:`~frisian_mcp.types.Exchange` with its fields in the record's
``extra`` (``mcp_*``); no argument value, result or credential is in it.
"""

from __future__ import annotations

import contextlib
import contextvars
import datetime
import functools
import logging
import re
import threading
import time
from collections.abc import Callable
from typing import Any

from django.db import connections, transaction

from frisian_mcp.types import Exchange, JSONObject

__all__ = ["audit_logger", "counted", "fields", "finished", "started"]

audit_logger = logging.getLogger("frisian_mcp.audit")
#: The wrappers of the request being counted, and its committed writes
#: (kind, cursor, row count right after the statement).
_Written = list[tuple[str, Any, int]]
_Counting = tuple[contextlib.ExitStack, _Written]
_counting: contextvars.ContextVar[_Counting | None] = contextvars.ContextVar(
    "frisian_mcp_audit_counting", default=None
)
_WRITES = {"INSERT": "created", "UPDATE": "updated", "DELETE": "deleted"}
#: Two parts of a request (a streamed call's worker) may end at once.
_ADDING = threading.Lock()
#: What a self-reported name or version, and an id, may look like.
_NAME = re.compile(r"[\w .:/@+-]{1,64}")
_ID = re.compile(r"[\w.:/@+-]{1,64}")


def started(sender: Any, exchange: Exchange, **kwargs: Any) -> None:
    """Count the rows this thread writes for the request (audit on only)."""
    _counting.set(None)  # not the request thread's, copied into a worker
    if not audit_logger.isEnabledFor(logging.INFO):
        return
    stack, written = contextlib.ExitStack(), _Written()
    for alias in connections:
        count = functools.partial(_count, written, alias)
        stack.enter_context(connections[alias].execute_wrapper(count))
    _counting.set((stack, written))


def counted(sender: Any, exchange: Exchange, **kwargs: Any) -> None:
    """Add the rows this thread wrote for the request; stop counting them."""
    counting = _counting.get()
    if counting is not None:
        _counting.set(None)
        stack, written = counting
        stack.close()
        for kind, cursor, early in written:
            rows = max(early, getattr(cursor, "rowcount", -1), 0)
            with _ADDING:
                exchange.rows[kind] = exchange.rows.get(kind, 0) + rows


def finished(sender: Any, exchange: Exchange, **kwargs: Any) -> None:
    """Log the request's record, once its last thread's part ended."""
    counted(sender, exchange)
    if not audit_logger.isEnabledFor(logging.INFO):
        return
    extra = fields(exchange)
    audit_logger.info(
        "%s %s tool=%s user=%s outcome=%s duration_ms=%.1f rows=%d/%d/%d",
        extra["mcp_transport"],
        extra["mcp_method"] or "-",
        extra["mcp_tool"] or "-",
        extra["mcp_username"] or "anonymous",
        extra["mcp_outcome"],
        extra["mcp_duration_ms"],
        extra["mcp_rows_created"],
        extra["mcp_rows_updated"],
        extra["mcp_rows_deleted"],
        extra=extra,
    )


def fields(exchange: Exchange) -> JSONObject:
    """The record's fields (``mcp_*``): facts of the request, never values."""
    context = exchange.context
    user = context.user if context is not None and context.is_authenticated else None
    info = (context.client.get("info") if context is not None else None) or {}
    elapsed = (time.perf_counter() - exchange.started) * 1000
    began = time.time() - elapsed / 1000
    return {
        "mcp_time": datetime.datetime.fromtimestamp(began, datetime.UTC).isoformat(),
        "mcp_transport": exchange.transport,
        "mcp_user_id": _plain(user.pk, _ID) if user is not None else None,
        "mcp_username": _plain(user.get_username()) if user is not None else None,
        "mcp_auth": _auth(exchange) if user is not None else None,
        "mcp_auth_scheme": exchange.scheme,
        "mcp_client_name": _plain(info.get("name")),
        "mcp_client_version": _plain(info.get("version")),
        "mcp_protocol_version": context.protocol_version if context else None,
        "mcp_method": exchange.method,
        "mcp_tool": exchange.tool,
        "mcp_request_id": _plain(exchange.request_id, _ID),
        "mcp_outcome": exchange.outcome or "ok",
        "mcp_status": exchange.status,
        "mcp_duration_ms": round(elapsed, 1),
        **{f"mcp_rows_{kind}": exchange.rows.get(kind, 0) for kind in _WRITES.values()},
    }


def _auth(exchange: Exchange) -> str:
    """How the caller authenticated: the authenticator's class, or the transport."""
    context = exchange.context
    authenticator = context.authenticator if context is not None else None
    if authenticator is None:
        return exchange.transport if exchange.transport != "http" else "session"
    return type(authenticator).__name__


def _plain(value: object, shape: re.Pattern[str] = _NAME) -> Any:
    """An id, name or version as sent, only when it is shaped like one."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    text = str(value) if value is not None else ""
    return text if shape.fullmatch(text) else None


def _count(
    written: _Written,
    alias: str,
    execute: Callable[..., Any],
    sql: str,
    params: Any,
    many: bool,
    context: dict[str, Any],
) -> Any:
    """Run the statement; keep a write once it is committed."""
    result = execute(sql, params, many, context)
    kind = _WRITES.get(sql.lstrip()[:6].upper())
    if kind is not None:
        cursor = context.get("cursor")
        early = getattr(cursor, "rowcount", -1)
        keep = functools.partial(written.append, (kind, cursor, early))
        if connections[alias].in_atomic_block:
            transaction.on_commit(keep, using=alias)
        else:
            keep()
    return result
