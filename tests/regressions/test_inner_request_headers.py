"""Regression: the inner request carried the MCP POST's ``request.headers``.

Django caches ``request.headers`` (and ``accepted_types``) on the request the
first time they are read. The inner request copied the outer request's
attributes, cached ones too, so a view reading ``request.headers`` saw the
MCP POST's headers: its ``Accept`` (which also broke DRF's
``AcceptHeaderVersioning``, whose content negotiation reads
``request.headers``) and credentials the endpoint had not accepted and the
inner request's ``META`` had dropped.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.test import override_settings
from django.urls import include, path
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from frisian_mcp.contrib.testing import MCPTestClient


class EchoHeadersView(APIView):
    """What the view sees of its request's headers."""

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request: Request) -> Response:
        # Read by the MCP endpoint first, as host middleware might.
        headers = request._request.headers
        return Response(
            {
                "accept": headers.get("Accept"),
                "authorization": headers.get("Authorization"),
                "accepts_event_stream": request._request.accepts("text/event-stream"),
            }
        )


urlpatterns = [
    path("echo-headers/", EchoHeadersView.as_view()),
    path("mcp", include("frisian_mcp.urls")),
]


@pytest.mark.django_db
@override_settings(ROOT_URLCONF=__name__)
def test_regression_inner_request_has_its_own_headers() -> None:
    # Basic authentication ignores a "Token" credential: the caller is
    # anonymous, so the inner request must not carry the header at all.
    mcp = MCPTestClient(headers={"Authorization": "Token not-accepted-here"})
    mcp.initialize()
    (tool,) = (t["name"] for t in mcp.list_tools())
    result: Any = mcp.call_tool(tool, {})
    assert result["structuredContent"] == {
        "accept": "application/json",
        "authorization": None,
        "accepts_event_stream": False,
    }
