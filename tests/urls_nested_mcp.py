"""The test API with the MCP endpoint mounted inside a plugin's namespace."""

from __future__ import annotations

from django.urls import include, path

from tests.urls import urlpatterns as base_patterns

plugin_patterns = ([path("mcp", include("frisian_mcp.urls"))], "plugins")

urlpatterns = [
    *[p for p in base_patterns if "mcp" not in str(p.pattern)],
    path("plugins/", include(plugin_patterns)),
]
