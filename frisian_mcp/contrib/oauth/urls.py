"""RFC 9728 Protected Resource Metadata, for the site's root URLconf.

``path("", include("frisian_mcp.contrib.oauth.urls"))`` serves
``/.well-known/oauth-protected-resource`` and the same with the endpoint's
path appended (``.../oauth-protected-resource/mcp``), as MCP clients try
both. They answer 404 while ``FRISIAN_MCP["OAUTH"]`` is unset.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from django.http import Http404, HttpRequest, JsonResponse
from django.urls import path, re_path

from frisian_mcp.contrib.oauth.authentication import get_config

__all__ = ["protected_resource_metadata"]

app_name = "frisian_mcp_wellknown"


def protected_resource_metadata(request: HttpRequest, path: str = "") -> JsonResponse:
    """The Protected Resource Metadata document (RFC 9728 §2, §3).

    Built from settings only, so a forged ``Host`` cannot change it. Served
    at the well-known URL with and without the endpoint's path.
    """
    config = get_config()
    if config is None:
        raise Http404("OAuth is not configured.")
    own = urlsplit(config.resource).path.strip("/")
    if path.strip("/") not in ("", own):
        raise Http404("No protected resource at this path.")
    document: dict[str, Any] = {
        "resource": config.resource,
        "authorization_servers": list(config.authorization_servers),
        "scopes_supported": list(config.scopes),
        "bearer_methods_supported": ["header"],
    }
    if config.resource_name:
        document["resource_name"] = config.resource_name
    response = JsonResponse(document)
    # A public document, fetched by browser-based clients from any origin.
    response["Access-Control-Allow-Origin"] = "*"
    response["Cache-Control"] = "public, max-age=300"
    return response


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
