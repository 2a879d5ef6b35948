"""Shared value types: error codes, endpoints, calls, wire shapes.

Everything here is data. Modules of every layer import it; it imports no
other frisian_mcp module but :mod:`~frisian_mcp.kinds` (re-exported here).
"""

from __future__ import annotations

import enum
import inspect
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, NotRequired, TypedDict

from django.http import HttpRequest

from frisian_mcp.kinds import (
    ACTIONS,
    KINDS,
    SAFE_METHODS,
    Action,
    Kind,
    KindRow,
    ToolAnnotations,
)

__all__ = [
    "ACTIONS",
    "KINDS",
    "VIEWSET_OPTION_KEYS",
    "Action",
    "Call",
    "CallContext",
    "CallToolResult",
    "Endpoint",
    "ErrorCode",
    "Exchange",
    "FieldError",
    "JSONObject",
    "Kind",
    "KindRow",
    "ListState",
    "SchemaProblem",
    "ToolAnnotations",
    "ToolDefinition",
    "dotted",
]

#: A decoded JSON object; values are checked at run time, not by mypy.
JSONObject = dict[str, Any]
#: One field problem: ``field``, ``code``, ``message`` and optional members
#: (``index``, ``did_you_mean``, ``lookup_fields``). Never a caller value.
FieldError = dict[str, Any]


class ErrorCode(enum.StrEnum):
    """Machine-readable error codes (closed: docs/errors.md lists them)."""

    INVALID_ARGUMENT = "invalid_argument"
    NESTED_WRAPPER = "nested_wrapper"
    UNKNOWN_ARGUMENT = "unknown_argument"
    INVALID_REFERENCE = "invalid_reference"
    VALIDATION_FAILED = "validation_failed"
    INVALID_BULK_BODY = "invalid_bulk_body"
    EMPTY_WRITE = "empty_write"
    INVALID_TOKEN = "invalid_token"
    UNKNOWN_TOOL = "unknown_tool"
    UNKNOWN_PROMPT = "unknown_prompt"
    NOT_AUTHENTICATED = "not_authenticated"
    PERMISSION_DENIED = "permission_denied"
    INSUFFICIENT_SCOPE = "insufficient_scope"
    NOT_FOUND = "not_found"
    CONFLICT = "conflict"
    THROTTLED = "throttled"
    BUSY = "busy"
    UNAVAILABLE = "unavailable"
    REQUEST_REJECTED = "request_rejected"
    CONFIRMATION_REQUIRED = "confirmation_required"
    CONFIRMATION_DECLINED = "confirmation_declined"
    INTERNAL_ERROR = "internal_error"


METHOD_ORDER = {"GET": 0, "POST": 1, "PUT": 2, "PATCH": 3, "DELETE": 4}
PATH_VARIABLE = re.compile(r"{([^{}]+)}")
#: The per-viewset options, as ``mcp_<key>`` attributes or settings entries.
VIEWSET_OPTION_KEYS = frozenset(
    {"name", "exclude", "actions", "group", "query_parameters", "request_bodies"}
)
#: What a tool name may not hold (a run of it becomes ``_``).
UNSAFE_NAME = re.compile(r"[^A-Za-z0-9_-]+")


@dataclass(frozen=True)
class Endpoint:
    """One HTTP method of one URL pattern served by a DRF view.

    ``path`` has its variables in braces (``/api/contacts/{pk}/``); variables
    discovery fixed (an expanded API version) are filled in and listed in
    ``fixed_kwargs``. ``action`` is the viewset action, or for a plain view
    the stock action its mixin implements, else the lowercase method;
    ``handler`` is the view method behind it when the two differ.
    """

    path: str
    path_regex: str
    method: str
    callback: Callable[..., Any]
    action: str
    namespace: str = ""
    url_name: str | None = None
    fixed_kwargs: Mapping[str, str] = field(default_factory=dict)
    handler: str = ""

    @property
    def handler_name(self) -> str:
        """The view method that serves the endpoint."""
        return self.handler or self.action

    @property
    def view_class(self) -> type[Any]:
        """The DRF view class behind the callback."""
        cls: type[Any] = self.callback.cls  # type: ignore[attr-defined]
        return cls

    @property
    def initkwargs(self) -> dict[str, Any]:
        """Keyword arguments ``as_view()`` received (router extras included)."""
        return dict(getattr(self.callback, "initkwargs", {}))

    @property
    def actions(self) -> dict[str, str] | None:
        """The viewset's method-to-action map, or ``None`` for a plain view."""
        actions = getattr(self.callback, "actions", None)
        return dict(actions) if actions is not None else None

    @property
    def kind(self) -> Kind:
        """The tool kind of the endpoint's action."""
        action = ACTIONS.get(self.action)
        return action.kind if action is not None else Kind.ACTION

    @property
    def category(self) -> str:
        """The endpoint's key in :data:`KINDS` (its kind, or ``safe_action``)."""
        kind = self.kind
        safe = kind == Kind.ACTION and self.method.upper() in SAFE_METHODS
        return "safe_action" if safe else kind.value

    @property
    def row(self) -> KindRow:
        """The endpoint's row of the kinds table."""
        return KINDS[self.category]

    @property
    def stock(self) -> bool:
        """Whether DRF's own mixin method serves the endpoint's stock action.

        Under decorators that keep ``__wrapped__`` (``@extend_schema_view``).
        """
        action = ACTIONS.get(self.action)
        # partial_update is stock only when the update it calls is.
        method = "update" if self.action == "partial_update" else self.action
        return (
            action is not None
            and action.mixin is not None
            and issubclass(self.view_class, action.mixin)
            and inspect.unwrap(getattr(self.view_class, method))
            is getattr(action.mixin, method)
        )

    @property
    def path_variables(self) -> tuple[str, ...]:
        """Names of the URL variables still open in ``path``, in order."""
        return tuple(PATH_VARIABLE.findall(self.path))

    @property
    def sort_key(self) -> tuple[str, int, str]:
        """Deterministic order: path, then method, then action."""
        return (self.path, METHOD_ORDER.get(self.method, 9), self.action)


