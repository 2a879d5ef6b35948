"""The HTTP boundary: one Streamable HTTP endpoint for both MCP eras, a DRF view.

Transport rules only (MCP 2025-11-25 and 2026-07-28 basic/transports): the
method (POST; no GET stream, ADR 0005; a browser's GET may get a page,
``BROWSER_VIEW_CLASS``), Origin, Accept, Content-Type, body size, DRF
authentication, and the reply as JSON or a one-event SSE stream. Which
parts are DRF's own and which are not, and why: ADR 0039. Which era a
request speaks and its ``Mcp-*`` headers are ``jsonrpc``'s.
"""

from __future__ import annotations

import math
from http import HTTPStatus
from typing import Any
from urllib.parse import urlsplit

from django.core.exceptions import SuspiciousOperation
from django.http import (
    HttpRequest,
    HttpResponse,
    HttpResponseBase,
    StreamingHttpResponse,
)
from django.utils.cache import patch_vary_headers
from rest_framework import exceptions as drf_exceptions
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import APIView

from frisian_mcp import hooks, jsonrpc, parsers, replies, streams
from frisian_mcp.conf import mcp_settings
from frisian_mcp.exceptions import BodyError, InvalidRequest, JSONRPCError, plain_name
from frisian_mcp.types import CallContext

__all__ = ["MCPView", "RequireAuthentication", "origin_allowed"]

_ALLOWED_METHODS = "POST, OPTIONS"
# CORS: GET and DELETE too, so that a browser reads their 405, not a network
# error; the headers MCP clients send, and those they must read.
_CORS_METHODS = "GET, POST, DELETE"
_CORS_HEADERS = (
    "Authorization, Content-Type, Accept, MCP-Protocol-Version, Mcp-Method, "
    "Mcp-Name, Mcp-Session-Id, Last-Event-ID"
)
_CORS_EXPOSED = "WWW-Authenticate, Mcp-Session-Id, MCP-Protocol-Version"
#: Seconds a browser may cache a preflight (Chromium caps it at 7200).
_CORS_MAX_AGE = "7200"
_JSON = "application/json"
_SSE = "text/event-stream"
_HTML = "text/html"
#: A GET's choice: only one preferring text/html gets a page (``*/*``: 405).
_GET_TYPES = [_SSE, _JSON, _HTML]
#: Accepted types that take the reply; those that take it as JSON, not SSE.
_ACCEPTABLE = frozenset({_JSON, _SSE, "*/*", "application/*", "text/*"})
_JSON_TOO = frozenset({_JSON, "*/*", "application/*"})
_REFUSALS = {
    400: "Bad request: the request is malformed.",
    403: "Forbidden: the Origin of this request is not allowed.",
    405: "Method not allowed: this endpoint takes POST only.",
    406: "Not acceptable: accept application/json or text/event-stream.",
    411: "Length required: this server cannot read a chunked body; "
    "send Content-Length.",
    415: "Unsupported media type: send Content-Type: application/json.",
}
_CREDENTIAL_PARAMETERS = frozenset(
    {"access_token", "token", "api_key", "apikey", "auth", "authorization"}
    | {"jwt", "bearer", "key", "password", "secret"}
)


class _EveryDatabase(frozenset[str]):
    """Holds every alias: Django's handler asks only ``alias in ...``."""

    def __contains__(self, alias: object) -> bool:
        return True


class RequireAuthentication(BasePermission):
    """``REQUIRE_AUTHENTICATION``: a POST needs a recognised caller (401)."""

    def has_permission(self, request: Any, view: Any) -> bool:
        required = request.method == "POST" and mcp_settings.REQUIRE_AUTHENTICATION
        if required and not getattr(request.user, "is_authenticated", False):
            raise drf_exceptions.NotAuthenticated  # even without authenticators
        return True


