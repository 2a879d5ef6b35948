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
        """Declare ``OAUTH`` and register its checks (E009, W004-W006), which
        check its keys: its row takes any dict."""
        from frisian_mcp.conf import Setting, Value, declare
        from frisian_mcp.contrib.oauth import checks  # noqa: F401

        keys = Value("a dict", lambda v: True) | None
        declare(
            self.name,
            OAUTH=Setting(None, keys, "OAuth 2.1 resource server (contrib.oauth)."),
        )
