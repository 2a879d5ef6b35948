"""Middleware that makes every request carry the canonical scheme and host.

Behind a proxy the ``Host`` header is an internal name; projects rewrite it
from a setting so the absolute URLs in their API use the public one.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse


class CanonicalHostMiddleware:
    """Set ``HTTP_HOST`` and the URL scheme from ``ZOO_CANONICAL_URL``."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        canonical = getattr(settings, "ZOO_CANONICAL_URL", None)
        if canonical:
            scheme, _, host = canonical.partition("://")
            request.META["HTTP_HOST"] = host
            request.META["wsgi.url_scheme"] = scheme
        return self.get_response(request)
