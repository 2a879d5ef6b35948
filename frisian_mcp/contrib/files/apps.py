"""The files app: registers its system checks."""

from __future__ import annotations

from django.apps import AppConfig

__all__ = ["FilesConfig"]


class FilesConfig(AppConfig):
    """``frisian_mcp.contrib.files``."""

    name = "frisian_mcp.contrib.files"
    label = "frisian_mcp_files"
    verbose_name = "frisian_mcp files"

    def ready(self) -> None:
        """Register the checks of the file hook's setting and listing."""
        from frisian_mcp.contrib.files import checks  # noqa: F401
