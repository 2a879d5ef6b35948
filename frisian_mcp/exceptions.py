"""The exception hierarchy of frisian_mcp, and nothing else.

::

    FrisianMCPError
    ├── ConfigurationError (also ImproperlyConfigured)  bad setting, backend
    │                      import, misdeclared viewset
    ├── RegistryError      DuplicateToolName, InvalidToolName, UnsupportedViewSet
    ├── SchemaError        a serializer field cannot be mapped (policy RAISE)
    ├── CleanupError       a frisian_mcp_cleanup option is invalid, or a batch
    │                      would delete more than asked
    ├── JSONRPCError       code, message, data -> JSON-RPC error object:
    │   │                  ParseError -32700, InvalidRequest -32600,
    │   │                  MethodNotFound -32601, InvalidParams -32602
    │   │                  (includes unknown tool), InternalError -32603,
    │   │                  UnsupportedProtocolVersion -32022 (HTTP 400),
    │   │                  HeaderMismatch -32020 (HTTP 400),
    │   │                  MissingRequestMetadata -32602 (HTTP 400)
    │   └── ToolInputError every argument problem (schema, nested wrapper,
    │                      unknown key, bad FK lookup, bad token, DRF
    │                      serializer validation) -> -32602 with error.data
    └── ToolExecutionError the tool ran and failed (permission, not found,
                           conflict, throttle) -> result with isError: true

Conversion to the wire happens only in ``frisian_mcp.jsonrpc``. No exception
here carries a caller-supplied value unless the raiser vetted it (declared
field names, short plain identifiers); messages are built by frisian_mcp.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from django.core.exceptions import ImproperlyConfigured

from frisian_mcp.types import ErrorCode

__all__ = [
    "CleanupError",
    "ConfigurationError",
    "DuplicateToolName",
    "FrisianMCPError",
    "HeaderMismatch",
    "InternalError",
    "InvalidParams",
    "InvalidRequest",
    "InvalidToolName",
    "JSONRPCError",
    "MethodNotFound",
    "MissingRequestMetadata",
    "ParseError",
    "RegistryError",
    "SchemaError",
    "ToolExecutionError",
    "ToolInputError",
    "UnsupportedProtocolVersion",
    "UnsupportedViewSet",
]


class FrisianMCPError(Exception):
    """Base class of every exception frisian_mcp raises on purpose."""


class ConfigurationError(FrisianMCPError, ImproperlyConfigured):
    """A setting, backend import string or viewset declaration is wrong."""


class RegistryError(FrisianMCPError):
    """The tool registry cannot be built from what discovery found."""


class DuplicateToolName(RegistryError):
    """Two tools were given the same name and no rule could separate them."""


class InvalidToolName(RegistryError):
    """A tool name (often from ``mcp_name``) breaks ``^[A-Za-z0-9_-]{1,64}$``."""


class UnsupportedViewSet(RegistryError):
    """A view cannot be exposed as a tool (no serializer, unknown action...)."""


class SchemaError(FrisianMCPError):
    """A serializer field has no JSON Schema mapping under the RAISE policy."""


class CleanupError(FrisianMCPError):
    """A cleanup option is invalid, or a batch would delete more than asked."""


class JSONRPCError(FrisianMCPError):
    """An error that becomes a JSON-RPC error object (JSON-RPC 2.0 §5.1)."""

    #: The JSON-RPC error code.
    code: ClassVar[int] = -32603
    #: The message used when none is given.
    default_message: ClassVar[str] = "Internal error."
    #: The HTTP status of a response that carries only this error.
    http_status: ClassVar[int] = 200

    def __init__(self, message: str | None = None, *, data: Any = None) -> None:
        self.message = message or self.default_message
        self.data = data
        super().__init__(self.message)


class ParseError(JSONRPCError):
    """The request body is not valid JSON."""

    code = -32700
    default_message = "Parse error: the request body is not valid JSON."
    http_status = 400


class InvalidRequest(JSONRPCError):
    """The body is JSON but not a valid JSON-RPC 2.0 message."""

    code = -32600
    default_message = "Invalid request: not a JSON-RPC 2.0 message."
    http_status = 400


class MethodNotFound(JSONRPCError):
    """The method does not exist or its capability was not declared."""

    code = -32601
    default_message = "Method not found."


class InvalidParams(JSONRPCError):
    """The method's params are invalid (also an unknown tool or a bad cursor)."""

    code = -32602
    default_message = "Invalid params."


class InternalError(JSONRPCError):
    """An unexpected failure; the client sees only a correlation id."""

    code = -32603
    default_message = "Internal error."
    http_status = 500


class UnsupportedProtocolVersion(JSONRPCError):
    """The MCP-Protocol-Version header or ``_meta`` names a version not served.

    The code is the 2026-07-28 ``UnsupportedProtocolVersionError``; its data
    lists the supported versions, so a dual-era client falls back to
    ``initialize`` (MCP 2025-11-25 basic/transports "Protocol Version
    Header": unsupported versions get 400).
    """

    code = -32022
    default_message = "Unsupported protocol version."
    http_status = 400


class MissingRequestMetadata(InvalidParams):
    """A 2026-07-28 request lacks a required ``_meta`` field.

    MCP 2026-07-28 basic/index "_meta": such a request is malformed,
    -32602 with HTTP 400.
    """

    http_status = 400


class HeaderMismatch(JSONRPCError):
    """A 2026-07-28 request's mirrored headers are missing or disagree with its body.

    MCP 2026-07-28 basic/transports/streamable-http "Server Validation".
    """

    code = -32020
    default_message = "Header mismatch."
    http_status = 400


class ToolInputError(InvalidParams):
    """A ``tools/call`` argument problem the agent can fix and retry.

    ``message`` is one actionable sentence; the other attributes become
    ``error.data`` (or ``structuredContent.error`` under the ``tool_result``
    error style): ``error_code`` from :class:`~frisian_mcp.types.ErrorCode`,
    ``tool`` (a registered name, or ``None``), ``field`` or ``fields``, a
    ``hint`` and any ``extra`` members. None of them may hold a caller value.
    """

    def __init__(
        self,
        message: str,
        *,
        error_code: ErrorCode = ErrorCode.INVALID_ARGUMENT,
        tool: str | None = None,
        field: str | None = None,
        fields: Sequence[Mapping[str, Any]] | None = None,
        hint: str | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.error_code = error_code
        self.tool = tool
        self.field = field
        self.fields = list(fields) if fields is not None else None
        self.hint = hint
        self.extra = dict(extra or {})


class ToolExecutionError(FrisianMCPError):
    """The arguments were accepted but the action failed; an ``isError`` result."""

    def __init__(
        self,
        message: str,
        *,
        error_code: ErrorCode,
        tool: str | None = None,
        recoverable: bool = False,
        status: int | None = None,
        retry_after: float | None = None,
        fields: Sequence[Mapping[str, Any]] | None = None,
        hint: str | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.error_code = error_code
        self.tool = tool
        self.recoverable = recoverable
        self.status = status
        self.retry_after = retry_after
        self.fields = list(fields) if fields is not None else None
        self.hint = hint
        self.extra = dict(extra or {})
