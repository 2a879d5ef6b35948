"""The confirmation app: registers its system check."""

from __future__ import annotations

from django.apps import AppConfig

__all__ = ["ConfirmConfig"]


class ConfirmConfig(AppConfig):
    """``frisian_mcp.contrib.confirm``."""

    name = "frisian_mcp.contrib.confirm"
    label = "frisian_mcp_confirm"
    verbose_name = "frisian_mcp confirmation"

    def ready(self) -> None:
        """Register the check that the hook is listed where CONFIRM needs it."""
        from frisian_mcp.contrib.confirm import checks  # noqa: F401
