"""System checks of the explorer: a page whose calls would be refused."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.core import checks

from frisian_mcp.conf import mcp_settings
from frisian_mcp.exceptions import ConfigurationError

__all__ = ["check_explorer"]


@checks.register()
def check_explorer(
    app_configs: Iterable[Any] | None = None, **kwargs: Any
) -> list[checks.CheckMessage]:
    """Warn when the page is on but cannot call the tools it lists (W010)."""
    from frisian_mcp.contrib.explorer.views import ExplorerView, session_authenticator

    try:
        page = mcp_settings.BROWSER_VIEW_CLASS
    except ConfigurationError:  # frisian_mcp.E004 reports it
        return []
    if not (isinstance(page, type) and issubclass(page, ExplorerView)):
        return []  # off: BROWSER_VIEW_CLASS = None turns it off, silently
    if session_authenticator() is None:
        return [
            checks.Warning(
                "The explorer lists tools, but the endpoint's authentication "
                "classes take no session login: its Validate and Run are refused.",
                hint="Add rest_framework.authentication.SessionAuthentication to "
                "FRISIAN_MCP['AUTHENTICATION_CLASSES'] (or DRF's defaults).",
                id="frisian_mcp.W010",
            )
        ]
    return []
