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
        """Declare ``CONFIRM`` and its token's age, add the confirmation hook
        to the call hooks and its argument to the protocol arguments: the
        extra works by being installed (ADR 0032)."""
        from frisian_mcp.arguments import register
        from frisian_mcp.conf import GLOBS, Setting, at_least, declare
        from frisian_mcp.contrib.confirm.hooks import CONFIRM
        from frisian_mcp.hooks import provide

        declare(
            self.name,
            CONFIRM=Setting(
                [], GLOBS, "Tools that need a person's confirmation (contrib.confirm)."
            ),
            CONFIRM_MAX_AGE=Setting(
                300,
                at_least(1),
                "Seconds a confirmation token stays valid (contrib.confirm).",
            ),
        )
        hook = "frisian_mcp.contrib.confirm.hooks.ConfirmationHook"
        provide(self.name, "CALL_HOOKS", hook)
        register(CONFIRM)  # its help text (frisian_mcp.manual)
