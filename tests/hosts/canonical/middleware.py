"""The canonical-origin middleware, as hosts that set one write it."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponseBase

#: The public origin every absolute URL must use.
ORIGIN = "https://api.example.org"


class CanonicalHostMiddleware:
    """Sets the public origin and the API's URLconf on every request."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        request._current_scheme_host = ORIGIN  # type: ignore[attr-defined]
        request.urlconf = "tests.hosts.canonical.urls_public"
        return self.get_response(request)
