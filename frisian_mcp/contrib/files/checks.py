"""The files app's system checks (docs/checks.md): W011, W012.

``FILE_MAX_BYTES`` itself is checked by its row of the settings table (E007).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.core import checks

from frisian_mcp.conf import mcp_settings
from frisian_mcp.contrib.files.uploads import request_bytes
from frisian_mcp.exceptions import ConfigurationError

__all__ = ["check_file_settings"]


@checks.register()
def check_file_settings(
    app_configs: Iterable[Any] | None = None, **kwargs: Any
) -> list[checks.CheckMessage]:
    """W011: ``FILE_MAX_BYTES`` is set, but no call hook reads it; W012:
    ``MAX_REQUEST_BYTES`` is set below what a file of that size needs."""
    try:
        hooks = mcp_settings.CALL_HOOKS
    except ConfigurationError:  # the core's checks report it (E004)
        return []
    carried = any("FILE_MAX_BYTES" in getattr(h, "settings", ()) for h in hooks)
    if carried:
        return _request_limit()
    if "FILE_MAX_BYTES" not in mcp_settings.user_settings:
        return []
    return [
        checks.Warning(
            "FRISIAN_MCP['FILE_MAX_BYTES'] is set, but no call hook "
            "carries files: file fields are not arguments and tools that "
            "answer a file answer an error.",
            hint="Add 'frisian_mcp.contrib.files.hooks.FileHook' to "
            "FRISIAN_MCP['CALL_HOOKS'] (docs/files.md).",
            id="frisian_mcp.W011",
        )
    ]


def _request_limit() -> list[checks.CheckMessage]:
    """W012, where the project sets both limits (else nothing to say)."""
    if "MAX_REQUEST_BYTES" not in mcp_settings.user_settings:
        return []  # the files hook raises the default itself
    limit, cap = mcp_settings.MAX_REQUEST_BYTES, mcp_settings.FILE_MAX_BYTES
    if not all(type(v) is int and v >= 1 for v in (limit, cap)):
        return []  # a value of the wrong type or range: E007
    needed = request_bytes(cap)
    if limit >= needed:
        return []
    return [
        checks.Warning(
            f"FRISIAN_MCP['MAX_REQUEST_BYTES'] is {limit}, but a call carrying "
            f"a file of FILE_MAX_BYTES ({cap}) needs {needed} bytes: the "
            "file after base64, and room for the call. Such uploads get "
            "HTTP 413.",
            hint=f"Raise MAX_REQUEST_BYTES to at least {needed}, or remove it "
            "(with the files hook its default is what FILE_MAX_BYTES needs), "
            "or lower FILE_MAX_BYTES (docs/files.md, 'Sizes').",
            id="frisian_mcp.W012",
        )
    ]
