"""JSON-RPC 2.0 and the MCP methods: the only place that writes errors to the wire.

:func:`handle` takes a raw body and returns a :class:`Reply`: the body is
parsed once (:mod:`~frisian_mcp.parsers`), its revision chosen
(:mod:`~frisian_mcp.revisions`) and each message answered by one handler
whose differences per revision are data. docs/errors.md maps each exception
to what goes on the wire.
"""

from __future__ import annotations

import logging
import sys
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

# completion and resources register methods of their own (methods.py).
from frisian_mcp import __version__, completion, hooks, methods, resources, tokens  # noqa: F401
from frisian_mcp.conf import mcp_settings
from frisian_mcp.exceptions import (
    InputRequired,
    InternalError,
    InvalidParams,
    InvalidRequest,
    JSONRPCError,
    MethodNotFound,
    ToolError,
    ToolInputError,
)
from frisian_mcp.invocation import release_if_lost
from frisian_mcp.outcomes import unavailable
from frisian_mcp.parsers import (
    NOTIFICATION,
    BodyError,
    envelope,
    parse,
    readable_id,
    safe_method,
)
from frisian_mcp.registry import ToolRegistry, get_registry
from frisian_mcp.replies import tool_result
from frisian_mcp.revisions import (
    CLIENT_CAPABILITIES_META,
    REVISIONS,
    SERVER_INFO_META,
    SUPPORTED_VERSIONS,
    Revision,
    check_modern,
    select,
)
from frisian_mcp.types import CallContext, ErrorCode, JSONObject

__all__ = ["Reply", "error_body", "handle", "internal_error", "last_resort"]

logger = logging.getLogger("frisian_mcp")
_CLIENT_INFO_META = "io.modelcontextprotocol/clientInfo"


@dataclass(frozen=True)
class Reply:
    """An HTTP status and a JSON body (``None``: 202 Accepted, no body).

    ``modern``: a 2026-07-28 answer (its SSE streams carry no event ids);
    ``headers``: what a single message's error adds (``WWW-Authenticate``).
    """

    status: int
    body: JSONObject | list[JSONObject] | None
    modern: bool = False
    headers: Mapping[str, str] = field(default_factory=dict)


def handle(
    payload: bytes | Any,
    context: CallContext,
    *,
    headers: Mapping[str, str] | None = None,
    header_version: str | None = None,
    registry: Callable[[], ToolRegistry] = get_registry,
) -> Reply:
    """Answer one body, as bytes or decoded: a message, or a 2025-03-26 batch.

    ``headers``: the HTTP request's; ``None`` for a transport without
    (stdio), where 2026-07-28's mirrored headers do not apply.
    """
    if headers is not None:
        header_version = header_version or headers.get("MCP-Protocol-Version")
    context.exchange.context = context
    try:
        message = payload
        if isinstance(payload, bytes):
            message = parse(payload, mcp_settings.MAX_JSON_DEPTH)
    except BodyError as refused:
        context.exchange.outcome = refused.error.outcome
        return Reply(
            refused.error.http_status, error_body(refused.request_id, refused.error)
        )
    try:
        version = select(message, header_version)
    except JSONRPCError as exc:
        context.exchange.outcome = exc.outcome
        return Reply(exc.http_status, error_body(readable_id(message), exc))
    context.protocol_version = version
    exchange = _Exchange(context, registry, headers, REVISIONS[version])
    if isinstance(message, list):
        return exchange.batch(message)
    status, body = exchange.message(message)
    return Reply(
        status, body, modern=exchange.revision.stateless, headers=exchange.sent
    )


def error_body(request_id: Any, exc: JSONRPCError) -> JSONObject:
    """A JSON-RPC error response for ``exc``."""
    error: JSONObject = {"code": exc.code, "message": exc.message}
    if exc.data is not None:
        error["data"] = exc.data
    return {"jsonrpc": "2.0", "id": request_id, "error": error}


