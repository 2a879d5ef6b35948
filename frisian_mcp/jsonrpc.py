"""JSON-RPC 2.0 and the MCP methods: envelopes in, responses out; no views.

:func:`handle` takes a raw request body and returns a :class:`Reply` (HTTP
status and JSON body, or no body for 202). It validates the envelope
(JSON-RPC 2.0 §4-5) and serves both eras of MCP on the same endpoint, chosen
per request (MCP 2026-07-28 basic/versioning "Dual-era"):

- the handshake era (2025-03-26, 2025-06-18, 2025-11-25): ``initialize``
  negotiates the version (2025-11-25 basic/lifecycle), then ``ping``,
  ``tools/list`` and ``tools/call``, with the version in the
  ``MCP-Protocol-Version`` header;
- the stateless 2026-07-28 revision: every request carries its version and
  the client's capabilities in ``_meta`` and mirrors method, tool name and
  version into headers; ``server/discover``, ``tools/list`` and
  ``tools/call`` answer with ``resultType``, the server's info in ``_meta``
  and, for lists, ``ttlMs``/``cacheScope``.

It is the one place where exceptions become wire errors:
``JSONRPCError`` subclasses map to their codes, ``ToolInputError`` to -32602
with ``error.data``, ``ToolExecutionError`` to an ``isError`` result, and
anything else to -32603 with a correlation id (logged with its traceback,
never shown).
"""

from __future__ import annotations

import base64
import json
import logging
import re
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from django.core import signing

from frisian_mcp import __version__
from frisian_mcp.conf import mcp_settings
from frisian_mcp.exceptions import (
    HeaderMismatch,
    InternalError,
    InvalidParams,
    InvalidRequest,
    JSONRPCError,
    MethodNotFound,
    MissingRequestMetadata,
    ParseError,
    ToolExecutionError,
    ToolInputError,
    UnsupportedProtocolVersion,
)
from frisian_mcp.invocation import CallContext, to_json
from frisian_mcp.registry import TOOL_NAME_PATTERN, ToolRegistry, get_registry
from frisian_mcp.types import CallToolResult, ErrorCode, JSONObject, JSONRPCMessage

__all__ = [
    "ASSUMED_VERSION",
    "LATEST_VERSION",
    "MODERN_VERSIONS",
    "SUPPORTED_VERSIONS",
    "Reply",
    "error_object",
    "handle",
    "log_internal_error",
]

logger = logging.getLogger("frisian_mcp")
#: One line per ``tools/call``: tool, user id, outcome code and duration.
call_logger = logging.getLogger("frisian_mcp.calls")

#: Handshake-era protocol versions served, oldest first.
SUPPORTED_VERSIONS: tuple[str, ...] = ("2025-03-26", "2025-06-18", "2025-11-25")
#: The version offered when a client asks for one not served.
LATEST_VERSION = SUPPORTED_VERSIONS[-1]
#: The version assumed when a request carries no MCP-Protocol-Version header
#: (MCP 2025-11-25 basic/transports "Protocol Version Header").
ASSUMED_VERSION = "2025-03-26"
#: Per-request (stateless) protocol versions served.
MODERN_VERSIONS: tuple[str, ...] = ("2026-07-28",)
#: ``_meta`` keys of a 2026-07-28 request (basic/index "_meta").
MODERN_VERSION_META = "io.modelcontextprotocol/protocolVersion"
CLIENT_CAPABILITIES_META = "io.modelcontextprotocol/clientCapabilities"
SERVER_INFO_META = "io.modelcontextprotocol/serverInfo"
#: Methods of 2026-07-28 requests; anything else is 404 with -32601.
_MODERN_METHODS = frozenset({"server/discover", "tools/list", "tools/call"})
_BASE64_SENTINEL = re.compile(r"=\?base64\?([A-Za-z0-9+/]*={0,2})\?=")

