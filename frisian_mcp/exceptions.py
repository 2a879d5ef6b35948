"""The exception tree; tool errors render their own payload.

::

    FrisianMCPError
    ├── ConfigurationError (also ImproperlyConfigured)  bad setting or backend
    ├── SchemaError        a serializer field has no mapping (policy RAISE)
    ├── HostError          the host's code raised while frisian_mcp inspected
    │                      it (:func:`host_call`, ADR 0015)
    ├── InputRequired      a call hook needs the client's input first: a
    │                      2026-07-28 ``input_required`` result (MRTR)
    ├── BadToken           a token malformed, tampered with, expired or foreign
    │                      (raised by ``tokens``, told to the caller as one of
    │                      the errors below)
    ├── BodyError          a body refused once decoded: its JSONRPCError and
    │                      the id it carried (``parsers``)
    ├── references._LookupProblem  a lookup object naming no row, or several
    ├── contrib.oauth TokenRejected  a bearer token refused (-> 401)
    ├── JSONRPCError       -> a JSON-RPC error object: ParseError -32700,
    │                      InvalidRequest -32600 (Forbidden: a credential's
    │                      grant refuses a tool), MethodNotFound -32601,
    │                      InvalidParams -32602, InternalError -32603,
    │                      HeaderMismatch -32020, UnsupportedProtocolVersion -32022,
    │                      ResourceNotFound -32002 (2026-07-28: -32602)
    │   └── RequestCancelled  the client closed a 2026-07-28 stream: the call
    │                      stops and rolls back, and nothing is sent
    └── ToolError          a tools/call failure with an ErrorCode payload
        ├── ToolInputError     the arguments: -32602 with error.data
        └── ToolExecutionError the action ran and failed: an isError result
            └── outcomes.ToolRefused  the view refused the caller at the door

Only ``frisian_mcp.jsonrpc`` writes them to the wire. No message holds a
caller-supplied value; key names appear only through :func:`plain_name`.
:func:`host_call` is the one broad catch around the host's code.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any, ClassVar, TypeVar

from django.core.exceptions import ImproperlyConfigured

from frisian_mcp.types import ErrorCode, JSONObject
from frisian_mcp.types import FieldError as FieldProblem

__all__ = [
    "LIST_LIMIT",
    "BadToken",
    "BodyError",
    "ConfigurationError",
    "Forbidden",
    "FrisianMCPError",
    "HeaderMismatch",
    "HostError",
    "InputRequired",
    "InternalError",
    "InvalidParams",
    "InvalidRequest",
    "JSONRPCError",
    "MethodNotFound",
    "ParseError",
    "RequestCancelled",
    "ResourceNotFound",
    "SchemaError",
    "ToolError",
    "ToolExecutionError",
    "ToolInputError",
    "UnsupportedProtocolVersion",
    "few",
    "host_call",
    "plain_name",
]

_T = TypeVar("_T")

_PLAIN_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")
_DIGIT_LETTER = re.compile(r"[0-9][A-Za-z]")
#: Names a message lists at most; it says how many more there are.
LIST_LIMIT = 20


def plain_name(key: object) -> str | None:
    """``key`` if a caller-chosen name is safe to repeat in an error, else None.

    An identifier shaped like a name: letters, underscores, and digits that
    end a part (``address2``, ``ipv4_host``). A digit followed by a letter
    (``k7Mq``) is the shape of a token, a hash or an id, never repeated.
    """
    if isinstance(key, str) and _PLAIN_NAME.match(key):
        return None if _DIGIT_LETTER.search(key) else key
    return None


def few(names: Iterable[object], limit: int = LIST_LIMIT) -> str:
    """``names`` for a message: the first ``limit``, then how many more."""
    listed = [str(name) for name in names]
    shown = ", ".join(listed[:limit])
    return shown + (f" and {len(listed) - limit} more" if len(listed) > limit else "")


class FrisianMCPError(Exception):
    """Base class of every exception frisian_mcp raises on purpose."""


class ConfigurationError(FrisianMCPError, ImproperlyConfigured):
    """A setting, backend import string or viewset declaration is wrong."""


class SchemaError(FrisianMCPError):
    """A serializer field has no JSON Schema mapping under the RAISE policy."""


class HostError(FrisianMCPError):
    """The host's code raised while frisian_mcp inspected it; ``error`` is what."""

    def __init__(self, error: Exception) -> None:
        super().__init__(f"{type(error).__name__}: {error}")
        self.error = error


def host_call(call: Callable[..., _T], /, *args: Any, **kwargs: Any) -> _T:
    """``call(*args, **kwargs)``, a call into the host's code (ADR 0015).

    Whatever the host's views, serializers, filter sets, schema classes or
    extensions raise becomes :class:`HostError`, the one exception the code
    around it catches; frisian_mcp's own errors pass unchanged, so its bugs
    fail loudly instead of passing for a host tool left out.
    """
    try:
        return call(*args, **kwargs)
    except FrisianMCPError:
        raise
    except Exception as exc:
        raise HostError(exc) from exc


class InputRequired(FrisianMCPError):
    """A call needs the client's input first (2026-07-28 basic/patterns/mrtr).

    ``input_requests`` maps keys to server-to-client requests (such as
    ``elicitation/create``); the retry carries the answers under the same
    keys and ``request_state`` unchanged.
    """

    def __init__(self, input_requests: JSONObject, request_state: str) -> None:
        super().__init__("input required")
        self.input_requests = input_requests
        self.request_state = request_state


class BadToken(FrisianMCPError):
    """A token that is malformed, tampered with, expired or foreign."""


class BodyError(FrisianMCPError):
    """A body refused after it was decoded: its error, and the id it carried."""

    def __init__(self, error: JSONRPCError, request_id: Any = None) -> None:
        super().__init__(error.message)
        self.error = error
        self.request_id = request_id


