"""The MCP mount placed before the front end's catch-all, as the README says."""

from __future__ import annotations

from django.urls import include, path, re_path

from tests.hosts.mounts.urls_swallowed import spa

urlpatterns = [
    path("mcp", include("frisian_mcp.urls")),
    re_path(r".*", spa),
]
