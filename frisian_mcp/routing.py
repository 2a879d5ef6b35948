"""Routing: the inner request a tool call becomes, and the view it lands on.

The inner request carries the outer one's headers and middleware attributes
and the MCP caller, so the view authenticates as over REST; resolution finds
the URL pattern of the tool's endpoint (ADR 0001).
"""

from __future__ import annotations

import functools
import io
import json
from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qs, urlencode

from django import urls
from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.core.handlers.wsgi import WSGIRequest
from django.utils.functional import cached_property
from rest_framework.parsers import JSONParser
from rest_framework.utils.encoders import JSONEncoder
from rest_framework.versioning import AcceptHeaderVersioning, QueryParameterVersioning

from frisian_mcp.conf import mcp_settings, on_change
from frisian_mcp.types import Call, CallContext, Endpoint

__all__ = [
    "build_request",
    "inner_request",
    "pinned_version",
    "resolve",
    "takes_json",
]

# Request attributes Django sets itself; the rest (session, tenant, site,
# urlconf...) a middleware put on the outer request is copied to the inner
# one, and so are the private ones _KEPT names.
_OWN = frozenset((
    "environ", "path_info", "path", "META", "method", "content_type",
    "content_params", "GET", "POST", "resolver_match", "COOKIES", "FILES",
    "encoding", "upload_handlers", "user", "auth", "csrf_processing_done",
    "csrf_cookie_needs_reset",
))  # fmt: skip
_OWN |= frozenset(
    # What Django derives from the request and caches on it (headers,
    # accepted_types...): the outer request's would describe the MCP POST.
    name
    for klass in WSGIRequest.__mro__
    for name, value in vars(klass).items()
    if isinstance(value, cached_property)
)
_ENVIRON = frozenset((
    "SERVER_NAME", "SERVER_PORT", "SERVER_PROTOCOL", "REMOTE_ADDR", "REMOTE_HOST",
    "SCRIPT_NAME", "HTTPS", "wsgi.url_scheme", "wsgi.version", "wsgi.multithread",
    "wsgi.multiprocess", "wsgi.run_once", "wsgi.errors",
))  # fmt: skip
#: Outer headers the inner request never gets: those of the MCP POST's own
#: body and connection (``Content-*`` too, below), and those that would make
#: the view answer what no tool result carries: a compressed body, a part of
#: one, "not modified", another method. Without a caller, neither
#: credentials (the view must not authenticate one the endpoint did not).
_DROPPED = frozenset(
    f"HTTP_{name.upper().replace('-', '_')}"
    for name in (
        *("Transfer-Encoding", "TE", "Trailer", "Connection", "Keep-Alive"),
        *("Upgrade", "Proxy-Connection", "Expect", "Digest", "Accept-Encoding"),
        *("Range", "If-Range", "If-Match", "If-None-Match", "If-Modified-Since"),
        *("If-Unmodified-Since", "X-HTTP-Method-Override", "X-HTTP-Method"),
        "X-Method-Override",
    )
)
_DROPPED_ANONYMOUS = _DROPPED | {"HTTP_AUTHORIZATION", "HTTP_COOKIE"}
#: What a middleware decided, kept so the view answers as REST's: the origin
#: ``build_absolute_uri`` reads, and an exemption from CSRF checks.
_KEPT = ("_current_scheme_host", "_dont_enforce_csrf_checks")


def build_request(
    endpoint: Endpoint,
    call: Call,
    context: CallContext,
    encode: bool,
    paging: list[tuple[str, str]],
) -> WSGIRequest:
    """The inner request of ``call``; ``paging``: a host paginator's pairs
    beside the call's query (frisian_mcp.pagination.host_query)."""
    path = endpoint.path
    for kwarg, value in call.path_kwargs.items():
        path = path.replace("{" + kwarg + "}", value)
    # WSGI carries the path as latin-1 text of its UTF-8 bytes (PEP 3333).
    path = path.encode("utf-8").decode("iso-8859-1")
    body = b""
    if encode and call.body is not None:
        # Parsed by the view's own parsers, which refuse JSON as over REST.
        body = json.dumps(call.body, cls=JSONEncoder).encode()
    query = urlencode([*call.query, *paging])
    request = inner_request(context, endpoint, path, query, body)
    request.frisian_mcp_call = call  # type: ignore[attr-defined]
    return request


def takes_json(endpoint: Endpoint) -> bool:
    parsers = getattr(endpoint.view_class, "parser_classes", ())
    return any(isinstance(p, type) and issubclass(p, JSONParser) for p in parsers)


