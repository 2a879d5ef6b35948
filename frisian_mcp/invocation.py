"""Invocation: run one viewset action through DRF's full dispatch.

A tool call becomes an inner HTTP request to the action's own URL, handed
to the view callback the URL resolves to, exactly as Django's handler would:
authentication (the MCP caller's identity, forced), permissions, throttles,
``get_queryset``, serializer validation, ``perform_*`` hooks, filter backends
and pagination all run as they do over REST. Writes run in a transaction that
is rolled back when the view answers with an error, so a rejected call never
leaves a row behind.

List actions page with :class:`ToolPagination` (``page``/``page_size``,
bounded by ``FRISIAN_MCP["MAX_PAGE_SIZE"]``) instead of the view's own
paginator: an agent always gets a bounded, counted page, whatever the REST
API does (ADR 0003).
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from django.core.handlers.wsgi import WSGIRequest
from django.db import DEFAULT_DB_ALIAS, IntegrityError, router, transaction
from django.db.models import ProtectedError, QuerySet, RestrictedError
from django.http import HttpRequest, HttpResponseBase
from django.urls import NoReverseMatch, Resolver404, get_resolver, reverse
from rest_framework.generics import GenericAPIView
from rest_framework.pagination import BasePagination
from rest_framework.response import Response
from rest_framework.utils.encoders import JSONEncoder

from frisian_mcp.conf import mcp_settings
from frisian_mcp.discovery import Endpoint

__all__ = [
    "CallContext",
    "InvocationResult",
    "PreparedCall",
    "ToolPagination",
    "invoke",
    "to_json",
]

_WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
# Request attributes Django itself sets; everything else a middleware put on
# the outer request (session, tenant, site...) is copied to the inner one.
_OWN_ATTRIBUTES = frozenset(
    {
        "environ",
        "path_info",
        "path",
        "META",
        "method",
        "content_type",
        "content_params",
        "resolver_match",
        "GET",
        "POST",
        "COOKIES",
        "FILES",
        "encoding",
        "upload_handlers",
        "user",
        "auth",
        "csrf_processing_done",
        "csrf_cookie_needs_reset",
        "urlconf",
    }
)
# META keys copied to the inner request besides HTTP_* headers.
_ENVIRON_KEYS = (
    "SERVER_NAME",
    "SERVER_PORT",
    "SERVER_PROTOCOL",
    "REMOTE_ADDR",
    "REMOTE_HOST",
    "SCRIPT_NAME",
    "HTTPS",
    "wsgi.url_scheme",
    "wsgi.version",
    "wsgi.multithread",
    "wsgi.multiprocess",
    "wsgi.run_once",
    "wsgi.errors",
)
_CREDENTIAL_HEADERS = frozenset({"HTTP_AUTHORIZATION", "HTTP_COOKIE"})


@dataclass
class CallContext:
    """Who is calling, and over which HTTP request.

    ``user`` and ``auth`` are what the endpoint's DRF authenticators
    returned; the inner request is forced to the same identity.
    """

    request: HttpRequest
    user: Any
    auth: Any = None
    protocol_version: str = "2025-03-26"

    @property
    def is_authenticated(self) -> bool:
        """Whether an authenticator recognised the caller."""
        return bool(getattr(self.user, "is_authenticated", False))


@dataclass
class PreparedCall:
    """An action call split into the parts of an HTTP request."""

    path_kwargs: Mapping[str, str] = field(default_factory=dict)
    query: list[tuple[str, str]] = field(default_factory=list)
    body: Any = None
    page: int = 1
    page_size: int | None = None


@dataclass
class InvocationResult:
    """What the view answered: status, unrendered data and headers."""

    status: int
    data: Any
    headers: Mapping[str, str] = field(default_factory=dict)
    exception: BaseException | None = None


class ToolPagination(BasePagination):
    """Page-number pagination that list tools use instead of the view's own.

    Reads the page from the inner request (set by :func:`invoke`, never from
    the query string, so no filter name can collide) and answers with
    ``{"results", "count", "page", "page_size", "has_more"}``.
    """

    def paginate_queryset(
        self, queryset: Any, request: Any, view: Any = None
    ) -> list[Any]:
        """Return one page of ``queryset`` and remember the counts."""
        page, size = getattr(
            request._request, "frisian_mcp_page", (1, _default_page_size())
        )
        if isinstance(queryset, QuerySet) and not queryset.ordered:
            # Unordered pages can repeat or skip rows between calls.
            queryset = queryset.order_by("pk")
        self.count = (
            queryset.count() if isinstance(queryset, QuerySet) else len(queryset)
        )
        self.page, self.page_size = page, size
        start = (page - 1) * size
        rows = list(queryset[start : start + size])
        self.has_more = start + len(rows) < self.count
        return rows

    def get_paginated_response(self, data: Any) -> Response:
        """Wrap the serialized page with its counts."""
        return Response(
            {
                "results": data,
                "count": self.count,
                "page": self.page,
                "page_size": self.page_size,
                "has_more": self.has_more,
            }
        )

    def get_paginated_response_schema(self, schema: dict[str, Any]) -> dict[str, Any]:
        """The result shape (used by drf-spectacular if it ever asks)."""
        return {
            "type": "object",
            "properties": {
                "results": schema,
                "count": {"type": "integer"},
                "page": {"type": "integer"},
                "page_size": {"type": "integer"},
                "has_more": {"type": "boolean"},
            },
        }


def invoke(
    endpoint: Endpoint, call: PreparedCall, context: CallContext
) -> InvocationResult:
    """Run ``endpoint``'s action for ``call`` as ``context``'s caller."""
    request = _inner_request(endpoint, call, context)
    try:
        match_args, match_kwargs = _resolve(endpoint, call, request)
    except _NotFound:
        return InvocationResult(status=404, data=None)
    callback = _callback(endpoint)
    using = _database(endpoint)
    try:
        if endpoint.method in _WRITE_METHODS:
            with transaction.atomic(using=using):
                response = callback(request, *match_args, **match_kwargs)
                if response.status_code >= 400:
                    transaction.set_rollback(True, using=using)
        else:
            response = callback(request, *match_args, **match_kwargs)
    except (IntegrityError, ProtectedError, RestrictedError) as exc:
        return InvocationResult(status=409, data=None, exception=exc)
    result = _result(response)
    if endpoint.action == "list" and isinstance(result.data, list):
        result.data = _page_list(result.data, call)
    return result


def to_json(data: Any) -> str:
    """Encode view data (Decimals, dates, lazy strings...) as compact JSON."""
    return json.dumps(data, cls=JSONEncoder, ensure_ascii=False, separators=(",", ":"))


def _default_page_size() -> int:
    return int(mcp_settings.PAGE_SIZE)


def _inner_request(
    endpoint: Endpoint, call: PreparedCall, context: CallContext
) -> WSGIRequest:
    outer = context.request
    body = b"" if call.body is None else to_json(call.body).encode()
    environ: dict[str, Any] = {
        key: value
        for key, value in outer.META.items()
        if key.startswith("HTTP_") or key in _ENVIRON_KEYS
    }
    if not context.is_authenticated:
        # The endpoint decided the caller is anonymous; the view must not
        # authenticate it differently from credentials it was never shown.
        for key in _CREDENTIAL_HEADERS:
            environ.pop(key, None)
    environ.pop("HTTP_CONTENT_LENGTH", None)
    environ.pop("HTTP_CONTENT_TYPE", None)
    environ.update(
        {
            "REQUEST_METHOD": endpoint.method,
            "PATH_INFO": _path(endpoint, call),
            "QUERY_STRING": urlencode(call.query),
            "CONTENT_TYPE": "application/json",
            "CONTENT_LENGTH": str(len(body)),
            "HTTP_ACCEPT": "application/json",
            "wsgi.input": io.BytesIO(body),
        }
    )
    environ.setdefault("wsgi.url_scheme", outer.scheme or "http")
    environ.setdefault("SERVER_NAME", "localhost")
    environ.setdefault("SERVER_PORT", "80")
    request = WSGIRequest(environ)
    for key, value in vars(outer).items():
        if not key.startswith("_") and key not in _OWN_ATTRIBUTES:
            setattr(request, key, value)
    request.user = context.user
    if context.is_authenticated:
        # DRF's Request honours these: the view sees the caller the endpoint
        # authenticated, whatever its own authentication classes are.
        request._force_auth_user = context.user  # type: ignore[attr-defined]
        request._force_auth_token = context.auth  # type: ignore[attr-defined]
    request.frisian_mcp_page = (  # type: ignore[attr-defined]
        call.page,
        call.page_size or _default_page_size(),
    )
    return request


def _path(endpoint: Endpoint, call: PreparedCall) -> str:
    path = endpoint.path
    for kwarg, value in call.path_kwargs.items():
        path = path.replace("{" + kwarg + "}", str(value))
    return path


def _resolve(
    endpoint: Endpoint, call: PreparedCall, request: WSGIRequest
) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """Resolve the inner path and check it reaches this endpoint's view.

    A value that does not fit the URL pattern (a slash in an id, say)
    resolves elsewhere or nowhere; the call then answers "not found", as the
    same URL would over REST.
    """
    expected = {
        **endpoint.fixed_kwargs,
        **{k: str(v) for k, v in call.path_kwargs.items()},
    }
    urlconf = getattr(request, "urlconf", None) or _urlconf()
    try:
        match = get_resolver(urlconf).resolve(request.path_info)
    except Resolver404:
        match = None
    if (
        match is None
        or not _same_view(match.func, endpoint)
        or any(str(match.kwargs.get(k)) != v for k, v in expected.items())
    ):
        match = _reverse_match(endpoint, expected, urlconf)
        if match is None:
            raise _NotFound()
    request.resolver_match = match
    return tuple(match.args), dict(match.kwargs)


def _reverse_match(endpoint: Endpoint, kwargs: Mapping[str, str], urlconf: str) -> Any:
    """Second chance for regexes the path template cannot express."""
    if not endpoint.url_name:
        return None
    name = (
        f"{endpoint.namespace}:{endpoint.url_name}"
        if endpoint.namespace
        else endpoint.url_name
    )
    try:
        path = reverse(name, kwargs=dict(kwargs), urlconf=urlconf)
        match = get_resolver(urlconf).resolve(path)
    except (NoReverseMatch, Resolver404):
        return None
    return match if _same_view(match.func, endpoint) else None


def _same_view(func: Callable[..., Any], endpoint: Endpoint) -> bool:
    return getattr(func, "cls", None) is endpoint.view_class and getattr(
        func, "actions", None
    ) == getattr(endpoint.callback, "actions", None)


class _NotFound(Exception):
    """The lookup values do not address this endpoint."""


def _callback(endpoint: Endpoint) -> Callable[..., Any]:
    """The view callback; list actions get :class:`ToolPagination`."""
    if endpoint.action != "list" or not issubclass(endpoint.view_class, GenericAPIView):
        return endpoint.callback
    cached = _LIST_CALLBACKS.get(endpoint.callback)
    if cached is None:
        initkwargs = {**endpoint.initkwargs, "pagination_class": ToolPagination}
        actions = endpoint.actions
        if actions is not None:
            cached = endpoint.view_class.as_view(actions, **initkwargs)  # type: ignore[call-arg]
        else:
            cached = endpoint.view_class.as_view(**initkwargs)
        _LIST_CALLBACKS[endpoint.callback] = cached
    return cached


_LIST_CALLBACKS: dict[Callable[..., Any], Callable[..., Any]] = {}


def _database(endpoint: Endpoint) -> str:
    queryset = getattr(endpoint.view_class, "queryset", None)
    model = getattr(queryset, "model", None)
    if model is None:
        return DEFAULT_DB_ALIAS
    return router.db_for_write(model) or DEFAULT_DB_ALIAS


def _result(response: HttpResponseBase) -> InvocationResult:
    headers = dict(response.items())
    if isinstance(response, Response):
        return InvocationResult(response.status_code, response.data, headers)
    content = getattr(response, "content", b"")
    data: Any = None
    if content:
        try:
            data = json.loads(content)
        except (ValueError, UnicodeDecodeError):
            data = content.decode("utf-8", "replace")
    return InvocationResult(response.status_code, data, headers)


def _page_list(rows: list[Any], call: PreparedCall) -> dict[str, Any]:
    """Page a list the view returned whole (no paginator, custom ``list``)."""
    size = call.page_size or _default_page_size()
    start = (call.page - 1) * size
    page = rows[start : start + size]
    return {
        "results": page,
        "count": len(rows),
        "page": call.page,
        "page_size": size,
        "has_more": start + len(page) < len(rows),
    }


def _urlconf() -> str:
    from django.conf import settings

    return str(mcp_settings.URLCONF or settings.ROOT_URLCONF)
