"""The cleanup app: provides the ``frisian_mcp_cleanup`` management command."""

from __future__ import annotations

from django.apps import AppConfig

__all__ = ["CleanupConfig"]


class CleanupConfig(AppConfig):
    """``frisian_mcp.contrib.cleanup``."""

    name = "frisian_mcp.contrib.cleanup"
    label = "frisian_mcp_cleanup"
    verbose_name = "frisian_mcp cleanup"
