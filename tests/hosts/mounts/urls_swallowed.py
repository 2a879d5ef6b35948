"""The MCP mount appended after the front end's catch-all: never reached."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.urls import include, path, re_path


def spa(request: HttpRequest) -> HttpResponse:
    """The front end's index page, for every path."""
    return HttpResponse("<!doctype html>")


urlpatterns = [
    re_path(r".*", spa),
    path("mcp", include("frisian_mcp.urls")),
]
