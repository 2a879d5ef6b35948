"""URLs of the MCP endpoint: ``path("mcp", include("frisian_mcp.urls"))``.

The endpoint answers at the mount point with or without a trailing slash;
reverse it as ``frisian_mcp:endpoint``.
"""

from __future__ import annotations

from django.urls import re_path

from frisian_mcp.views import MCPView

app_name = "frisian_mcp"

urlpatterns = [
    re_path(r"^(?:/)?$", MCPView.as_view(), name="endpoint"),
]
