"""The HTTP boundary: one Streamable HTTP endpoint for both MCP eras.

Transport rules only (MCP 2025-11-25 and 2026-07-28 basic/transports): the
method (POST; no GET stream, ADR 0005; a browser's GET may get a page,
``BROWSER_VIEW_CLASS``), Origin, Accept, Content-Type, body size, DRF
authentication, and the reply as JSON or a one-event SSE stream.
Which era a request speaks and its ``Mcp-*`` headers are ``jsonrpc``'s.
"""

from __future__ import annotations

import math
import uuid
from http import HTTPStatus
from typing import Any, cast
from urllib.parse import urlsplit

from django.core.exceptions import SuspiciousOperation
from django.http import (
    HttpRequest,
    HttpResponse,
    HttpResponseBase,
    StreamingHttpResponse,
)
from django.utils.cache import patch_vary_headers
from django.utils.decorators import method_decorator
from django.views import View
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions as drf_exceptions
from rest_framework.request import Request
from rest_framework.settings import api_settings

from frisian_mcp import hooks, jsonrpc, parsers, replies
from frisian_mcp.conf import mcp_settings
from frisian_mcp.exceptions import InvalidRequest, JSONRPCError, plain_name
from frisian_mcp.types import CallContext, Exchange

__all__ = ["MCPView"]

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


class _EveryDatabase(frozenset[str]):
    """Holds every alias: Django's handler asks only ``alias in ...``."""

    def __contains__(self, alias: object) -> bool:
        return True


