"""Wire shapes: TypedDicts and aliases for what crosses the MCP boundary.

Nothing here does work; the shapes follow the MCP schema (2025-11-25,
``schema.ts``) closely enough for type checking, not as a validator.
``ErrorCode`` is the closed enum of machine-readable error codes that every
argument error (``error.data.code``) and every failed tool result
(``structuredContent.error.code``) carries; ``docs/errors.md`` documents it.
"""

from __future__ import annotations

import enum
from typing import Any, Literal, NotRequired, TypedDict

__all__ = [
    "CallToolResult",
    "ErrorCode",
    "JSONObject",
    "JSONRPCErrorObject",
    "JSONRPCMessage",
    "TextContent",
    "ToolAnnotations",
    "ToolDefinition",
]

#: A decoded JSON object. Values are left as ``Any``: JSON is recursive and the
#: precise shape is checked at run time (jsonschema), not by the type checker.
JSONObject = dict[str, Any]

#: One decoded JSON-RPC message (request, notification or response).
JSONRPCMessage = dict[str, Any]


class ErrorCode(enum.StrEnum):
    """Machine-readable error codes; closed: adding one is a contract change."""

    #: An argument does not fit the tool's inputSchema (type, enum, length...).
    INVALID_ARGUMENT = "invalid_argument"
    #: An undeclared argument holds an object: a REST-style wrapper like ``data``.
    NESTED_WRAPPER = "nested_wrapper"
    #: An undeclared scalar or array argument, such as a typo'd field name.
    UNKNOWN_ARGUMENT = "unknown_argument"
    #: A foreign-key value or lookup object that does not resolve to one row.
    INVALID_REFERENCE = "invalid_reference"
    #: The project's serializer rejected the data (DRF answered 400).
    VALIDATION_FAILED = "validation_failed"
    #: A bulk list body that is empty, holds non-objects, or targets a non-create tool.
    INVALID_BULK_BODY = "invalid_bulk_body"
    #: A create that carries no declared field at all.
    EMPTY_WRITE = "empty_write"
    #: A continuation token or cursor that is malformed, tampered, expired or foreign.
    INVALID_TOKEN = "invalid_token"
    #: ``tools/call`` named a tool that does not exist (or is hidden from the caller).
    UNKNOWN_TOOL = "unknown_tool"
    #: The caller is not authenticated and the action requires it (DRF 401).
    NOT_AUTHENTICATED = "not_authenticated"
    #: The caller may not perform the action (DRF 403).
    PERMISSION_DENIED = "permission_denied"
    #: The addressed object does not exist or is not visible to the caller (404).
    NOT_FOUND = "not_found"
    #: The write conflicts with existing data (unique constraint, protected row, 409).
    CONFLICT = "conflict"
    #: Too many calls; retry after ``retry_after`` seconds (DRF 429).
    THROTTLED = "throttled"
    #: The view refused the request for another client-side reason (405, 406, 415...).
    REQUEST_REJECTED = "request_rejected"
    #: Something failed on the server; the response carries a correlation id.
    INTERNAL_ERROR = "internal_error"


class TextContent(TypedDict):
    """A text content block of a tool result."""

    type: Literal["text"]
    text: str


class CallToolResult(TypedDict):
    """The ``result`` of a ``tools/call`` request."""

    content: list[TextContent]
    structuredContent: JSONObject
    isError: bool


class ToolAnnotations(TypedDict, total=False):
    """Behaviour hints of a tool (MCP 2025-11-25, ``ToolAnnotations``)."""

    title: str
    readOnlyHint: bool
    destructiveHint: bool
    idempotentHint: bool
    openWorldHint: bool


class ToolDefinition(TypedDict):
    """One entry of a ``tools/list`` result."""

    name: str
    title: str
    description: str
    inputSchema: JSONObject
    outputSchema: NotRequired[JSONObject]
    annotations: ToolAnnotations


class JSONRPCErrorObject(TypedDict):
    """The ``error`` member of a JSON-RPC 2.0 error response."""

    code: int
    message: str
    data: NotRequired[Any]