class JSONRPCError(FrisianMCPError):
    """An error that becomes a JSON-RPC error object (JSON-RPC 2.0 §5.1)."""

    code: ClassVar[int] = -32603
    #: The error's name in the audit's ``outcome`` (without a ``data.code``).
    name: ClassVar[str] = "internal_error"
    default_message: ClassVar[str] = "Internal error."
    #: The HTTP status and headers of a response carrying only this error.
    http_status: int = 200
    headers: Mapping[str, str] = MappingProxyType({})

    def __init__(
        self, message: str | None = None, *, data: Any = None, http_status: int = 0
    ) -> None:
        self.message = message or self.default_message
        self.data = data
        if http_status:
            self.http_status = http_status
        super().__init__(self.message)

    @property
    def outcome(self) -> str:
        """The audit's name of the error: ``data.code`` (ErrorCode), else ``name``."""
        code = self.data.get("code") if isinstance(self.data, dict) else None
        return code if isinstance(code, str) else self.name


class ParseError(JSONRPCError):
    """The body is not valid JSON."""

    code = -32700
    name = "parse_error"
    default_message = "Parse error: the request body is not valid JSON."
    http_status = 400


class InvalidRequest(JSONRPCError):
    """The body is JSON but not a valid JSON-RPC 2.0 message (or transport)."""

    code = -32600
    name = "invalid_request"
    default_message = "Invalid request: not a JSON-RPC 2.0 message."
    http_status = 400


class Forbidden(InvalidRequest):
    """A credential's grant does not reach the tool: HTTP 403 and its challenge.

    Raised by a grant's ``check_tool`` (docs/extending.md); ``challenge``
    becomes the response's ``WWW-Authenticate`` header.
    """

    default_message = "Forbidden: the credential does not reach this tool."
    http_status = 403

    def __init__(
        self, message: str | None = None, *, data: Any = None, challenge: str = ""
    ) -> None:
        super().__init__(message, data=data)
        if challenge:
            self.headers = {"WWW-Authenticate": challenge}


class MethodNotFound(JSONRPCError):
    """The method does not exist in the request's protocol revision."""

    code = -32601
    name = "method_not_found"
    default_message = "Method not found."


class InvalidParams(JSONRPCError):
    """The params are invalid (a bad cursor, missing 2026-07-28 ``_meta``)."""

    code = -32602
    name = "invalid_params"
    default_message = "Invalid params."


class InternalError(JSONRPCError):
    """An unexpected failure; the client sees only a correlation id."""

    code = -32603
    http_status = 500


class RequestCancelled(JSONRPCError):
    """The client closed the call's stream (2026-07-28): never sent."""

    name = "cancelled"
    default_message = "Cancelled: the client closed the stream."


class UnsupportedProtocolVersion(JSONRPCError):
    """The request names a protocol version not served (HTTP 400)."""

    code = -32022
    name = "unsupported_protocol_version"
    default_message = "Unsupported protocol version."
    http_status = 400


class HeaderMismatch(JSONRPCError):
    """A 2026-07-28 mirrored header is missing or disagrees with the body."""

    code = -32020
    name = "header_mismatch"
    default_message = "Header mismatch."
    http_status = 400


class ResourceNotFound(JSONRPCError):
    """No resource at a URI for this caller, or one hidden from it (ADR 0043).

    -32002 in the handshake era (2025-11-25 server/resources "Error
    Handling"); :meth:`of` gives 2026-07-28's -32602. Never ``data.uri``.
    """

    code = -32002
    name = "not_found"
    default_message = "Resource not found."

    def __init__(self) -> None:
        super().__init__(data={"code": ErrorCode.NOT_FOUND.value})

    @staticmethod
    def of(stateless: bool) -> ResourceNotFound:
        """The error as the request's revision answers it."""
        return _StatelessResourceNotFound() if stateless else ResourceNotFound()


class _StatelessResourceNotFound(ResourceNotFound):
    """2026-07-28 server/resources "Error Handling": MUST be -32602."""

    code = -32602


class ToolError(FrisianMCPError):
    """A ``tools/call`` failure: one sentence plus an :class:`ErrorCode` payload.

    ``tool`` is a registered name or ``None``; ``field``/``fields`` name
    declared fields (never values); ``extra`` adds members to the payload.
    """

    recoverable: bool = True

    def __init__(
        self,
        message: str,
        *,
        code: ErrorCode,
        tool: str | None = None,
        field: str | None = None,
        fields: Sequence[FieldProblem] | None = None,
        hint: str | None = None,
        recoverable: bool | None = None,
        retry_after: float | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.tool = tool
        self.field = field
        self.fields = list(fields) if fields is not None else None
        self.hint = hint
        if recoverable is not None:
            self.recoverable = recoverable
        self.retry_after = retry_after
        self.extra = dict(extra or {})

    @property
    def outcome(self) -> str:
        """The audit's name of the error: its ``code``."""
        return self.code.value

    def payload(self) -> JSONObject:
        """``error.data`` / ``structuredContent.error``: code, message, fields."""
        data: JSONObject = {
            "code": self.code.value,
            "message": self.message,
            "tool": self.tool,
            "recoverable": self.recoverable,
        }
        optional = {
            "field": self.field,
            "fields": self.fields,
            "hint": self.hint,
            "retry_after": self.retry_after,
        }
        data.update((k, v) for k, v in optional.items() if v is not None)
        data.update(self.extra)
        return data


class ToolInputError(ToolError):
    """An argument problem the agent can fix and retry (-32602)."""


class ToolExecutionError(ToolError):
    """The arguments were accepted but the action failed (``isError``)."""

    recoverable = False