_CURSOR_SALT = "frisian_mcp.tools_list.cursor"
_NOTIFICATION_PREFIX = "notifications/"


@dataclass(frozen=True)
class Reply:
    """An HTTP status and a JSON body (``None``: 202 Accepted, no body).

    ``modern``: the answer to a 2026-07-28 request (its SSE streams are not
    resumable, so they carry no event ids).
    """

    status: int
    body: JSONRPCMessage | list[JSONRPCMessage] | None
    modern: bool = False


def handle(
    payload: bytes,
    context: CallContext,
    *,
    header_version: str | None = None,
    headers: Mapping[str, str] | None = None,
    registry: Callable[[], ToolRegistry] = get_registry,
) -> Reply:
    """Answer one POSTed body: a message, or a batch under 2025-03-26.

    ``headers`` are the request's (case-insensitive, as Django's
    ``request.headers``); 2026-07-28 requests are checked against them.
    """
    try:
        message = _parse(payload)
    except JSONRPCError as exc:
        return Reply(exc.http_status, _error_response(None, exc))
    if headers is not None and header_version is None:
        header_version = headers.get("MCP-Protocol-Version")
    if _is_modern(message, header_version):
        context.protocol_version = MODERN_VERSIONS[-1]
        reply = _ModernHandler(context, registry, headers or {}).single(message)
        return Reply(reply.status, reply.body, modern=True)
    if header_version is not None and header_version not in SUPPORTED_VERSIONS:
        unsupported = _unsupported(header_version)
        return Reply(
            unsupported.http_status, _error_response(_readable_id(message), unsupported)
        )
    context.protocol_version = header_version or ASSUMED_VERSION
    handler = _Handler(context, registry)
    if isinstance(message, list):
        return handler.batch(message, explicit_version=header_version)
    return handler.single(message)


def log_internal_error(where: str) -> InternalError:
    """Log the exception being handled under a new correlation id; return -32603.

    The caller sees only the id; the traceback stays in the log.
    """
    correlation = uuid.uuid4().hex[:16]
    logger.exception("Unhandled error %s (correlation id %s)", where, correlation)
    return InternalError(
        f"Internal error (correlation id {correlation}).",
        data={"code": ErrorCode.INTERNAL_ERROR.value, "correlation_id": correlation},
    )


def error_object(exc: JSONRPCError) -> JSONObject:
    """The JSON-RPC ``error`` member for ``exc``."""
    error: JSONObject = {"code": exc.code, "message": exc.message}
    if isinstance(exc, ToolInputError):
        error["data"] = _input_error_data(exc)
    elif exc.data is not None:
        error["data"] = exc.data
    return error