class MCPNegotiation(BaseContentNegotiation):
    """MCP's rule (basic/transports "Sending Messages"): JSON whenever the
    client takes it, SSE when it takes only that; a POST that takes neither
    is 406. Only the ``Content-Type: application/json`` body is parsed."""

    def select_parser(self, request: Request, parsers: Any) -> Any:
        content_type = request._request.content_type or ""
        return parsers[0] if content_type.lower() == _JSON else None

    def select_renderer(
        self, request: Request, renderers: Any, format_suffix: Any = None
    ) -> tuple[Any, str]:
        json_renderer, sse_renderer = renderers
        accept = request.META.get("HTTP_ACCEPT")
        if not accept or request.method != "POST":
            return json_renderer, _JSON
        types = {part.split(";")[0].strip().lower() for part in accept.split(",")}
        if not types & _ACCEPTABLE:
            raise _refused(406)
        if _SSE in types and not types & _JSON_TOO:
            return sse_renderer, _SSE
        return json_renderer, _JSON


class MCPView(APIView):
    """The MCP endpoint. Mount it with ``path("mcp", include("frisian_mcp.urls"))``.

    Every DRF policy is its own, none the host's (ADR 0039)."""

    http_method_names = ["get", "post", "delete", "options"]
    parser_classes = (parsers.StrictJSONParser,)
    renderer_classes = (replies.JSONRPCRenderer, replies.EventStreamRenderer)
    content_negotiation_class = MCPNegotiation
    permission_classes = (RequireAuthentication,)
    throttle_classes = ()
    versioning_class = metadata_class = None

    #: The request's Origin once allowed: every answer grants it CORS.
    granted_origin: str | None = None
    #: Django's middleware's user, before DRF's authenticators replace it.
    session_user: Any = None

    @classmethod
    def as_view(cls, **initkwargs: Any) -> Any:
        """The view, out of ``ATOMIC_REQUESTS``: each call's view has REST's (ADR 0012)."""
        view = super().as_view(**initkwargs)
        view._non_atomic_requests = _EveryDatabase()  # type: ignore[attr-defined]
        return view

    def dispatch(self, request: Any, *args: Any, **kwargs: Any) -> HttpResponseBase:
        """DRF's dispatch in the audit's frame, under the endpoint's one last
        resort (-32603 with a correlation id); CORS for an allowed Origin."""
        with hooks.exchange("http") as self.exchange:
            response: HttpResponseBase = jsonrpc.last_resort(
                lambda: super(MCPView, self).dispatch(request, *args, **kwargs),
                self._internal_error,
                "at the MCP endpoint",
            )
            status = self.exchange.status = response.status_code
            if self.exchange.outcome is None and status >= 400:
                phrase = HTTPStatus(status).phrase  # refused before JSON-RPC
                self.exchange.outcome = phrase.lower().replace(" ", "_")
        if self.granted_origin is not None:
            response["Access-Control-Allow-Origin"] = self.granted_origin
            response["Access-Control-Expose-Headers"] = _CORS_EXPOSED
        patch_vary_headers(response, ("Origin",))
        return response

    @property
    def default_response_headers(self) -> dict[str, str]:
        return {}  # ``Allow`` goes on 405s and preflights only

    def _internal_error(self, error: JSONRPCError) -> HttpResponseBase:
        request_id = None
        if isinstance(self.request, Request) and self.request.method == "POST":
            try:  # the body's id, the body parsed now if not yet
                request_id = parsers.readable_id(self.request.data)
            except BodyError as refused:
                request_id = refused.request_id
            except (JSONRPCError, drf_exceptions.APIException):
                pass
        response = _response(error.http_status, jsonrpc.error_body(request_id, error))
        response.accepted_renderer = replies.JSONRPCRenderer()  # negotiated or not
        response.accepted_media_type = _JSON
        response.renderer_context = {}  # type: ignore[attr-defined]
        return response

    def initialize_request(
        self, request: HttpRequest, *args: Any, **kwargs: Any
    ) -> Any:
        """DRF's, the authenticators left to :meth:`perform_authentication`
        (inside DRF's handling of exceptions)."""
        return Request(
            request,
            parsers=self.get_parsers(),
            negotiator=self.get_content_negotiator(),
            parser_context=self.get_parser_context(request),
        )

    def get_parser_context(self, http_request: HttpRequest) -> dict[str, Any]:
        context = super().get_parser_context(http_request)
        if http_request.method == "POST":
            context["limit"] = hooks.request_limit()
            context["max_depth"] = mcp_settings.MAX_JSON_DEPTH
        return context

    def get_authenticators(self) -> list[Any]:
        """``AUTHENTICATION_CLASSES``' instances, or DRF's default's."""
        classes: Any = mcp_settings.AUTHENTICATION_CLASSES
        if classes is None:
            classes = api_settings.DEFAULT_AUTHENTICATION_CLASSES
        return [cls() for cls in classes]

    def get_authenticate_header(self, request: Any) -> Any:
        """Every authenticator's challenge, once each, the ``Bearer`` ones first.

        MCP 2025-11-25 basic/authorization: clients look for the Bearer
        challenge (its ``resource_metadata``), and some read only the first;
        the project's other schemes (``Token``...) stay on offer after it.
        """
        found = [a.authenticate_header(request) for a in request.authenticators]
        found = sorted(filter(None, found), key=lambda h: h[:6].lower() != "bearer")
        return ", ".join(dict.fromkeys(found)) or None

    def get_exception_handler(self) -> Any:
        """JSON-RPC errors, never the host's ``EXCEPTION_HANDLER`` (ADR 0013)."""
        return _exception_handler

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        # MCP 2025-11-25 basic/transports "Security Warning": invalid Origin
        # must get 403 (and no CORS grant), whatever the method.
        origin = request.META.get("HTTP_ORIGIN")
        if origin is not None and not origin_allowed(origin, request._request):
            raise _refused(403)
        self.granted_origin = origin
        super().initial(request, *args, **kwargs)

    def perform_authentication(self, request: Any) -> None:
        """A POST's transport checks, then its caller; the other methods
        answer without one (a preflight carries no credentials)."""
        if request.method != "POST":
            return
        if request.negotiator.select_parser(request, request.parsers) is None:
            raise _refused(415)
        _check_body(request)
        if request.META.get("QUERY_STRING") and any(
            name.lower() in _CREDENTIAL_PARAMETERS for name in request.GET
        ):
            # MCP 2025-11-25 basic/authorization: tokens never travel in the
            # query string (they end up in logs and browser history).
            message = "send credentials in the Authorization header, not in the URL."
            raise InvalidRequest(f"Bad request: {message}", http_status=400)
        self.session_user = getattr(request._request, "user", None)
        request.authenticators = self.get_authenticators()
        request.user  # noqa: B018  (DRF's perform_authentication)

    def get(self, request: Any) -> HttpResponseBase:
        """A browser's page (``BROWSER_VIEW_CLASS``); else 405: no stream."""
        page = mcp_settings.BROWSER_VIEW_CLASS
        if page is not None and request.get_preferred_type(_GET_TYPES) == _HTML:
            return page.as_view()(request._request)
        raise drf_exceptions.MethodNotAllowed(request.method)

    def delete(self, request: Any) -> HttpResponseBase:
        """No sessions to end: 405."""
        raise drf_exceptions.MethodNotAllowed(request.method)

    def options(self, request: Any, *args: Any, **kwargs: Any) -> Any:
        """Answer CORS preflights of allowed origins (others got 403)."""
        response = HttpResponse(status=204)
        response["Allow"] = _ALLOWED_METHODS
        if self.granted_origin is not None:
            response["Access-Control-Allow-Methods"] = _CORS_METHODS
            response["Access-Control-Allow-Headers"] = _CORS_HEADERS
            response["Access-Control-Max-Age"] = _CORS_MAX_AGE
        return response

    def post(self, request: Request) -> HttpResponseBase:
        """Receive one JSON-RPC message (or a 2025-03-26 batch)."""
        context = CallContext(
            request=request._request,
            user=request.user,
            auth=request.auth,
            authenticator=request.successful_authenticator,
            session_user=self.session_user,
            exchange=self.exchange,
        )
        reply = streams.answer(request.data, context, request.headers)
        if isinstance(reply, HttpResponseBase):  # notifications, then the reply
            return reply
        response = _response(reply.status, reply.body, reply.headers)
        response.priming = not reply.modern  # type: ignore[attr-defined]
        return response


