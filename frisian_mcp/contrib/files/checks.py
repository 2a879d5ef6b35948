"""The files app's system check (docs/checks.md): W011.

``FILE_MAX_BYTES`` itself is checked by its row of the settings table (E007).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.core import checks

from frisian_mcp.conf import mcp_settings
from frisian_mcp.exceptions import ConfigurationError

__all__ = ["check_file_settings"]


@checks.register()
def check_file_settings(
    app_configs: Iterable[Any] | None = None, **kwargs: Any
) -> list[checks.CheckMessage]:
    """W011: ``FILE_MAX_BYTES`` is set, but no call hook reads it."""
    try:
        hooks = mcp_settings.CALL_HOOKS
    except ConfigurationError:  # the core's checks report it (E004)
        return []
    found: list[checks.CheckMessage] = []
    configured = "FILE_MAX_BYTES" in mcp_settings.user_settings
    if configured and not any(
        "FILE_MAX_BYTES" in getattr(h, "settings", ()) for h in hooks
    ):
        found.append(
            checks.Warning(
                "FRISIAN_MCP['FILE_MAX_BYTES'] is set, but no call hook "
                "carries files: file fields are not arguments and tools that "
                "answer a file answer an error.",
                hint="Add 'frisian_mcp.contrib.files.hooks.FileHook' to "
                "FRISIAN_MCP['CALL_HOOKS'] (docs/files.md).",
                id="frisian_mcp.W011",
            )
        )
    return found
