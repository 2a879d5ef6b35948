"""The confirmation app: adds its call hook, which asks before CONFIRM's tools."""

from __future__ import annotations

from django.apps import AppConfig

__all__ = ["ConfirmConfig"]


class ConfirmConfig(AppConfig):
    """``frisian_mcp.contrib.confirm``."""

    name = "frisian_mcp.contrib.confirm"
    label = "frisian_mcp_confirm"
    verbose_name = "frisian_mcp confirmation"

    def ready(self) -> None:
        """Add the confirmation hook to the call hooks and its argument to
        the protocol arguments: the extra works by being installed (ADR 0032).
        Its settings rows are declared by the package (``__init__``)."""
        from frisian_mcp.arguments import register
        from frisian_mcp.contrib.confirm.hooks import CONFIRM
        from frisian_mcp.hooks import provide

        hook = "frisian_mcp.contrib.confirm.hooks.ConfirmationHook"
        provide(self.name, "CALL_HOOKS", hook)
        register(CONFIRM)  # its help text (frisian_mcp.manual)