def _check_body(request: Request) -> None:
    """413 for a declared length over the limit; the stream where DRF,
    reading only a positive Content-Length, sees none: an ASGI body, a
    chunked one a WSGI server de-chunked (``wsgi.input_terminated``)."""
    meta, limit = request.META, request.parser_context["limit"]
    declared = str(meta.get("CONTENT_LENGTH") or "0")
    if declared.isdigit() and int(declared) > 0:
        if int(declared) > limit:
            raise parsers.too_large(limit)
        return
    stream: Any = request._request
    chunked = "chunked" in meta.get("HTTP_TRANSFER_ENCODING", "").lower()
    if chunked and not meta.get("CONTENT_LENGTH") and "wsgi.input" in meta:
        if not meta.get("wsgi.input_terminated"):
            raise _refused(411)
        stream = meta["wsgi.input"]
    request._stream = stream


def origin_allowed(origin: str, request: HttpRequest) -> bool:
    """Whether ``origin`` is the endpoint's own or in ``ALLOWED_ORIGINS``."""
    allowed = [str(o).rstrip("/") for o in mcp_settings.ALLOWED_ORIGINS]
    if "*" in allowed or origin.rstrip("/") in allowed:
        return True
    parts = urlsplit(origin)
    if not parts.scheme or not parts.netloc:
        return False
    try:
        own_host = request.get_host()
    except SuspiciousOperation:  # DisallowedHost
        return False
    return parts.scheme == request.scheme and parts.netloc.lower() == own_host.lower()


