"""The files app: adds its call hook, so that files go through tools."""

from __future__ import annotations

from django.apps import AppConfig

__all__ = ["FilesConfig"]


class FilesConfig(AppConfig):
    """``frisian_mcp.contrib.files``."""

    name = "frisian_mcp.contrib.files"
    label = "frisian_mcp_files"
    verbose_name = "frisian_mcp files"

    def ready(self) -> None:
        """Add :class:`~frisian_mcp.contrib.files.hooks.FileHook` to the call
        hooks: the extra works by being installed (ADR 0032); register W012.
        ``FILE_MAX_BYTES`` is declared by the package (``__init__``)."""
        from frisian_mcp.contrib.files import checks  # noqa: F401
        from frisian_mcp.hooks import provide

        provide(self.name, "CALL_HOOKS", "frisian_mcp.contrib.files.hooks.FileHook")
