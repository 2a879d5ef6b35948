"""Inner requests: an action's own URL, as Django's handler would see it.

The inner request copies the outer request's host, scheme, headers and the
attributes middleware set on it (session, tenant, site...), carries the
call's method, query string and JSON body, and is forced to the identity the
MCP endpoint authenticated — when the view accepts the authentication class
that recognised the caller. A view that does not (a session-only viewset
called with a token) authenticates the inner request itself with its own
classes, from the same headers and session, exactly as it would over REST. Its path is resolved like a real request's, and
the resolution must land on the endpoint's own view: a lookup value that does
not fit the URL pattern answers "not found", as the same URL would over REST.
"""

from __future__ import annotations

import functools
import io
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.core.handlers.wsgi import WSGIRequest
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.urls import (
    NoReverseMatch,
    Resolver404,
    ResolverMatch,
    get_resolver,
    get_script_prefix,
    reverse,
)

from frisian_mcp.conf import mcp_settings
from frisian_mcp.discovery import Endpoint
from frisian_mcp.invocation.pagination import default_page_size
from frisian_mcp.invocation.types import CallContext, PreparedCall, to_json

__all__ = [
    "EndpointMismatch",
    "accepts_caller",
    "authentication_of",
    "build_bare_request",
    "build_request",
    "resolve",
]

# Request attributes Django itself sets; everything else a middleware put on
# the outer request is copied to the inner one.
_OWN_ATTRIBUTES = frozenset(
    {
        "environ", "path_info", "path", "META", "method", "content_type",
        "content_params", "resolver_match", "GET", "POST", "COOKIES", "FILES",
        "encoding", "upload_handlers", "user", "auth", "csrf_processing_done",
        "csrf_cookie_needs_reset", "urlconf",
    }
)  # fmt: skip
# META keys copied to the inner request besides HTTP_* headers.
_ENVIRON_KEYS = (
    "SERVER_NAME", "SERVER_PORT", "SERVER_PROTOCOL", "REMOTE_ADDR", "REMOTE_HOST",
    "SCRIPT_NAME", "HTTPS", "wsgi.url_scheme", "wsgi.version", "wsgi.multithread",
    "wsgi.multiprocess", "wsgi.run_once", "wsgi.errors",
)  # fmt: skip
_CREDENTIAL_HEADERS = frozenset({"HTTP_AUTHORIZATION", "HTTP_COOKIE"})


class EndpointMismatch(Exception):
    """The lookup values do not address this endpoint's URL."""


def build_request(
    endpoint: Endpoint, call: PreparedCall, context: CallContext
) -> WSGIRequest:
    """The inner request for ``call`` on ``endpoint`` as ``context``'s caller."""
    body = b"" if call.body is None else to_json(call.body).encode()
    request = _inner(
        context,
        endpoint=endpoint,
        method=endpoint.method,
        # WSGI carries the path as latin-1 text of its UTF-8 bytes (PEP 3333).
        path_info=_path(endpoint, call.path_kwargs)
        .encode("utf-8")
        .decode("iso-8859-1"),
        query=urlencode(call.query),
        body=body,
    )
    request.frisian_mcp_page = (  # type: ignore[attr-defined]
        call.page,
        call.page_size or default_page_size(),
    )
    return request


def build_bare_request(
    method: str, context: CallContext, endpoint: Endpoint | None = None
) -> WSGIRequest:
    """An inner request with only a method and the caller (permission probes)."""
    return _inner(
        context, endpoint=endpoint, method=method, path_info="/", query="", body=b""
    )


def authentication_of(endpoint: Endpoint) -> tuple[Any, ...] | None:
    """The endpoint's authentication classes (an action's own ones first)."""
    classes = endpoint.initkwargs.get(
        "authentication_classes",
        getattr(endpoint.view_class, "authentication_classes", None),
    )
    return None if classes is None else tuple(classes)


def accepts_caller(endpoint: Endpoint | None, context: CallContext) -> bool:
    """Whether ``endpoint`` accepts the authenticator that recognised the caller.

    Contexts built without an authenticator (tests, anonymous callers) and
    views without ``authentication_classes`` (not DRF views) count as
    accepting.
    """
    if context.authenticator is None or endpoint is None:
        return True
    classes = authentication_of(endpoint)
    if classes is None:
        return True
    return any(isinstance(context.authenticator, cls) for cls in classes)