def inner_request(
    context: CallContext, endpoint: Endpoint, path: str, query: str, body: bytes
) -> WSGIRequest:
    """An inner request: the outer one's headers and attributes, the caller."""
    outer, authenticated = context.request, context.is_authenticated
    dropped = _DROPPED if authenticated else _DROPPED_ANONYMOUS
    environ: dict[str, Any] = {"wsgi.url_scheme": outer.scheme or "http"}
    environ.update(SERVER_NAME="localhost", SERVER_PORT="80")
    environ.update(
        (key, value)
        for key, value in outer.META.items()
        if (key[:5] == "HTTP_" or key in _ENVIRON)
        and key not in dropped
        and not key.startswith("HTTP_CONTENT_")
    )
    accept = "application/json"
    if pinned := pinned_version(endpoint.view_class):
        versioning, version = pinned
        param = versioning.version_param
        if issubclass(versioning, AcceptHeaderVersioning):
            accept += f"; {param}={version}"
        elif param not in parse_qs(query):
            query = "&".join(filter(None, (query, urlencode({param: version}))))
    environ.update(
        REQUEST_METHOD=endpoint.method,
        PATH_INFO=path,
        QUERY_STRING=query,
        CONTENT_TYPE="application/json",
        CONTENT_LENGTH=str(len(body)),
        HTTP_ACCEPT=accept,
    )
    environ["wsgi.input"] = io.BytesIO(body)
    request = WSGIRequest(environ)
    for key, value in vars(outer).items():
        if (key[:1] != "_" and key not in _OWN) or key in _KEPT:
            setattr(request, key, value)
    if not authenticated:
        request.user = context.user or AnonymousUser()
    elif _accepts_caller(endpoint, context):
        # The view's Request is handed the endpoint's caller (ADR 0039).
        request.user = context.user
        request.frisian_mcp_caller = context  # type: ignore[attr-defined]
    else:
        # A view that does not take the endpoint's kind of credentials
        # authenticates from the copied headers and session, as over REST.
        request.user = context.session_user or AnonymousUser()
    return request


def pinned_version(view_class: type[Any]) -> tuple[Any, str] | None:
    """``(versioning class, API_VERSION)`` for a view that reads its version
    from the request (Accept header, query parameter); ``None`` otherwise.

    Route-borne versions (URL path, namespace, host name) come from the
    endpoint the tool was discovered on, and ``API_VERSION`` unset leaves
    every view at its ``default_version``, as a REST request without one.
    """
    version = mcp_settings.API_VERSION
    versioning = getattr(view_class, "versioning_class", None)
    if version is None or not (
        isinstance(versioning, type)
        and issubclass(versioning, AcceptHeaderVersioning | QueryParameterVersioning)
    ):
        return None
    return versioning, version


def _accepts_caller(endpoint: Endpoint, context: CallContext) -> bool:
    """Whether the view takes the authenticator that recognised the caller."""
    classes = getattr(endpoint.callback, "initkwargs", {}).get(
        "authentication_classes",
        getattr(endpoint.view_class, "authentication_classes", None),
    )
    if context.authenticator is None or classes is None:
        return True
    return any(isinstance(context.authenticator, cls) for cls in classes)


def resolve(
    endpoint: Endpoint, path_kwargs: Mapping[str, str], request: WSGIRequest
) -> urls.ResolverMatch | None:
    """Resolve the inner path; ``None`` unless it lands on the endpoint's view."""
    expected = {**endpoint.fixed_kwargs, **path_kwargs}
    # The URLconf the endpoint was discovered in, whatever a middleware set.
    urlconf = mcp_settings.URLCONF or str(settings.ROOT_URLCONF)
    match = _resolve_path(urlconf, request.path_info)
    if match is None or not _lands_on(match, endpoint, expected):
        match = _reverse_match(endpoint, expected, urlconf)
    if match is not None:
        request.resolver_match = match
    return match


@functools.lru_cache(maxsize=512)
def _resolve_path(urlconf: str, path: str) -> urls.ResolverMatch | None:
    """The URLconf's match of ``path``, kept for the 512 paths called last
    (list and create paths, a row read again; about 2.4 kB each)."""
    try:
        return urls.get_resolver(urlconf).resolve(path)
    except urls.Resolver404:
        return None


on_change("ROOT_URLCONF", "FRISIAN_MCP")(_resolve_path.cache_clear)


def _lands_on(
    match: urls.ResolverMatch, endpoint: Endpoint, expected: Mapping[str, str]
) -> bool:
    same_view = getattr(match.func, "cls", None) is endpoint.view_class and getattr(
        match.func, "actions", None
    ) == getattr(endpoint.callback, "actions", None)
    return same_view and all(str(match.kwargs.get(k)) == v for k, v in expected.items())


def _reverse_match(
    endpoint: Endpoint, kwargs: Mapping[str, str], urlconf: str
) -> urls.ResolverMatch | None:
    """Second chance for regexes the path template cannot express."""
    if not endpoint.url_name:
        return None
    name = ":".join(filter(None, (endpoint.namespace, endpoint.url_name)))
    try:
        path = urls.reverse(name, kwargs=dict(kwargs), urlconf=urlconf)
        prefix = urls.get_script_prefix()
        if path.startswith(prefix):
            path = "/" + path[len(prefix) :]
        match = urls.get_resolver(urlconf).resolve(path)
    except (urls.NoReverseMatch, urls.Resolver404):
        return None
    return match if _lands_on(match, endpoint, kwargs) else None
