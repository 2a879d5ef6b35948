"""System checks of the OAuth resource server's settings (``OAUTH``).

Ids ``frisian_mcp.E009`` and ``W004``-``W006``; docs/checks.md lists them.
Registered when ``frisian_mcp.contrib.oauth`` is an installed app.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from django.conf import settings
from django.core import checks
from rest_framework.settings import api_settings

from frisian_mcp.checks import check_settings
from frisian_mcp.conf import SETTINGS_NAME, mcp_settings
from frisian_mcp.contrib.oauth.authentication import (
    BearerTokenAuthentication,
    get_config,
)
from frisian_mcp.exceptions import ConfigurationError

__all__ = ["check_oauth"]


@checks.register(checks.Tags.security)
def check_oauth(
    app_configs: Iterable[Any] | None = None, **kwargs: Any
) -> list[checks.CheckMessage]:
    """Check ``OAUTH``: its shape, HTTPS, issuers and where tokens are read."""
    if check_settings():
        return []
    try:
        config = get_config()
    except ConfigurationError as exc:
        hint = "See docs/authorization.md for the keys of OAUTH."
        return [checks.Error(str(exc), hint=hint, id="frisian_mcp.E009")]
    if config is None:
        return []
    messages: list[checks.CheckMessage] = []
    if not config.resource.startswith("https://") and not settings.DEBUG:
        messages.append(
            checks.Warning(
                f"{SETTINGS_NAME}['OAUTH']['RESOURCE'] is not an https URL.",
                hint="Bearer tokens must travel over TLS only: serve the endpoint "
                "over HTTPS and name its https URL.",
                id="frisian_mcp.W004",
            )
        )
    if not config.authorization_servers:
        messages.append(
            checks.Warning(
                f"{SETTINGS_NAME}['OAUTH'] names no AUTHORIZATION_SERVERS.",
                hint="List the issuer URL of the server that issues the tokens; "
                "clients find it in the resource metadata (RFC 9728).",
                id="frisian_mcp.W005",
            )
        )
    classes: Sequence[Any] = (
        mcp_settings.AUTHENTICATION_CLASSES
        or api_settings.DEFAULT_AUTHENTICATION_CLASSES
    )
    if not any(
        isinstance(c, type) and issubclass(c, BearerTokenAuthentication)
        for c in classes
    ):
        messages.append(
            checks.Warning(
                "OAUTH is set but no authentication class reads bearer tokens.",
                hint="Add frisian_mcp.contrib.oauth.authentication."
                "BearerTokenAuthentication to "
                'REST_FRAMEWORK["DEFAULT_AUTHENTICATION_CLASSES"] (docs/authorization.md).',
                id="frisian_mcp.W006",
            )
        )
    return messages