class _Handler:
    def __init__(
        self, context: CallContext, registry: Callable[[], ToolRegistry]
    ) -> None:
        self.context = context
        self.registry = registry
        self.methods: dict[str, Callable[[JSONObject], JSONObject]] = {
            "initialize": self.initialize,
            "ping": self.ping,
            "tools/list": self.tools_list,
            "tools/call": self.tools_call,
        }

    def single(self, message: Any) -> Reply:
        response = self.respond(message)
        if response is None:
            return Reply(202, None)
        return Reply(_status_of(response), response)

    def batch(self, messages: list[Any], *, explicit_version: str | None) -> Reply:
        # Batches existed only in 2025-03-26 (removed by 2025-06-18,
        # basic/transports "Sending Messages to the Server").
        version = explicit_version or ASSUMED_VERSION
        if version != "2025-03-26" or not messages:
            exc = InvalidRequest(
                "Invalid request: batches are not supported"
                + (" in this protocol version." if messages else " when empty.")
            )
            return Reply(exc.http_status, _error_response(None, exc))
        if any(
            isinstance(m, dict) and m.get("method") == "initialize" for m in messages
        ):
            exc = InvalidRequest(
                "Invalid request: initialize must not be part of a batch."
            )
            return Reply(exc.http_status, _error_response(None, exc))
        responses = [r for r in (self.respond(m) for m in messages) if r is not None]
        return Reply(200, responses) if responses else Reply(202, None)

    def respond(self, message: Any) -> JSONRPCMessage | None:
        """The response to one message, or ``None`` for notifications."""
        try:
            method, request_id, params = _envelope(message)
        except JSONRPCError as exc:
            return _error_response(_readable_id(message), exc)
        if method is None:
            return None  # a response from the client: nothing to answer
        if request_id is _NOTIFICATION:
            # Notifications get no response, even when they fail (JSON-RPC
            # 2.0 §4.1); the ones MCP defines need no action from a
            # stateless server.
            return None
        if method != "tools/call":
            return self.answer(method, request_id, params)
        started = time.perf_counter()
        response = self.answer(method, request_id, params)
        _log_call(self.context, params, response, time.perf_counter() - started)
        return response

    def answer(
        self, method: str, request_id: Any, params: JSONObject
    ) -> JSONRPCMessage:
        """The response to one request: its result or its error."""
        try:
            handler = self.methods.get(method)
            if handler is None:
                raise MethodNotFound(f"Method not found: {_safe_method(method)}.")
            result = handler(params)
        except ToolExecutionError as exc:
            return {
                "jsonrpc": "2.0",
                "id": request_id,
                "result": self.error_result(exc),
            }
        except ToolInputError as exc:
            if (
                mcp_settings.INPUT_ERROR_STYLE == "tool_result"
                and method == "tools/call"
            ):
                # MCP 2025-11-25 server/tools "Error Handling" (SEP-1303):
                # input validation errors as results the model can read.
                result = self.input_error_result(exc)
                return {"jsonrpc": "2.0", "id": request_id, "result": result}
            return _error_response(request_id, exc)
        except JSONRPCError as exc:
            return _error_response(request_id, exc)
        except Exception:
            internal = log_internal_error(f"in {_safe_method(method)}")
            return _error_response(request_id, internal)
        return {"jsonrpc": "2.0", "id": request_id, "result": result}

    # -- methods ------------------------------------------------------------

    def initialize(self, params: JSONObject) -> JSONObject:
        requested = params.get("protocolVersion")
        if not isinstance(requested, str):
            raise InvalidParams("Invalid params: protocolVersion must be a string.")
        # MCP 2025-11-25 basic/lifecycle "Version Negotiation": echo a
        # supported version, else offer the latest.
        version = requested if requested in SUPPORTED_VERSIONS else LATEST_VERSION
        self.context.protocol_version = version
        result: JSONObject = {
            "protocolVersion": version,
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": _server_info(version),
        }
        if mcp_settings.SERVER_INSTRUCTIONS:
            result["instructions"] = str(mcp_settings.SERVER_INSTRUCTIONS)
        return result

    def ping(self, params: JSONObject) -> JSONObject:
        return {}

    def tools_list(self, params: JSONObject) -> JSONObject:
        cursor = params.get("cursor")
        offset = _read_cursor(cursor) if cursor is not None else 0
        size = max(1, int(mcp_settings.TOOLS_LIST_PAGE_SIZE))
        entries, following = self.registry().page(offset, size, self.context)
        page: list[Any] = list(entries)
        if self.context.protocol_version == "2025-03-26":
            # title and outputSchema arrived in 2025-06-18.
            page = [
                {k: v for k, v in d.items() if k not in ("title", "outputSchema")}
                for d in page
            ]
        result: JSONObject = {"tools": page}
        if following is not None:
            result["nextCursor"] = signing.dumps({"o": following}, salt=_CURSOR_SALT)
        return result

    def tools_call(self, params: JSONObject) -> JSONObject:
        name = params.get("name")
        if not isinstance(name, str) or not name:
            raise InvalidParams(
                "Invalid params: tools/call needs a tool name in params.name."
            )
        arguments = params.get("arguments")
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            raise ToolInputError(
                "Invalid params: arguments must be an object of named arguments.",
                error_code=ErrorCode.INVALID_ARGUMENT,
                tool=name if name in self.registry() else None,
            )
        structured = self.registry().dispatch(name, arguments, self.context)
        return dict(self.success_result(structured))

    # -- results ------------------------------------------------------------

    def success_result(self, structured: JSONObject) -> CallToolResult:
        result: CallToolResult = {
            "content": [{"type": "text", "text": to_json(structured)}],
            "structuredContent": structured,
            "isError": False,
        }
        return self._for_version(result)

    def error_result(self, exc: ToolExecutionError) -> JSONObject:
        payload: JSONObject = {
            "code": exc.error_code.value,
            "message": exc.message,
            "tool": exc.tool,
            "recoverable": exc.recoverable,
        }
        if exc.retry_after is not None:
            payload["retry_after"] = exc.retry_after
        if exc.fields is not None:
            payload["fields"] = exc.fields
        if exc.hint:
            payload["hint"] = exc.hint
        payload.update(exc.extra)
        structured = {"error": payload}
        result: CallToolResult = {
            "content": [{"type": "text", "text": to_json(structured)}],
            "structuredContent": structured,
            "isError": True,
        }
        return dict(self._for_version(result))

    def input_error_result(self, exc: ToolInputError) -> JSONObject:
        payload: JSONObject = {"message": exc.message, "recoverable": True}
        payload.update(_input_error_data(exc))
        structured = {"error": payload}
        result: CallToolResult = {
            "content": [{"type": "text", "text": to_json(structured)}],
            "structuredContent": structured,
            "isError": True,
        }
        return dict(self._for_version(result))

    def _for_version(self, result: CallToolResult) -> CallToolResult:
        if self.context.protocol_version == "2025-03-26":
            # structuredContent arrived in 2025-06-18.
            return {k: v for k, v in result.items() if k != "structuredContent"}  # type: ignore[return-value]
        return result