@dataclass(frozen=True)
class SchemaProblem:
    """The host's code failed for a tool (ADR 0010, 0015); ``fatal``: left out.

    ``action`` is ``"every action"`` when discovery could not read them.
    """

    view: str
    action: str
    error: str
    detail: str
    fatal: bool
    path: str = ""

    @classmethod
    def of(
        cls, view: type[Any], action: str, path: str, exc: Exception, fatal: bool
    ) -> SchemaProblem:
        """The problem ``exc``, raised by the host's code of ``view``."""
        error, detail = type(exc).__name__, str(exc)[:200]
        return cls(dotted(view), action, error, detail, fatal, path)


def dotted(cls: type[Any]) -> str:
    """The dotted path of ``cls``, as ``VIEWSET_OPTIONS`` and messages name it."""
    return f"{cls.__module__}.{cls.__qualname__}"


@dataclass
class Exchange:
    """What one request to the endpoint did, for the audit (docs/audit.md).

    Filled in as the request goes: the caller's ``context`` once known (or
    the ``scheme`` of credentials refused), then the JSON-RPC method, tool,
    id and ``outcome`` (``None``: ok); ``rows`` is the audit's to count;
    ``parts``: threads still working on the request (:func:`hooks.part`).
    """

    transport: str
    started: float = field(default_factory=time.perf_counter)
    context: CallContext | None = None
    scheme: str | None = None
    method: str | None = None
    tool: str | None = None
    request_id: Any = None
    outcome: str | None = None
    status: int | None = None
    rows: dict[str, int] = field(default_factory=dict)
    parts: int = 1


@dataclass
class CallContext:
    """Who calls, over which HTTP request, in which protocol version.

    ``user``/``auth`` come from the endpoint's DRF authenticators,
    ``authenticator`` is the one that recognised the caller and
    ``session_user`` what Django's middleware found before. ``client`` is
    what the client said of itself (``info``, ``capabilities``) where the
    request carries it (initialize, 2026-07-28 ``_meta``, a stdio session);
    ``input_responses``/``request_state`` are an MRTR retry's.
    """

    request: HttpRequest
    user: Any
    auth: Any = None
    authenticator: Any = None
    session_user: Any = None
    protocol_version: str = "2025-03-26"
    client: JSONObject = field(default_factory=dict)
    input_responses: JSONObject | None = None
    request_state: str | None = None
    exchange: Exchange = field(default_factory=lambda: Exchange("python"))

    @property
    def is_authenticated(self) -> bool:
        """Whether an authenticator recognised the caller."""
        return bool(getattr(self.user, "is_authenticated", False))

    @property
    def caller(self) -> str:
        """A stable id of the caller (tokens and caches are bound to it)."""
        if self.is_authenticated:
            return f"user:{self.user.pk}"
        return "anonymous"


@dataclass(frozen=True)
class ListState:
    """Where a list call is: its filters, page, page size and projection.

    ``query``: the pairs a host's own paginator reads for this page, from
    the token its previous page's ``next`` link became (ADR 0035).
    """

    filters: dict[str, Any] = field(default_factory=dict)
    page: int = 1
    page_size: int = 50
    filter_keys: list[str] | None = None
    query: tuple[tuple[str, str], ...] = ()


@dataclass
class Call:
    """A checked ``tools/call``, split into the parts of an HTTP request.

    ``body`` is one object, or a list of them when ``bulk``. ``error`` is an
    argument problem to report once the caller passed the view's access
    checks (DRF checks permissions before it reads a body). ``paged``: the
    tool pages (a list, or a GET action that may page) by ``listing``;
    ``tool_paged``: the tool paginator cut this call's page;
    ``next_query``: a host paginator's pairs for the next page (ADR 0035).
    ``echoed``: read-only record fields sent back to an update, which must
    hold what the row shows.
    """

    path_kwargs: dict[str, str] = field(default_factory=dict)
    query: list[tuple[str, str]] = field(default_factory=list)
    body: Any = None
    bulk: bool = False
    validate_only: bool = False
    listing: ListState = field(default_factory=ListState)
    paged: bool = False
    tool_paged: bool = False
    next_query: list[tuple[str, str]] = field(default_factory=list)
    echoed: dict[str, Any] = field(default_factory=dict)
    #: The names of the arguments sent to the view unchecked (ADR 0030).
    unchecked: list[str] = field(default_factory=list)
    error: Exception | None = None  # a ToolInputError
    #: The arguments as sent and the tool's inputSchema: what no message may
    #: quote, and the names one may (frisian_mcp.redaction).
    arguments: Mapping[str, Any] = field(default_factory=dict)
    input_schema: Mapping[str, Any] = field(default_factory=dict)
    #: What call hooks (and a bulk tool's check) add to a ``mode: "validate"``
    #: report.
    notes: JSONObject = field(default_factory=dict)


class TextContent(TypedDict):
    """A text content block of a tool result."""

    type: Literal["text"]
    text: str


class CallToolResult(TypedDict):
    """The ``result`` of a ``tools/call`` request."""

    content: list[TextContent]
    structuredContent: NotRequired[JSONObject]
    isError: bool


class ToolDefinition(TypedDict):
    """One entry of a ``tools/list`` result."""

    name: str
    title: str
    description: str
    inputSchema: JSONObject
    outputSchema: NotRequired[JSONObject]
    annotations: ToolAnnotations
