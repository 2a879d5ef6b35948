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
        hooks: the extra works by being installed (ADR 0032); declare
        ``FILE_MAX_BYTES``; register W012."""
        from frisian_mcp.conf import Setting, at_least, declare
        from frisian_mcp.contrib.files import checks  # noqa: F401
        from frisian_mcp.hooks import provide

        declare(
            self.name,
            FILE_MAX_BYTES=Setting(
                4_194_304,
                at_least(1),
                "Largest file a tool answers or takes (contrib.files).",
            ),
        )

        provide(self.name, "CALL_HOOKS", "frisian_mcp.contrib.files.hooks.FileHook")
