"""System checks of the explorer: installed but unhooked; no session logins."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.core import checks

from frisian_mcp.conf import mcp_settings
from frisian_mcp.exceptions import ConfigurationError

__all__ = ["check_explorer"]

_HOOK = "frisian_mcp.contrib.explorer.views.ExplorerView"


@checks.register()
def check_explorer(
    app_configs: Iterable[Any] | None = None, **kwargs: Any
) -> list[checks.CheckMessage]:
    """Warn when the page is unreachable, or cannot call the tools it lists."""
    from frisian_mcp.contrib.explorer.views import ExplorerView, session_authenticator

    try:
        page = mcp_settings.BROWSER_VIEW_CLASS
    except ConfigurationError:  # frisian_mcp.E004 reports it
        return []
    if not (isinstance(page, type) and issubclass(page, ExplorerView)):
        return [
            checks.Warning(
                "The explorer is installed, but FRISIAN_MCP['BROWSER_VIEW_CLASS'] "
                "does not name it: a browser opening the endpoint gets 405.",
                hint=f"Set FRISIAN_MCP['BROWSER_VIEW_CLASS'] = {_HOOK!r}, or remove "
                "the app from INSTALLED_APPS (docs/explorer.md).",
                id="frisian_mcp.W010",
            )
        ]
    if session_authenticator() is None:
        return [
            checks.Warning(
                "The explorer lists tools, but the endpoint's authentication "
                "classes take no session login: its Validate and Run are refused.",
                hint="Add rest_framework.authentication.SessionAuthentication to "
                "FRISIAN_MCP['AUTHENTICATION_CLASSES'] (or DRF's defaults).",
                id="frisian_mcp.W011",
            )
        ]
    return []