class _ModernHandler(_Handler):
    """One 2026-07-28 request: stateless, described by its ``_meta`` and headers.

    The request is checked before any method runs, in this order: its
    required ``_meta`` fields (-32602, HTTP 400), the headers mirrored from
    the body (-32020, HTTP 400), the version (-32022, HTTP 400), the method
    (-32601, HTTP 404). Results then gain ``resultType`` and the server's
    info in ``_meta``; ``tools/list`` and ``server/discover`` also carry the
    caching hints ``ttlMs`` and ``cacheScope``.
    """

    def __init__(
        self,
        context: CallContext,
        registry: Callable[[], ToolRegistry],
        headers: Mapping[str, str],
    ) -> None:
        super().__init__(context, registry)
        self.headers = headers
        self.methods = {
            "server/discover": self.discover,
            "tools/list": self.tools_list,
            "tools/call": self.tools_call,
        }

    def single(self, message: Any) -> Reply:
        if isinstance(message, list):
            exc = InvalidRequest(
                "Invalid request: batches are not supported in this protocol version."
            )
            return Reply(exc.http_status, _error_response(None, exc))
        try:
            method, request_id, params = _envelope(message)
        except JSONRPCError as exc:
            return Reply(400, _error_response(_readable_id(message), exc))
        if method is None:
            # 2026-07-28 streamable-http "Sending Messages": clients MUST
            # NOT send responses (the server sends no requests to answer).
            unexpected = InvalidRequest(
                "Invalid request: the server expects no responses."
            )
            return Reply(400, _error_response(_readable_id(message), unexpected))
        if request_id is _NOTIFICATION:
            return Reply(202, None)
        try:
            self.check_request(method, params)
        except JSONRPCError as exc:
            return Reply(exc.http_status, _error_response(request_id, exc))
        if method not in _MODERN_METHODS:
            # 2026-07-28 streamable-http "Protocol Version Header": an
            # unimplemented method is 404 (initialize and ping included).
            unknown = MethodNotFound(f"Method not found: {_safe_method(method)}.")
            return Reply(404, _error_response(request_id, unknown))
        response = self.respond(message)
        assert response is not None  # a request, not a notification
        return Reply(_status_of(response), response)

    def check_request(self, method: str, params: JSONObject) -> None:
        """Refuse a request whose ``_meta``, headers or version do not hold up."""
        meta = params.get("_meta")
        version = meta.get(MODERN_VERSION_META) if isinstance(meta, dict) else None
        capabilities = (
            meta.get(CLIENT_CAPABILITIES_META) if isinstance(meta, dict) else None
        )
        if not isinstance(version, str) or not isinstance(capabilities, dict):
            raise MissingRequestMetadata(
                "Invalid params: a 2026-07-28 request needs _meta with "
                f"{MODERN_VERSION_META} (a string) and {CLIENT_CAPABILITIES_META} "
                "(an object); clients of earlier versions send initialize first."
            )
        if self.headers.get("MCP-Protocol-Version") != version:
            raise HeaderMismatch(
                "Header mismatch: the MCP-Protocol-Version header must be present "
                f"and equal _meta {MODERN_VERSION_META}."
            )
        if self.headers.get("Mcp-Method") != method:
            raise HeaderMismatch(
                "Header mismatch: the Mcp-Method header must be present and equal "
                "the request's method."
            )
        if method == "tools/call":
            name = _header_value(self.headers.get("Mcp-Name"))
            if name is None or name != params.get("name"):
                raise HeaderMismatch(
                    "Header mismatch: the Mcp-Name header must be present and equal "
                    "params.name (Base64-encoded as =?base64?...?= when it is not "
                    "plain ASCII)."
                )
        if version not in MODERN_VERSIONS:
            raise _unsupported(version)

    def answer(
        self, method: str, request_id: Any, params: JSONObject
    ) -> JSONRPCMessage:
        response = super().answer(method, request_id, params)
        result = response.get("result")
        if isinstance(result, dict):
            result["resultType"] = "complete"
            result["_meta"] = {SERVER_INFO_META: _server_info(MODERN_VERSIONS[-1])}
        return response

    def discover(self, params: JSONObject) -> JSONObject:
        result: JSONObject = {
            "supportedVersions": [*SUPPORTED_VERSIONS, *MODERN_VERSIONS],
            "capabilities": {"tools": {"listChanged": False}},
        }
        if mcp_settings.SERVER_INSTRUCTIONS:
            result["instructions"] = str(mcp_settings.SERVER_INSTRUCTIONS)
        return _cacheable(result)

    def tools_list(self, params: JSONObject) -> JSONObject:
        # The list depends on the caller's permissions: private to it.
        return _cacheable(super().tools_list(params))


