"""The confirmation app's system check (docs/checks.md)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.core import checks

from frisian_mcp.conf import mcp_settings
from frisian_mcp.exceptions import ConfigurationError

__all__ = ["check_hook_listed"]


@checks.register()
def check_hook_listed(
    app_configs: Iterable[Any] | None = None, **kwargs: Any
) -> list[checks.CheckMessage]:
    """E013: ``CONFIRM`` names tools but no listed call hook reads it."""
    try:
        confirm, hooks = mcp_settings.CONFIRM, mcp_settings.CALL_HOOKS
    except ConfigurationError:  # the core's checks report it (E004)
        return []
    if not confirm or any("CONFIRM" in getattr(h, "settings", ()) for h in hooks):
        return []
    return [
        checks.Error(
            "FRISIAN_MCP['CONFIRM'] names tools, but no call hook asks for "
            "confirmation: those tools run unconfirmed.",
            hint="Add 'frisian_mcp.contrib.confirm.hooks.ConfirmationHook' to "
            "FRISIAN_MCP['CALL_HOOKS'] (docs/safety.md).",
            id="frisian_mcp.E013",
        )
    ]