@method_decorator(csrf_exempt, name="dispatch")
class MCPView(View):
    """The MCP endpoint. Mount it with ``path("mcp", include("frisian_mcp.urls"))``."""

    http_method_names = ["get", "post", "delete", "options"]

    @classmethod
    def as_view(cls, **initkwargs: Any) -> Any:
        """The view, out of ``ATOMIC_REQUESTS``: each call's view has REST's (ADR 0012)."""
        view = super().as_view(**initkwargs)
        view._non_atomic_requests = _EveryDatabase()  # type: ignore[attr-defined]
        return view

    #: The request's Origin once allowed: every answer grants it CORS.
    granted_origin: str | None = None

    def dispatch(
        self, request: HttpRequest, *args: Any, **kwargs: Any
    ) -> HttpResponseBase:
        """Check Origin on every request, then route by method.

        Whatever fails unexpectedly on the way is a JSON-RPC -32603 with a
        correlation id (:func:`jsonrpc.last_resort`); hooks.exchange frames it.
        Every answer to an allowed origin, errors too, grants it CORS.
        """
        with hooks.exchange("http") as self.exchange:
            response = cast(
                HttpResponseBase,
                jsonrpc.last_resort(
                    lambda: self._guarded(request, *args, **kwargs),
                    lambda error: _error(500, error),
                    "at the MCP endpoint",
                ),
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

    def _guarded(
        self, request: HttpRequest, *args: Any, **kwargs: Any
    ) -> HttpResponseBase:
        origin = request.META.get("HTTP_ORIGIN")
        try:
            if origin is not None and not origin_allowed(origin, request):
                # MCP 2025-11-25 basic/transports "Security Warning": invalid
                # Origin must get 403 (and no CORS grant).
                return _refuse(
                    403, "Forbidden: the Origin of this request is not allowed."
                )
            self.granted_origin = origin
            return super().dispatch(request, *args, **kwargs)
        except SuspiciousOperation:
            # What Django itself answers with 400 (too many query fields, a
            # bad Host...), without its HTML page.
            return _refuse(400, "Bad request: the request is malformed.")

    def get(self, request: HttpRequest) -> HttpResponseBase:
        """A browser's page (``BROWSER_VIEW_CLASS``); else 405: no stream."""
        page = mcp_settings.BROWSER_VIEW_CLASS
        if page is not None and request.get_preferred_type(_GET_TYPES) == _HTML:
            return page.as_view()(request)
        return _method_not_allowed()

    def delete(self, request: HttpRequest) -> HttpResponse:
        """No sessions to end: 405."""
        return _method_not_allowed()

    def options(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        """Answer CORS preflights of allowed origins (others got 403)."""
        response = HttpResponse(status=204)
        response["Allow"] = _ALLOWED_METHODS
        if self.granted_origin is not None:
            response["Access-Control-Allow-Methods"] = _CORS_METHODS
            response["Access-Control-Allow-Headers"] = _CORS_HEADERS
            response["Access-Control-Max-Age"] = _CORS_MAX_AGE
        return response

    def post(self, request: HttpRequest) -> HttpResponseBase:
        """Receive one JSON-RPC message (or a 2025-03-26 batch)."""
        accepted = _accepted_types(request)
        if accepted is not None and not accepted & _ACCEPTABLE:
            return _refuse(
                406, "Not acceptable: accept application/json or text/event-stream."
            )
        content_type = request.content_type or ""
        if content_type.lower() != _JSON:
            return _refuse(
                415, "Unsupported media type: send Content-Type: application/json."
            )
        limit = hooks.request_limit()
        declared = str(request.META.get("CONTENT_LENGTH") or "0")
        if declared.isdigit() and int(declared) > limit:
            return _too_large(limit)
        body = _read(request, limit)
        if body is None:
            return _length_required()
        if len(body) > limit:
            return _too_large(limit)
        if _credentials_in_query(request):
            # MCP 2025-11-25 basic/authorization: tokens never travel in the
            # query string (they end up in logs and browser history).
            return _refuse(
                400,
                "Bad request: send credentials in the Authorization header, not in the URL.",
            )
        # From here the body is read: an unexpected failure keeps its id.
        return cast(
            HttpResponse,
            jsonrpc.last_resort(
                lambda: self._answer(request, body, accepted),
                lambda error: _error(error.http_status, error, body),
                "at the MCP endpoint",
            ),
        )

    def _answer(self, request: HttpRequest, body: bytes, accepted: Any) -> HttpResponse:
        """Authenticate the caller, then answer the body."""
        auth_failure, context = _authenticate(request, self.exchange)
        if auth_failure is not None:
            return auth_failure
        reply = jsonrpc.handle(body, context, headers=request.headers)
        if reply.body is None:
            return _accepted()
        sse = accepted is not None and _SSE in accepted and not accepted & _JSON_TOO
        response = _render(reply.status, reply.body, sse=sse, priming=not reply.modern)
        for name, value in reply.headers.items():
            response[name] = value
        return response


def _read(request: HttpRequest, limit: int) -> bytes | None:
    """At most ``limit + 1`` bytes of the body; ``None``: unreadable.

    Django reads a WSGI body up to Content-Length, so a chunked body
    without one would read as empty. A server that de-chunks it says so
    with ``wsgi.input_terminated`` (gunicorn does); ASGI bodies are whole.
    """
    meta = request.META
    chunked = "chunked" in meta.get("HTTP_TRANSFER_ENCODING", "").lower()
    if not chunked or meta.get("CONTENT_LENGTH") or "wsgi.input" not in meta:
        return request.read(limit + 1)
    if not meta.get("wsgi.input_terminated"):
        return None
    data: bytes = meta["wsgi.input"].read(limit + 1)
    return data


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


def _authenticate(
    request: HttpRequest, exchange: Exchange
) -> tuple[HttpResponse | None, CallContext]:
    """Identify the caller with DRF authenticators; refuse when required.

    401 carries the authenticators' challenges in ``WWW-Authenticate``;
    without any challenge DRF's rule applies and the answer is 403.
    """
    classes = mcp_settings.AUTHENTICATION_CLASSES
    if classes is None:
        classes = cast(list[type[Any]], api_settings.DEFAULT_AUTHENTICATION_CLASSES)
    authenticators = [cls() for cls in classes]
    # DRF's Request replaces request.user with the caller it authenticates;
    # keep the middleware's (lazy, session-based) user for views that do not
    # accept the endpoint's authenticator (see invocation.requests).
    session_user = getattr(request, "user", None)
    # DRF's CSRF check reads request.POST: Django's own (empty for JSON) must
    # exist, or DRF re-reads the spent body (RawPostDataException).
    request.POST  # noqa: B018
    drf_request = Request(request, authenticators=authenticators)
    try:
        user, auth = drf_request.user, drf_request.auth
    except drf_exceptions.APIException as exc:
        refused: drf_exceptions.APIException | None = exc
    else:
        anonymous = not getattr(user, "is_authenticated", False)
        required = mcp_settings.REQUIRE_AUTHENTICATION and anonymous
        refused = drf_exceptions.NotAuthenticated() if required else None
    if refused is not None:
        refusal = _refusal(refused, authenticators, drf_request, exchange)
        return refusal, CallContext(request=request, user=None, exchange=exchange)
    return None, CallContext(
        request=request,
        user=user,
        auth=auth,
        authenticator=drf_request.successful_authenticator,
        session_user=session_user,
        exchange=exchange,
    )


def _refusal(
    exc: drf_exceptions.APIException,
    authenticators: list[Any],
    drf_request: Request,
    exchange: Exchange,
) -> HttpResponse:
    challenge = _challenge(authenticators, drf_request)
    credentials = isinstance(
        exc, drf_exceptions.AuthenticationFailed | drf_exceptions.NotAuthenticated
    )
    status = 401 if credentials and challenge else 403
    code = "not_authenticated" if credentials else "permission_denied"
    scheme = drf_request.META.get("HTTP_AUTHORIZATION", "").partition(" ")[0]
    exchange.outcome, exchange.scheme = code, plain_name(scheme)  # not credentials
    title = "Unauthorized" if status == 401 else "Forbidden"
    message = f"{title}: {_auth_message(exc)}"
    response = _error(status, InvalidRequest(message, data={"code": code}))
    if status == 401 and challenge:
        response["WWW-Authenticate"] = challenge
    return response


def _challenge(authenticators: list[Any], drf_request: Request) -> str | None:
    """Every authenticator's challenge, once each, the ``Bearer`` ones first.

    MCP 2025-11-25 basic/authorization: clients look for the Bearer
    challenge (its ``resource_metadata``), and some read only the first;
    the project's other schemes (``Token``...) stay on offer after it.
    """
    found = [a.authenticate_header(drf_request) for a in authenticators]
    found = [h for h in found if h]
    found.sort(key=lambda header: not header.lower().startswith("bearer"))
    return ", ".join(dict.fromkeys(found)) or None


_CREDENTIAL_PARAMETERS = frozenset(
    {"access_token", "token", "api_key", "apikey", "auth", "authorization"}
    | {"jwt", "bearer", "key", "password", "secret"}
)


def _credentials_in_query(request: HttpRequest) -> bool:
    return bool(request.META.get("QUERY_STRING")) and any(
        name.lower() in _CREDENTIAL_PARAMETERS for name in request.GET
    )


def _auth_message(exc: drf_exceptions.APIException) -> str:
    if isinstance(exc, drf_exceptions.AuthenticationFailed):
        return "the credentials were not accepted."
    if isinstance(exc, drf_exceptions.NotAuthenticated):
        return "credentials are required."
    return "the request was refused (a CSRF check, say)."


#: Accepted types that take the reply; those that take it as JSON, not SSE.
_ACCEPTABLE = frozenset({_JSON, _SSE, "*/*", "application/*", "text/*"})
_JSON_TOO = frozenset({_JSON, "*/*", "application/*"})


def _accepted_types(request: HttpRequest) -> set[str] | None:
    """The media types ``Accept`` names, lower case; ``None``: no ``Accept``."""
    accept = request.META.get("HTTP_ACCEPT")
    if not accept:
        return None
    return {part.split(";")[0].strip().lower() for part in accept.split(",")}


def _render(
    status: int, body: Any, *, sse: bool = False, priming: bool = True
) -> HttpResponse:
    # Unsorted: keys come in a fixed order, the same bytes in every process.
    data = replies.encode(body)
    if sse and status == 200:
        # MCP 2025-11-25 basic/transports: a priming event (id, empty
        # data) first, then the response, then the stream ends. 2026-07-28
        # streams are not resumable: the response alone.
        stream = f"event: message\ndata: {data}\n\n"
        if priming:
            stream = f"id: {uuid.uuid4().hex}\ndata: \n\n" + stream
        response = HttpResponse(stream, status=status, content_type=_SSE)
        response["X-Accel-Buffering"] = "no"
        return response
    response = HttpResponse(data, status=status, content_type=_JSON)
    if status == 503:  # the retry_after of an ``unavailable`` error
        retry = (body.get("error") or {}).get("data", {}).get("retry_after", 1)
        response["Retry-After"] = str(math.ceil(retry))
    return response


def _error(status: int, exc: JSONRPCError, body: bytes | None = None) -> HttpResponse:
    """``exc`` as the answer; with the id of the request ``body`` if read."""
    request_id = parsers.request_id(body, mcp_settings.MAX_JSON_DEPTH) if body else None
    return _render(status, jsonrpc.error_body(request_id, exc))


def _refuse(status: int, message: str) -> HttpResponse:
    return _error(status, InvalidRequest(message))


def _too_large(limit: int) -> HttpResponse:
    return _refuse(413, f"Request body too large: the limit is {limit} bytes.")


def _length_required() -> StreamingHttpResponse:
    """411 with no Content-Length, so the server closes the connection
    (PEP 3333 forbids ``Connection: close``): its unread body must never be
    read as the next request (smuggling)."""
    error = InvalidRequest(
        "Length required: this server cannot read a chunked body; send Content-Length."
    )
    data = replies.dumps(jsonrpc.error_body(None, error)).encode()
    return StreamingHttpResponse([data], status=411, content_type=_JSON)


def _accepted() -> HttpResponse:
    """202 with no body (and so no content type) for notifications."""
    response = HttpResponse(status=202)
    del response["Content-Type"]
    return response


def _method_not_allowed() -> HttpResponse:
    response = _refuse(405, "Method not allowed: this endpoint takes POST only.")
    response["Allow"] = _ALLOWED_METHODS
    return response