def _cacheable(result: JSONObject) -> JSONObject:
    """Add the 2026-07-28 caching hints (server/utilities/caching)."""
    result["ttlMs"] = int(mcp_settings.CACHE_TTL_MS)
    result["cacheScope"] = "private"
    return result


def _server_info(version: str) -> JSONObject:
    """The server's ``Implementation``: name, version and, after 2025-03-26, title."""
    info: JSONObject = {"name": str(mcp_settings.SERVER_NAME), "version": __version__}
    if mcp_settings.SERVER_TITLE and version != "2025-03-26":
        info["title"] = str(mcp_settings.SERVER_TITLE)
    return info


def _header_value(value: str | None) -> str | None:
    """A mirrored header's value, decoded from the Base64 sentinel form.

    2026-07-28 streamable-http "Value Encoding": ``=?base64?...?=`` carries
    the UTF-8 of a value that is not plain ASCII. ``None`` when absent or
    undecodable.
    """
    if value is None:
        return None
    match = _BASE64_SENTINEL.fullmatch(value)
    if match is None:
        return value
    try:
        return base64.b64decode(match.group(1), validate=True).decode("utf-8")
    except (ValueError, UnicodeDecodeError):
        return None


class _Notification:
    """Marks a message without an id."""


_NOTIFICATION: Any = _Notification()


