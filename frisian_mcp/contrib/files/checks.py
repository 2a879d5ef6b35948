"""The files app's system check (docs/checks.md): W012.

``FILE_MAX_BYTES`` itself is checked by its row of the settings table (E007).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.core import checks

from frisian_mcp.conf import extra_settings as mcp_settings
from frisian_mcp.contrib.files.uploads import request_bytes
from frisian_mcp.exceptions import ConfigurationError

__all__ = ["check_file_settings"]


@checks.register()
def check_file_settings(
    app_configs: Iterable[Any] | None = None, **kwargs: Any
) -> list[checks.CheckMessage]:
    """W012: ``MAX_REQUEST_BYTES`` is set below what a call carrying a file of
    ``FILE_MAX_BYTES`` needs (W011, retired: the extra adds its hook itself)."""
    try:
        hooks = mcp_settings.CALL_HOOKS
    except ConfigurationError:  # the core's checks report it (E004)
        return []
    user = mcp_settings.user_settings
    if not any("FILE_MAX_BYTES" in getattr(h, "settings", ()) for h in hooks):
        return []  # the hook is off (CALL_HOOKS None): nothing is uploaded
    limit: Any = user.get("MAX_REQUEST_BYTES")
    cap = mcp_settings.FILE_MAX_BYTES
    # Unset, the file hook raises the limit itself; a wrong value is E007.
    if not all(type(v) is int and v >= 1 for v in (limit, cap)):
        return []
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
