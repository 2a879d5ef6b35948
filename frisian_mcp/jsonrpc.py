"""JSON-RPC 2.0 and the MCP methods: the only place that writes errors to the wire.

:func:`handle` takes a raw body and returns a :class:`Reply`. Both protocol
eras are served on one URL, chosen per request (2026-07-28 basic/versioning
"Dual-era"); what differs between revisions is data in :data:`REVISIONS`:

- the handshake era (2025-03-26, 2025-06-18, 2025-11-25): ``initialize``
  negotiates the version, then ``ping``, ``tools/list``, ``tools/call``;
- the stateless 2026-07-28 revision: every request carries its version and
  capabilities in ``_meta`` and mirrors method, tool name and version into
  headers. It is checked in this order: ``_meta`` (-32602), headers
  (-32020), version (-32022), method (-32601, HTTP 404).

``JSONRPCError`` becomes its error object, ``ToolInputError`` -32602 with
its payload in ``error.data``, ``ToolExecutionError`` an ``isError`` result,
and anything else -32603 with a correlation id (logged, never shown).
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

from frisian_mcp import __version__, arguments
from frisian_mcp.conf import mcp_settings
from frisian_mcp.discovery import TOOL_NAME_PATTERN
from frisian_mcp.exceptions import (
    HeaderMismatch,
    InternalError,
    InvalidParams,
    InvalidRequest,
    JSONRPCError,
    MethodNotFound,
    ParseError,
    ToolExecutionError,
    ToolInputError,
    UnsupportedProtocolVersion,
)
from frisian_mcp.registry import ToolRegistry, get_registry
from frisian_mcp.types import CallContext, ErrorCode, JSONObject

__all__ = [
    "MODERN_VERSIONS",
    "REVISIONS",
    "SUPPORTED_VERSIONS",
    "Reply",
    "Revision",
    "error_body",
    "handle",
    "internal_error",
]

logger = logging.getLogger("frisian_mcp")
#: One line per ``tools/call``: tool, user id, outcome code and duration.
call_logger = logging.getLogger("frisian_mcp.calls")

MODERN_VERSION_META = "io.modelcontextprotocol/protocolVersion"
CLIENT_CAPABILITIES_META = "io.modelcontextprotocol/clientCapabilities"
SERVER_INFO_META = "io.modelcontextprotocol/serverInfo"
_HANDSHAKE = frozenset({"initialize", "ping", "tools/list", "tools/call"})


@dataclass(frozen=True)
class Revision:
    """What one protocol revision changes on the wire.

    ``batches``: JSON-RPC batches (2025-03-26 only); ``structured``: tool
    titles, ``outputSchema`` and ``structuredContent`` (from 2025-06-18);
    ``stateless``: per-request ``_meta`` and mirrored headers, results with
    ``resultType`` and caching hints (2026-07-28).
    """

    methods: frozenset[str]
    batches: bool = False
    structured: bool = True
    stateless: bool = False


REVISIONS: dict[str, Revision] = {
    "2025-03-26": Revision(_HANDSHAKE, batches=True, structured=False),
    "2025-06-18": Revision(_HANDSHAKE),
    "2025-11-25": Revision(_HANDSHAKE),
    "2026-07-28": Revision(
        frozenset({"server/discover", "tools/list", "tools/call"}), stateless=True
    ),
}
#: Handshake-era versions, oldest first; the last is offered by default.
SUPPORTED_VERSIONS = tuple(v for v, r in REVISIONS.items() if not r.stateless)
#: Per-request (stateless) versions.
MODERN_VERSIONS = tuple(v for v, r in REVISIONS.items() if r.stateless)
#: Assumed without an MCP-Protocol-Version header (2025-11-25 basic/transports).
ASSUMED_VERSION = "2025-03-26"


@dataclass(frozen=True)
class Reply:
    """An HTTP status and a JSON body (``None``: 202 Accepted, no body).

    ``modern``: the answer to a 2026-07-28 request, whose SSE streams are
    not resumable and so carry no event ids.
    """

    status: int
    body: JSONObject | list[JSONObject] | None
    modern: bool = False


def handle(
    payload: bytes,
    context: CallContext,
    *,
    headers: Mapping[str, str] | None = None,
    header_version: str | None = None,
    registry: Callable[[], ToolRegistry] = get_registry,
) -> Reply:
    """Answer one POSTed body: a message, or a batch under 2025-03-26."""
    headers = headers or {}
    header_version = header_version or headers.get("MCP-Protocol-Version")
    try:
        message = _parse(payload)
        version = _version(message, header_version)
    except JSONRPCError as exc:
        request_id = _readable_id(message) if "message" in locals() else None
        return Reply(exc.http_status, error_body(request_id, exc))
    context.protocol_version = version
    exchange = _Exchange(context, registry, headers, REVISIONS[version])
    if isinstance(message, list):
        return exchange.batch(message)
    status, body = exchange.message(message)
    return Reply(status, body, modern=exchange.revision.stateless)


def error_body(request_id: Any, exc: JSONRPCError) -> JSONObject:
    """A JSON-RPC error response for ``exc``."""
    error: JSONObject = {"code": exc.code, "message": exc.message}
    if exc.data is not None:
        error["data"] = exc.data
    return {"jsonrpc": "2.0", "id": request_id, "error": error}


def internal_error(where: str) -> InternalError:
    """Log the exception being handled under a correlation id; return -32603."""
    correlation = uuid.uuid4().hex[:16]
    logger.exception("Unhandled error %s (correlation id %s)", where, correlation)
    return InternalError(
        f"Internal error (correlation id {correlation}).",
        data={"code": ErrorCode.INTERNAL_ERROR.value, "correlation_id": correlation},
    )


class _Exchange:
    """One request body answered under one revision."""

    def __init__(
        self,
        context: CallContext,
        registry: Callable[[], ToolRegistry],
        headers: Mapping[str, str],
        revision: Revision,
    ) -> None:
        self.context = context
        self.registry = registry
        self.headers = headers
        self.revision = revision

    def batch(self, messages: list[Any]) -> Reply:
        # Batches existed only in 2025-03-26 (basic/transports 2025-06-18).
        problem = None
        if not self.revision.batches:
            problem = "batches are not supported in this protocol version."
        elif not messages:
            problem = "batches are not supported when empty."
        elif len(messages) > mcp_settings.MAX_BATCH_MESSAGES:
            problem = (
                f"a batch holds at most {mcp_settings.MAX_BATCH_MESSAGES} messages."
            )
        elif any(
            isinstance(m, dict) and m.get("method") == "initialize" for m in messages
        ):
            problem = "initialize must not be part of a batch."
        if problem is not None:
            exc = InvalidRequest(f"Invalid request: {problem}")
            return Reply(exc.http_status, error_body(None, exc))
        answers = [self.message(m)[1] for m in messages]
        responses = [a for a in answers if a is not None]
        return Reply(200, responses) if responses else Reply(202, None)

    def message(self, message: Any) -> tuple[int, JSONObject | None]:
        """HTTP status and response for one message (``None``: nothing to say)."""
        stateless = self.revision.stateless
        try:
            method, request_id, params = _envelope(message)
        except JSONRPCError as exc:
            return (400 if stateless else exc.http_status), error_body(
                _readable_id(message), exc
            )
        if request_id is _NOTIFICATION or (method is None and not stateless):
            # Notifications and client responses need no answer (JSON-RPC
            # 2.0 §4.1); a stateless server sends no requests to answer.
            return 202, None
        try:
            if method is None:
                raise InvalidRequest(
                    "Invalid request: the server expects no responses."
                )
            if stateless:
                self.check_modern(method, params)
            if method not in self.revision.methods:
                raise MethodNotFound(
                    f"Method not found: {_safe_method(method)}.",
                    http_status=404 if stateless else 0,
                )
        except JSONRPCError as exc:
            return exc.http_status, error_body(request_id, exc)
        started = time.perf_counter()
        status, response = self.answer(method, request_id, params)
        if method == "tools/call":
            _log_call(self.context, params, response, time.perf_counter() - started)
        return status, response

    def check_modern(self, method: str, params: JSONObject) -> None:
        """Refuse a 2026-07-28 request whose ``_meta``, headers or version fail."""
        meta = params.get("_meta")
        meta = meta if isinstance(meta, dict) else {}
        version = meta.get(MODERN_VERSION_META)
        if not isinstance(version, str) or not isinstance(
            meta.get(CLIENT_CAPABILITIES_META), dict
        ):
            raise InvalidParams(
                "Invalid params: a 2026-07-28 request needs _meta with "
                f"{MODERN_VERSION_META} (a string) and {CLIENT_CAPABILITIES_META} "
                "(an object); clients of earlier versions send initialize first.",
                http_status=400,
            )
        mirrored: list[tuple[str, object]] = [
            ("MCP-Protocol-Version", version),
            ("Mcp-Method", method),
        ]
        if method == "tools/call":
            mirrored.append(("Mcp-Name", params.get("name")))
        for header, expected in mirrored:
            if _header_value(self.headers.get(header)) != expected:
                raise HeaderMismatch(
                    f"Header mismatch: the {header} header must be present and "
                    "equal the request body's value (Base64-encoded as "
                    "=?base64?...?= when it is not plain ASCII)."
                )
        if version not in MODERN_VERSIONS:
            raise _unsupported(version)

    def answer(
        self, method: str, request_id: Any, params: JSONObject
    ) -> tuple[int, JSONObject]:
        """Run one method: its result, or its error, with the HTTP status."""
        try:
            result = getattr(self, method.replace("/", "_"))(params)
        except ToolExecutionError as exc:
            result = self.tool_result(exc.payload(), is_error=True)
        except ToolInputError as exc:
            if (
                mcp_settings.INPUT_ERROR_STYLE == "tool_result"
                and method == "tools/call"
            ):
                # 2025-11-25 server/tools "Error Handling" (SEP-1303): input
                # errors as results the model can read.
                result = self.tool_result(exc.payload(), is_error=True)
            else:
                data = {k: v for k, v in exc.payload().items() if k != "message"}
                wire = InvalidParams(exc.message, data=data)
                return 200, error_body(request_id, wire)
        except JSONRPCError as exc:
            return exc.http_status, error_body(request_id, exc)
        except Exception:  # the last resort: logged, -32603
            internal = internal_error(f"in {_safe_method(method)}")
            return internal.http_status, error_body(request_id, internal)
        if self.revision.stateless:
            result["resultType"] = "complete"
            result["_meta"] = {SERVER_INFO_META: self.server_info()}
        return 200, {"jsonrpc": "2.0", "id": request_id, "result": result}

    # -- methods (named after the JSON-RPC method, "/" as "_") ---------------

    def initialize(self, params: JSONObject) -> JSONObject:
        requested = params.get("protocolVersion")
        if not isinstance(requested, str):
            raise InvalidParams("Invalid params: protocolVersion must be a string.")
        # 2025-11-25 basic/lifecycle "Version Negotiation": echo a supported
        # version, else offer the latest.
        version = (
            requested if requested in SUPPORTED_VERSIONS else SUPPORTED_VERSIONS[-1]
        )
        self.context.protocol_version = version
        self.revision = REVISIONS[version]
        result: JSONObject = {
            "protocolVersion": version,
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": self.server_info(),
        }
        if mcp_settings.SERVER_INSTRUCTIONS:
            result["instructions"] = mcp_settings.SERVER_INSTRUCTIONS
        return result

    def ping(self, params: JSONObject) -> JSONObject:
        return {}

    def server_discover(self, params: JSONObject) -> JSONObject:
        result: JSONObject = {
            "supportedVersions": list(REVISIONS),
            "capabilities": {"tools": {"listChanged": False}},
        }
        if mcp_settings.SERVER_INSTRUCTIONS:
            result["instructions"] = mcp_settings.SERVER_INSTRUCTIONS
        return self.cacheable(result)

    def tools_list(self, params: JSONObject) -> JSONObject:
        offset = 0
        if params.get("cursor") is not None:
            offset = _read_cursor(params["cursor"])
        size = max(1, mcp_settings.TOOLS_LIST_PAGE_SIZE)
        entries, following = self.registry().page(offset, size, self.context)
        tools: list[Any] = list(entries)
        if not self.revision.structured:
            tools = [
                {k: v for k, v in d.items() if k not in ("title", "outputSchema")}
                for d in tools
            ]
        result: JSONObject = {"tools": tools}
        if following is not None:
            result["nextCursor"] = arguments.sign(_CURSOR, {"o": following})
        return self.cacheable(result)

    def tools_call(self, params: JSONObject) -> JSONObject:
        name = params.get("name")
        if not isinstance(name, str) or not name:
            raise InvalidParams(
                "Invalid params: tools/call needs a tool name in params.name."
            )
        args = params.get("arguments")
        if args is None:
            args = {}
        if not isinstance(args, dict):
            raise ToolInputError(
                "Invalid params: arguments must be an object of named arguments.",
                code=ErrorCode.INVALID_ARGUMENT,
                tool=name if name in self.registry() else None,
            )
        structured = self.registry().dispatch(name, args, self.context)
        return self.tool_result(structured, is_error=False)

    # -- shaping -------------------------------------------------------------

    def tool_result(self, structured: JSONObject, *, is_error: bool) -> JSONObject:
        """A ``CallToolResult``: the JSON as text, and as structure from 2025-06-18."""
        if is_error:
            structured = {"error": structured}
        text = json.dumps(structured, ensure_ascii=False, separators=(",", ":"))
        result: JSONObject = {"content": [{"type": "text", "text": text}]}
        if self.revision.structured:
            result["structuredContent"] = structured
        result["isError"] = is_error
        return result

    def cacheable(self, result: JSONObject) -> JSONObject:
        """Add 2026-07-28 caching hints (server/utilities/caching): per caller."""
        if self.revision.stateless:
            result["ttlMs"] = mcp_settings.CACHE_TTL_MS
            result["cacheScope"] = "private"
        return result

    def server_info(self) -> JSONObject:
        info: JSONObject = {"name": mcp_settings.SERVER_NAME, "version": __version__}
        if mcp_settings.SERVER_TITLE and self.revision.structured:
            info["title"] = mcp_settings.SERVER_TITLE
        return info


_CURSOR = "tools_list_cursor"
_BASE64_SENTINEL = re.compile(r"=\?base64\?([A-Za-z0-9+/]*={0,2})\?=")
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


class _Notification:
    """Marks a message without an id."""


_NOTIFICATION: Any = _Notification()


def _parse(payload: bytes) -> Any:
    """The decoded body: UTF-8 JSON, an object or array, not nested too deep."""
    limit = mcp_settings.MAX_JSON_DEPTH
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
        # Valid syntax, but a lone surrogate escape is not text: no database
        # or reply could carry it. Pairs decode to one character and pass.
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


def _nests_deeper(value: Any, limit: int) -> bool:
    """Whether arrays and objects nest deeper than ``limit`` levels (no recursion)."""
    stack = [(value, 1)] if isinstance(value, dict | list) else []
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return True
        for child in node.values() if isinstance(node, dict) else node:
            if isinstance(child, dict | list):
                stack.append((child, depth + 1))
    return False


def _version(message: Any, header_version: str | None) -> str:
    """The revision a request speaks (2026-07-28 basic/versioning "Dual-era").

    A modern ``MCP-Protocol-Version`` header, ``_meta`` with a version or the
    modern-only ``server/discover`` select the stateless revision; anything
    else is the handshake era, 2025-03-26 without a header.
    """
    params = message.get("params") if isinstance(message, dict) else None
    meta = params.get("_meta") if isinstance(params, dict) else None
    if (
        header_version in MODERN_VERSIONS
        or (isinstance(message, dict) and message.get("method") == "server/discover")
        or (isinstance(meta, dict) and MODERN_VERSION_META in meta)
    ):
        return MODERN_VERSIONS[-1]
    if header_version is None:
        return ASSUMED_VERSION
    if header_version not in SUPPORTED_VERSIONS:
        raise _unsupported(header_version)
    return header_version


def _envelope(message: Any) -> tuple[str | None, Any, JSONObject]:
    """Check one message; return (method, id, params) or raise."""
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        raise InvalidRequest('Invalid request: "jsonrpc" must be "2.0".')
    if "method" not in message:
        if "id" in message and ("result" in message or "error" in message):
            return None, _readable_id(message), {}
        raise InvalidRequest("Invalid request: a request needs a method.")
    method = message["method"]
    if not isinstance(method, str) or not method:
        raise InvalidRequest("Invalid request: method must be a non-empty string.")
    params = message.get("params")
    params = {} if params is None else params
    if "id" not in message:
        return method, _NOTIFICATION, params if isinstance(params, dict) else {}
    request_id = message["id"]
    if isinstance(request_id, bool) or not isinstance(request_id, str | int):
        # 2025-11-25 basic/index "Requests": ids are strings or integers.
        raise InvalidRequest("Invalid request: id must be a string or an integer.")
    if method.startswith("notifications/"):
        raise InvalidRequest("Invalid request: notifications must not carry an id.")
    if not isinstance(params, dict):
        raise InvalidParams("Invalid params: params must be an object.")
    return method, request_id, params


def _readable_id(message: Any) -> Any:
    request_id = message.get("id") if isinstance(message, dict) else None
    if isinstance(request_id, str | int) and not isinstance(request_id, bool):
        return request_id
    return None


def _header_value(value: str | None) -> str | None:
    """A mirrored header's value, decoded from ``=?base64?...?=`` when so sent.

    2026-07-28 streamable-http "Value Encoding". ``None`` when absent or
    undecodable.
    """
    match = _BASE64_SENTINEL.fullmatch(value) if value is not None else None
    if match is None:
        return value
    try:
        return base64.b64decode(match.group(1), validate=True).decode("utf-8")
    except (ValueError, UnicodeDecodeError):
        return None


def _unsupported(requested: str) -> UnsupportedProtocolVersion:
    shown = requested if len(requested) <= 32 and requested.isprintable() else None
    return UnsupportedProtocolVersion(
        "Unsupported protocol version; this server speaks "
        + ", ".join(REVISIONS)
        + " (initialize first for the versions before 2026-07-28).",
        data={"supported": list(REVISIONS), "requested": shown},
    )


def _read_cursor(cursor: object) -> int:
    if not isinstance(cursor, str):
        raise InvalidParams("Invalid params: cursor must be a string from nextCursor.")
    try:
        offset = arguments.unsign(_CURSOR, cursor)["o"]
    except (arguments.BadToken, KeyError) as exc:
        offset = exc
    if not isinstance(offset, int) or isinstance(offset, bool) or offset < 0:
        raise InvalidParams(
            "Invalid cursor: pass back a nextCursor value unchanged.",
            data={"code": ErrorCode.INVALID_TOKEN.value},
        )
    return offset


def _log_call(
    context: CallContext, params: JSONObject, response: JSONObject, seconds: float
) -> None:
    """Log one ``tools/call``: tool, user id, outcome code, duration; no values."""
    if not call_logger.isEnabledFor(logging.INFO):
        return
    name = params.get("name")
    tool = name if isinstance(name, str) and TOOL_NAME_PATTERN.fullmatch(name) else None
    user = getattr(context.user, "pk", None)
    outcome = _outcome(response)
    milliseconds = round(seconds * 1000, 1)
    call_logger.info(
        "tools/call tool=%s user=%s outcome=%s duration_ms=%.1f",
        tool or "-",
        user if user is not None else "-",
        outcome,
        milliseconds,
        extra={
            "mcp_tool": tool,
            "mcp_user_id": user,
            "mcp_outcome": outcome,
            "mcp_duration_ms": milliseconds,
        },
    )


def _outcome(response: JSONObject) -> str:
    """``ok`` or the error code of a ``tools/call`` response."""
    error = response.get("error")
    if isinstance(error, dict):
        data = error.get("data")
        return str(
            data["code"]
            if isinstance(data, dict) and "code" in data
            else error.get("code")
        )
    result = response.get("result", {})
    if not result.get("isError"):
        return "ok"
    payload = json.loads(result["content"][0]["text"]).get("error", {})
    return str(payload.get("code", "error"))


def _safe_method(method: str) -> str:
    plain = method.replace("/", "").replace("_", "")
    return (
        method
        if len(method) <= 64 and plain.isascii() and plain.isalnum()
        else "<method>"
    )