def _parse(payload: bytes) -> Any:
    limit = int(mcp_settings.MAX_JSON_DEPTH)
    too_deep = InvalidRequest(
        f"Invalid request: the body nests arrays and objects deeper than {limit} levels."
    )
    try:
        # MCP messages are UTF-8 (a BOM is tolerated); json.loads would also
        # guess UTF-16/32 and let raw surrogate bytes through.
        message = json.loads(payload.decode("utf-8-sig"))
    except RecursionError as exc:
        raise too_deep from exc
    except (ValueError, UnicodeDecodeError) as exc:
        raise ParseError() from exc
    if _SURROGATE_ESCAPE.search(payload):
        # Valid JSON syntax, but a lone surrogate escape is not text: no
        # database, URL or reply could carry it. Pairs decode to one character
        # and pass.
        try:
            json.dumps(message, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError as exc:
            raise ParseError() from exc
    if payload.count(b"[") + payload.count(b"{") > limit and _nests_deeper(
        message, limit
    ):
        raise too_deep
    if not isinstance(message, dict | list):
        raise InvalidRequest("Invalid request: the body must be a JSON object.")
    return message


_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


def _nests_deeper(value: Any, limit: int) -> bool:
    """Whether arrays and objects nest deeper than ``limit`` levels in ``value``.

    Walks the parsed value without recursion; bodies deeper than Python's
    recursion limit never get here (``json.loads`` refuses them).
    """
    stack = [(value, 1)] if isinstance(value, dict | list) else []
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return True
        for child in node.values() if isinstance(node, dict) else node:
            if isinstance(child, dict | list):
                stack.append((child, depth + 1))
    return False


def _log_call(
    context: CallContext, params: JSONObject, response: JSONRPCMessage, seconds: float
) -> None:
    """Log one ``tools/call``: tool, user id, outcome code, duration; no values."""
    if not call_logger.isEnabledFor(logging.INFO):
        return
    name = params.get("name")
    tool = name if isinstance(name, str) and TOOL_NAME_PATTERN.fullmatch(name) else None
    user = getattr(context.user, "pk", None)
    outcome = _outcome(response)
    call_logger.info(
        "tools/call tool=%s user=%s outcome=%s duration_ms=%.1f",
        tool or "-",
        user if user is not None else "-",
        outcome,
        seconds * 1000,
        extra={
            "mcp_tool": tool,
            "mcp_user_id": user,
            "mcp_outcome": outcome,
            "mcp_duration_ms": round(seconds * 1000, 1),
        },
    )


def _outcome(response: Mapping[str, Any]) -> str:
    """``ok`` or the error code of a ``tools/call`` response."""
    error = response.get("error")
    if isinstance(error, Mapping):
        data = error.get("data")
        if isinstance(data, Mapping) and isinstance(data.get("code"), str):
            return str(data["code"])
        return str(error.get("code"))
    result = response.get("result")
    if isinstance(result, Mapping) and result.get("isError"):
        structured = result.get("structuredContent")
        if isinstance(structured, Mapping):
            inner = structured.get("error")
            if isinstance(inner, Mapping) and isinstance(inner.get("code"), str):
                return str(inner["code"])
        return "error"
    return "ok"


def _envelope(message: Any) -> tuple[str | None, Any, JSONObject]:
    """Check one message; return (method, id, params) or raise InvalidRequest."""
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        raise InvalidRequest('Invalid request: "jsonrpc" must be "2.0".')
    if "method" not in message:
        if "id" in message and ("result" in message or "error" in message):
            return None, message["id"], {}
        raise InvalidRequest("Invalid request: a request needs a method.")
    method = message["method"]
    if not isinstance(method, str) or not method:
        raise InvalidRequest("Invalid request: method must be a non-empty string.")
    params = message.get("params", {})
    if params is None:
        params = {}
    if "id" not in message:
        return method, _NOTIFICATION, params if isinstance(params, dict) else {}
    request_id = message["id"]
    if isinstance(request_id, bool) or not isinstance(request_id, str | int):
        # MCP 2025-11-25 basic/index "Requests": ids are strings or integers.
        raise InvalidRequest("Invalid request: id must be a string or an integer.")
    if method.startswith(_NOTIFICATION_PREFIX):
        raise InvalidRequest("Invalid request: notifications must not carry an id.")
    if not isinstance(params, dict):
        raise InvalidParams("Invalid params: params must be an object.")
    return method, request_id, params


def _readable_id(message: Any) -> Any:
    if isinstance(message, dict):
        request_id = message.get("id")
        if isinstance(request_id, str | int) and not isinstance(request_id, bool):
            return request_id
    return None


def _is_modern(message: Any, header_version: str | None) -> bool:
    """Whether ``message`` is a 2026-07-28 request (per-request ``_meta``).

    A dual-era server chooses per request (2026-07-28 basic/versioning): the
    version in ``_meta``, a modern ``MCP-Protocol-Version`` header or the
    modern-only ``server/discover`` method select the stateless revision;
    everything else is the handshake era.
    """
    if header_version in MODERN_VERSIONS:
        return True
    if not isinstance(message, dict):
        return False
    if message.get("method") == "server/discover":
        return True
    params = message.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    return isinstance(meta, dict) and MODERN_VERSION_META in meta


def _unsupported(requested: str | None) -> UnsupportedProtocolVersion:
    shown = (
        requested
        if requested and len(requested) <= 32 and requested.isprintable()
        else None
    )
    supported = [*SUPPORTED_VERSIONS, *MODERN_VERSIONS]
    return UnsupportedProtocolVersion(
        "Unsupported protocol version; this server speaks "
        + ", ".join(supported)
        + " (initialize first for the versions before 2026-07-28).",
        data={"supported": supported, "requested": shown},
    )


def _read_cursor(cursor: Any) -> int:
    if not isinstance(cursor, str):
        raise InvalidParams("Invalid params: cursor must be a string from nextCursor.")
    try:
        data = signing.loads(cursor, salt=_CURSOR_SALT)
        offset = int(data["o"])
    except (signing.BadSignature, KeyError, TypeError, ValueError) as exc:
        raise InvalidParams(
            "Invalid cursor: pass back a nextCursor value unchanged.",
            data={"code": ErrorCode.INVALID_TOKEN.value},
        ) from exc
    if offset < 0:
        raise InvalidParams(
            "Invalid cursor.", data={"code": ErrorCode.INVALID_TOKEN.value}
        )
    return offset


def _error_response(request_id: Any, exc: JSONRPCError) -> JSONRPCMessage:
    return {"jsonrpc": "2.0", "id": request_id, "error": error_object(exc)}


def _input_error_data(exc: ToolInputError) -> JSONObject:
    data: JSONObject = {"code": exc.error_code.value, "tool": exc.tool}
    if exc.field is not None:
        data["field"] = exc.field
    if exc.fields is not None:
        data["fields"] = exc.fields
    if exc.hint:
        data["hint"] = exc.hint
    data.update(exc.extra)
    return data


def _status_of(response: JSONRPCMessage) -> int:
    error = response.get("error")
    if not isinstance(error, dict):
        return 200
    code = error.get("code")
    for exc_class in (
        ParseError,
        InvalidRequest,
        InternalError,
        UnsupportedProtocolVersion,
    ):
        if code == exc_class.code:
            return exc_class.http_status
    return 200


def _safe_method(method: str) -> str:
    return (
        method
        if len(method) <= 64 and method.replace("/", "").replace("_", "").isalnum()
        else "<method>"
    )