def _inner(
    context: CallContext,
    *,
    endpoint: Endpoint | None,
    method: str,
    path_info: str,
    query: str,
    body: bytes,
) -> WSGIRequest:
    outer = context.request
    environ: dict[str, Any] = {
        key: value
        for key, value in outer.META.items()
        if key.startswith("HTTP_") or key in _ENVIRON_KEYS
    }
    if not context.is_authenticated:
        # The endpoint decided the caller is anonymous; the view must not
        # authenticate it from credentials the endpoint did not accept.
        for key in _CREDENTIAL_HEADERS:
            environ.pop(key, None)
    environ.pop("HTTP_CONTENT_LENGTH", None)
    environ.pop("HTTP_CONTENT_TYPE", None)
    environ.update(
        {
            "REQUEST_METHOD": method,
            "PATH_INFO": path_info,
            "QUERY_STRING": query,
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
    if context.is_authenticated and accepts_caller(endpoint, context):
        # DRF's Request honours these: the view sees the caller the endpoint
        # authenticated (and its own classes do not run a second time).
        request.user = context.user
        request._force_auth_user = context.user  # type: ignore[attr-defined]
        request._force_auth_token = context.auth  # type: ignore[attr-defined]
    elif context.is_authenticated:
        # The view does not take the endpoint's kind of credentials: its own
        # classes decide from the copied headers and the session, as over
        # REST. request.user is what Django's middleware found (for
        # SessionAuthentication), not the endpoint's caller.
        request.user = context.session_user or _anonymous()
    else:
        request.user = context.user or _anonymous()
    return request


def _anonymous() -> Any:
    from django.contrib.auth.models import AnonymousUser

    return AnonymousUser()


def resolve(
    endpoint: Endpoint, call: PreparedCall, request: WSGIRequest
) -> ResolverMatch:
    """Resolve the inner request's path; it must reach ``endpoint``'s view.

    Raises :class:`EndpointMismatch` when it does not. Sets
    ``request.resolver_match``.
    """
    expected = {
        **endpoint.fixed_kwargs,
        **{k: str(v) for k, v in call.path_kwargs.items()},
    }
    urlconf = getattr(request, "urlconf", None) or str(
        mcp_settings.URLCONF or settings.ROOT_URLCONF
    )
    if endpoint.path_variables:
        match = _resolve_path(urlconf, request.path_info)
    else:
        # Paths without variables (list, create) resolve the same every time.
        match = _resolve_fixed_path(urlconf, request.path_info)
    if match is None or not _lands_on(match, endpoint, expected):
        match = _reverse_match(endpoint, expected, urlconf)
        if match is None:
            raise EndpointMismatch()
    request.resolver_match = match
    return match


def _resolve_path(urlconf: str, path: str) -> ResolverMatch | None:
    try:
        return get_resolver(urlconf).resolve(path)
    except Resolver404:
        return None


_resolve_fixed_path = functools.lru_cache(maxsize=4096)(_resolve_path)


@receiver(setting_changed)
def _forget_resolutions(*, setting: str, **kwargs: Any) -> None:
    if setting in ("ROOT_URLCONF", "FRISIAN_MCP"):
        _resolve_fixed_path.cache_clear()


def _path(endpoint: Endpoint, path_kwargs: Mapping[str, str]) -> str:
    path = endpoint.path
    for kwarg, value in path_kwargs.items():
        path = path.replace("{" + kwarg + "}", str(value))
    return path


def _lands_on(
    match: ResolverMatch, endpoint: Endpoint, expected: Mapping[str, str]
) -> bool:
    return _same_view(match.func, endpoint) and all(
        str(match.kwargs.get(k)) == v for k, v in expected.items()
    )


def _reverse_match(
    endpoint: Endpoint, kwargs: Mapping[str, str], urlconf: str
) -> ResolverMatch | None:
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
        prefix = get_script_prefix()
        if path.startswith(prefix):
            path = "/" + path[len(prefix) :]
        match = get_resolver(urlconf).resolve(path)
    except (NoReverseMatch, Resolver404):
        return None
    return match if _lands_on(match, endpoint, kwargs) else None


def _same_view(func: Callable[..., Any], endpoint: Endpoint) -> bool:
    return getattr(func, "cls", None) is endpoint.view_class and getattr(
        func, "actions", None
    ) == getattr(endpoint.callback, "actions", None)
