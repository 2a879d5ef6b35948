"""The stdio app: provides the ``frisian_mcp_stdio`` management command."""

from __future__ import annotations

from django.apps import AppConfig

__all__ = ["StdioConfig"]


class StdioConfig(AppConfig):
    """``frisian_mcp.contrib.stdio``."""

    name = "frisian_mcp.contrib.stdio"
    label = "frisian_mcp_stdio"
    verbose_name = "frisian_mcp stdio transport"
