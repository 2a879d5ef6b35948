"""RFC 9728 Protected Resource Metadata URLs, for the site's root URLconf.

``path("", include("frisian_mcp.urls_wellknown"))`` serves
``/.well-known/oauth-protected-resource`` and the same with the endpoint's
path appended (``.../oauth-protected-resource/mcp``), as MCP clients try
both. They answer 404 while ``FRISIAN_MCP["OAUTH"]`` is unset.
"""

from __future__ import annotations

from django.urls import path, re_path

from frisian_mcp.oauth import protected_resource_metadata

app_name = "frisian_mcp_wellknown"

urlpatterns = [
    path(
        ".well-known/oauth-protected-resource",
        protected_resource_metadata,
        name="protected-resource",
    ),
    re_path(
        r"^\.well-known/oauth-protected-resource/(?P<path>.+)$",
        protected_resource_metadata,
        name="protected-resource-path",
    ),
]