def last_resort(
    run: Callable[[], Any], answer: Callable[[InternalError], Any], where: str
) -> Any:
    """``run()``; anything unexpected is logged and ``answer``-ed as -32603.

    The endpoint's one catch-all besides the per-message one below: no
    failure may reach Django's HTML error page (settings and source under
    ``DEBUG``).
    """
    try:
        return run()
    except Exception:  # the last resort: logged, -32603
        return answer(internal_error(where))


def internal_error(where: str) -> InternalError:
    """Log the exception being handled under a correlation id; return -32603.

    A lost database connection is not logged as a failure: it is -32603
    with code ``unavailable`` and HTTP 503, which the caller may retry.
    """
    if release_if_lost(sys.exception()):
        data = unavailable(None).payload()
        message, _ = data.pop("message"), data.pop("tool")
        return InternalError(message, data=data, http_status=503)
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
        headers: Mapping[str, str] | None,
        revision: Revision,
    ) -> None:
        self.context = context
        self.registry = registry
        self.headers = headers
        self.revision = revision
        #: HTTP headers the answer's error asks for (one message only).
        self.sent: Mapping[str, str] = {}

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
        self.context.exchange.method = "batch"
        if problem is not None:
            exc = InvalidRequest(f"Invalid request: {problem}")
            self.note(exc)
            return Reply(exc.http_status, error_body(None, exc))
        answers = [self.message(m)[1] for m in messages]
        responses = [a for a in answers if a is not None]
        return Reply(200, responses) if responses else Reply(202, None)

    def message(self, message: Any) -> tuple[int, JSONObject | None]:
        """HTTP status and response for one message (``None``: nothing to say)."""
        stateless, exchange = self.revision.stateless, self.context.exchange
        try:
            method, request_id, params = envelope(message)
        except JSONRPCError as exc:
            self.note(exc)
            return (400 if stateless else exc.http_status), error_body(
                readable_id(message), exc
            )
        if exchange.method != "batch":
            exchange.method = safe_method(method) if method else None
            exchange.request_id = None if request_id is NOTIFICATION else request_id
        if request_id is NOTIFICATION or (method is None and not stateless):
            # Notifications and client responses need no answer (JSON-RPC
            # 2.0 §4.1); a stateless server sends no requests to answer.
            return 202, None
        try:
            if method is None:
                raise InvalidRequest(
                    "Invalid request: the server expects no responses."
                )
            if stateless:
                check_modern(method, params, self.headers)
                meta = params["_meta"]
                self.client(meta.get(_CLIENT_INFO_META), meta[CLIENT_CAPABILITIES_META])
            if method not in self.revision.methods or not (
                hasattr(self, method.replace("/", "_"))
                or methods.served(method, self.registry)
            ):
                raise MethodNotFound(
                    f"Method not found: {safe_method(method)}.",
                    http_status=404 if stateless else 0,
                )
        except JSONRPCError as exc:
            self.note(exc)
            return exc.http_status, error_body(request_id, exc)
        return self.answer(method, request_id, params)

    def answer(
        self, method: str, request_id: Any, params: JSONObject
    ) -> tuple[int, JSONObject]:
        """Run one method: its result, or its error, with the HTTP status."""
        try:
            own = getattr(self, method.replace("/", "_"), None)
            result = own(params) if own else methods.METHODS[method].run(self, params)
        except ToolError as exc:
            self.note(exc)
            # 2025-11-25 server/tools "Error Handling" (SEP-1303): input
            # errors may be results the model can read.
            if isinstance(exc, ToolInputError) and not (
                mcp_settings.INPUT_ERROR_STYLE == "tool_result"
                and method == "tools/call"
                and exc.code != ErrorCode.UNKNOWN_TOOL
            ):
                data = {k: v for k, v in exc.payload().items() if k != "message"}
                wire = InvalidParams(exc.message, data=data)
                return 200, error_body(request_id, wire)
            result = self.tool_result(exc.payload(), is_error=True)
        except InputRequired as exc:
            # 2026-07-28 basic/patterns/mrtr: the client answers and retries.
            self.note("input_required")
            result = {"resultType": "input_required", "requestState": exc.request_state}
            result["inputRequests"] = exc.input_requests
        except JSONRPCError as exc:
            self.sent = exc.headers
            self.note(exc)
            return exc.http_status, error_body(request_id, exc)
        except Exception:  # the last resort: logged, -32603
            internal = internal_error(f"in {safe_method(method)}")
            self.note(internal)
            return internal.http_status, error_body(request_id, internal)
        if self.revision.stateless:
            result.setdefault("resultType", "complete")
            result["_meta"] = {SERVER_INFO_META: self.server_info()}
        return 200, {"jsonrpc": "2.0", "id": request_id, "result": result}

    def note(self, failure: JSONRPCError | ToolError | str) -> None:
        """Keep a request's first failure as the audit's ``outcome``."""
        exchange = self.context.exchange
        if exchange.outcome is None:
            exchange.outcome = failure if isinstance(failure, str) else failure.outcome

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
        self.client(params.get("clientInfo"), params.get("capabilities"))
        self.revision = REVISIONS[version]
        result: JSONObject = {
            "protocolVersion": version,
            "capabilities": methods.capabilities(self.registry),
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
            "capabilities": methods.capabilities(self.registry),
        }
        if mcp_settings.SERVER_INSTRUCTIONS:
            result["instructions"] = mcp_settings.SERVER_INSTRUCTIONS
        return self.cacheable(result)

    def tools_list(self, params: JSONObject) -> JSONObject:
        offset = 0
        if params.get("cursor") is not None:
            offset = tokens.read_cursor(_CURSOR, params["cursor"])
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
            result["nextCursor"] = tokens.cursor(_CURSOR, following)
        return self.cacheable(result)

    def tools_call(self, params: JSONObject) -> JSONObject:
        name = params.get("name")
        if not isinstance(name, str) or not name:
            raise InvalidParams(
                "Invalid params: tools/call needs a tool name in params.name."
            )
        args = {} if params.get("arguments") is None else params["arguments"]
        registry, context = self.registry(), self.context
        if registry.knows(name):
            context.exchange.tool = name
        if not isinstance(args, dict):
            raise ToolInputError(
                "Invalid params: arguments must be an object of named arguments.",
                code=ErrorCode.INVALID_ARGUMENT,
                tool=name if name in registry else None,
            )
        context.input_responses = params.get("inputResponses")
        context.request_state = params.get("requestState")
        structured = registry.dispatch(name, args, context)
        if isinstance(structured, hooks.ContentResult):  # a file (ADR 0027)
            return {**structured, "isError": False}
        return self.tool_result(structured, is_error=False)

    def tool_result(self, structured: JSONObject, *, is_error: bool) -> JSONObject:
        """A ``CallToolResult``: the JSON as text, and as structure from
        2025-06-18; an error of a tool listed with an outputSchema as text
        only, which no client checks against that schema (ADR 0038)."""
        with_structure, tool = self.revision.structured, self.context.exchange.tool
        if is_error and with_structure and tool is not None:
            with_structure = not self.registry().lists_output_schema(tool)
        return tool_result(structured, is_error=is_error, with_structure=with_structure)

    def cacheable(self, result: JSONObject) -> JSONObject:
        """Add 2026-07-28 caching hints (server/utilities/caching): per caller."""
        if self.revision.stateless:
            result["ttlMs"] = mcp_settings.CACHE_TTL_MS
            result["cacheScope"] = "private"
        return result

    def client(self, info: object, capabilities: object) -> None:
        """Keep what the client says of itself (initialize, 2026-07-28 _meta)."""
        info = info if isinstance(info, dict) else {}
        capabilities = capabilities if isinstance(capabilities, dict) else {}
        self.context.client = {"info": info, "capabilities": capabilities}

    def server_info(self) -> JSONObject:
        info: JSONObject = {"name": mcp_settings.SERVER_NAME, "version": __version__}
        if mcp_settings.SERVER_TITLE and self.revision.structured:
            info["title"] = mcp_settings.SERVER_TITLE
        return info


_CURSOR = "tools_list_cursor"