def _refused(status: int) -> InvalidRequest:
    return InvalidRequest(_REFUSALS[status], http_status=status)


def _exception_handler(exc: Exception, context: dict[str, Any]) -> Any:
    """``exc`` as a JSON-RPC error; ``None`` (the last resort's) if unexpected.

    DRF's ``handle_exception`` has chosen 401 or 403 for a refused caller
    (403 without a challenge) and set the challenge.
    """
    view, request_id, headers = context["view"], None, {}
    if isinstance(exc, BodyError):  # what jsonrpc.handle would answer
        request_id, error = exc.request_id, exc.error
        view.exchange.outcome = error.outcome
    elif isinstance(exc, JSONRPCError):
        error = exc
    elif isinstance(exc, SuspiciousOperation):  # Django's 400s, not its page
        error = _refused(400)
    elif isinstance(exc, drf_exceptions.MethodNotAllowed):
        error, headers["Allow"] = _refused(405), _ALLOWED_METHODS
    elif isinstance(exc, drf_exceptions.APIException):
        error = _refusal(exc, view, headers)
    else:
        return None
    if error.http_status == 411:
        # No Content-Length, so the server closes the connection (PEP 3333
        # forbids ``Connection: close``): its unread body must never be
        # read as the next request (smuggling).
        data = replies.encode(jsonrpc.error_body(None, error)).encode()
        return StreamingHttpResponse([data], status=411, content_type=_JSON)
    return _response(error.http_status, jsonrpc.error_body(request_id, error), headers)


def _refusal(
    exc: drf_exceptions.APIException, view: MCPView, headers: dict[str, str]
) -> InvalidRequest:
    """The caller refused: 401 with the challenge DRF set, or 403."""
    credentials = isinstance(
        exc, drf_exceptions.AuthenticationFailed | drf_exceptions.NotAuthenticated
    )
    reason = "the request was refused (a CSRF check, say)."
    if credentials:
        failed = isinstance(exc, drf_exceptions.AuthenticationFailed)
        reason = (
            "the credentials were not accepted."
            if failed
            else "credentials are required."
        )
    code = view.exchange.outcome = (
        "not_authenticated" if credentials else "permission_denied"
    )
    scheme = view.request.META.get("HTTP_AUTHORIZATION", "").partition(" ")[0]
    view.exchange.scheme = plain_name(scheme)  # not credentials
    challenge = getattr(exc, "auth_header", None)
    if challenge:
        headers["WWW-Authenticate"] = challenge
    title, status = ("Unauthorized", 401) if challenge else ("Forbidden", 403)
    return InvalidRequest(f"{title}: {reason}", data={"code": code}, http_status=status)


def _response(status: int, body: Any, headers: Any = None) -> Response:
    """The answer; an ``unavailable`` error's 503 says when to retry."""
    response = Response(body, status=status, headers=dict(headers or {}))
    if status == 503:
        retry = (body.get("error") or {}).get("data", {}).get("retry_after", 1)
        response["Retry-After"] = str(math.ceil(retry))
    return response
