"""The OAuth extra's app: registers its system checks."""

from __future__ import annotations

from django.apps import AppConfig

__all__ = ["OAuthAppConfig"]


class OAuthAppConfig(AppConfig):
    """``frisian_mcp.contrib.oauth``."""

    name = "frisian_mcp.contrib.oauth"
    label = "frisian_mcp_oauth"
    verbose_name = "frisian_mcp OAuth resource server"

    def ready(self) -> None:
        """Register the checks of ``OAUTH``'s keys (E009, W004-W006); the
        package (``__init__``) declares its row."""
        from frisian_mcp.contrib.oauth import checks  # noqa: F401
