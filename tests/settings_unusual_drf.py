"""The test settings with a host whose DRF defaults are unusual everywhere.

The endpoint sets each DRF policy itself (ADR 0039): none of these may
change how it answers (tests/test_endpoint_drf_host.py).
"""

from __future__ import annotations

from typing import Any

from tests.settings import *  # noqa: F403


class RefusingNegotiation:
    """A negotiation class that refuses every request."""

    def select_parser(self, request: Any, parsers: Any) -> Any:
        raise RuntimeError("the host's negotiation class ran")

    def select_renderer(self, request: Any, renderers: Any, suffix: Any = None) -> Any:
        raise RuntimeError("the host's negotiation class ran")


def host_exception_handler(exc: Exception, context: Any) -> Any:
    """A handler that makes every error a 500 page."""
    from rest_framework.response import Response

    return Response({"host": "handler"}, status=500)


REST_FRAMEWORK = {
    **REST_FRAMEWORK,  # noqa: F405
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication"
    ],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.StaticHTMLRenderer"],
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.FormParser"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAdminUser"],
    "DEFAULT_THROTTLE_CLASSES": ["rest_framework.throttling.UserRateThrottle"],
    "DEFAULT_THROTTLE_RATES": {"user": "1/day"},
    "DEFAULT_VERSIONING_CLASS": "rest_framework.versioning.AcceptHeaderVersioning",
    "ALLOWED_VERSIONS": ["v9"],
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": (
        "tests.settings_unusual_drf.RefusingNegotiation"
    ),
    "EXCEPTION_HANDLER": "tests.settings_unusual_drf.host_exception_handler",
    "URL_FORMAT_OVERRIDE": "format",
}

FRISIAN_MCP = {**FRISIAN_MCP, "REQUIRE_AUTHENTICATION": True}  # noqa: F405
