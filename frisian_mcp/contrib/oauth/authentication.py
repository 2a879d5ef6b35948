"""The OAuth 2.1 resource server's settings and its bearer authentication.

MCP 2025-11-25 and 2026-07-28 basic/authorization. The endpoint accepts
access tokens issued for its canonical URL (RFC 8707 audience) by a
configured validator and answers with RFC 6750 challenges; the token's
:class:`~frisian_mcp.contrib.oauth.tokens.Grant` maps its scopes to tools
(the core's ``ToolGrant`` hook). Off unless ``FRISIAN_MCP["OAUTH"]`` is
set; no import of PyJWT or django-oauth-toolkit happens unless their
validator is configured.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import functools
import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from django.utils.module_loading import import_string
from rest_framework import exceptions as drf_exceptions
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.request import Request

from frisian_mcp.conf import SETTINGS_NAME, on_change
from frisian_mcp.conf import extra_settings as mcp_settings
from frisian_mcp.contrib.oauth.tokens import BaseTokenValidator, Grant, TokenRejected
from frisian_mcp.exceptions import ConfigurationError
from frisian_mcp.types import KINDS

if TYPE_CHECKING:
    from frisian_mcp.tools import Tool

__all__ = ["BearerTokenAuthentication", "OAuthConfig", "get_config"]

logger = logging.getLogger("frisian_mcp")

#: What a scope entry may name besides a glob of tool names: the kinds table's
#: categories, each under its row's scope by default.
CATEGORIES = frozenset(KINDS)
DEFAULT_SCOPES: dict[str, list[str]] = {
    f"mcp:{scope}": [key for key, row in KINDS.items() if row.scope == scope]
    for scope in ("read", "write")
}
OAUTH_KEYS = frozenset(
    {
        "RESOURCE",
        "AUTHORIZATION_SERVERS",
        "TOKEN_VALIDATOR",
        "VALIDATOR_OPTIONS",
        "SCOPES",
        "RESOURCE_NAME",
    }
)
WELL_KNOWN = "/.well-known/oauth-protected-resource"


@dataclasses.dataclass(frozen=True)
class OAuthConfig:
    """``FRISIAN_MCP["OAUTH"]``, checked and with defaults applied."""

    resource: str
    authorization_servers: tuple[str, ...]
    scopes: Mapping[str, tuple[str, ...]]
    validator_class: type[BaseTokenValidator]
    options: Mapping[str, Any]
    resource_name: str | None = None

    @property
    def metadata_url(self) -> str:
        """RFC 9728 §3.1: the well-known path inserted before the resource's."""
        parts = urlsplit(self.resource)
        path = parts.path.rstrip("/")
        return f"{parts.scheme}://{parts.netloc}{WELL_KNOWN}{path}"

    @property
    def audiences(self) -> tuple[str, ...]:
        """The resource URL as tokens may carry it (with a trailing slash too)."""
        return (self.resource, self.resource + "/")

    @functools.cached_property
    def validator(self) -> BaseTokenValidator:
        """The configured validator, built once per configuration."""
        return self.validator_class(self)

    def scopes_for(self, tool: Tool) -> tuple[str, ...]:
        """The scopes any one of which unlocks ``tool``."""
        category = tool.endpoint.category
        return tuple(
            scope
            for scope, entries in self.scopes.items()
            if any(
                entry == category
                or (entry not in CATEGORIES and fnmatch.fnmatchcase(tool.name, entry))
                for entry in entries
            )
        )

    def challenge(self, params: Mapping[str, str]) -> str:
        """A ``Bearer`` challenge (RFC 6750 §3) of ``params``, in their order."""
        # Values are settings and fixed words; quotes and backslashes are
        # dropped all the same so that no value can end its quoted string.
        quoted = ", ".join(
            f'{k}="{v.replace(chr(92), "").replace(chr(34), "")}"'
            for k, v in params.items()
        )
        return f"Bearer {quoted}"


def get_config() -> OAuthConfig | None:
    """The OAuth configuration, or ``None`` when OAuth is off.

    Raises:
        ConfigurationError: the setting is malformed (``manage.py check``
            reports the same as ``frisian_mcp.E009``).
    """
    raw = mcp_settings.OAUTH
    if raw is None:
        return None
    key = id(raw)
    if _cache.get("key") != key:
        _cache.update(key=key, config=_build_config(raw))
    config: OAuthConfig = _cache["config"]
    return config


_cache: dict[str, Any] = {}


on_change()(_cache.clear)


def _build_config(raw: Any) -> OAuthConfig:
    where = f"{SETTINGS_NAME}['OAUTH']"
    if not isinstance(raw, dict):
        raise ConfigurationError(f"{where} must be a dict or None.")
    unknown = sorted(set(raw) - OAUTH_KEYS)
    if unknown:
        raise ConfigurationError(f"{where} has unknown keys: {', '.join(unknown)}.")
    resource = raw.get("RESOURCE")
    parts = urlsplit(resource) if isinstance(resource, str) else None
    if parts is None or parts.scheme not in ("http", "https") or not parts.netloc:
        raise ConfigurationError(
            f"{where}['RESOURCE'] must be the endpoint's absolute URL, "
            'e.g. "https://api.example.com/mcp".'
        )
    if parts.query or parts.fragment:
        raise ConfigurationError(f"{where}['RESOURCE'] must have no query or fragment.")
    servers = raw.get("AUTHORIZATION_SERVERS", [])
    scopes = raw.get("SCOPES", DEFAULT_SCOPES)
    if not _strings(servers):
        raise ConfigurationError(
            f"{where}['AUTHORIZATION_SERVERS'] must be a list of issuer URLs."
        )
    if not isinstance(scopes, dict) or not all(
        isinstance(k, str) and k and _strings(v) for k, v in scopes.items()
    ):
        raise ConfigurationError(
            f"{where}['SCOPES'] must map scope names to lists of tool categories "
            "or tool-name globs."
        )
    path = raw.get(
        "TOKEN_VALIDATOR", "frisian_mcp.contrib.oauth.tokens.JWTTokenValidator"
    )
    try:
        validator = import_string(path) if isinstance(path, str) else path
    except ImportError as exc:
        moved = str(path).startswith("frisian_mcp.tokens.")
        raise ConfigurationError(
            f"{where}['TOKEN_VALIDATOR'] names {path!r}, which cannot be imported: "
            f"{exc}." + (" It moved to frisian_mcp.contrib.oauth.tokens." * moved)
        ) from exc
    if not (isinstance(validator, type) and issubclass(validator, BaseTokenValidator)):
        raise ConfigurationError(
            f"{where}['TOKEN_VALIDATOR'] must name a subclass of "
            "frisian_mcp.contrib.oauth.tokens.BaseTokenValidator."
        )
    options = raw.get("VALIDATOR_OPTIONS", {})
    if not isinstance(options, dict):
        raise ConfigurationError(f"{where}['VALIDATOR_OPTIONS'] must be a dict.")
    canonical = parts._replace(
        scheme=parts.scheme.lower(), netloc=parts.netloc.lower()
    ).geturl()
    return OAuthConfig(
        resource=canonical.rstrip("/"),
        authorization_servers=tuple(servers),
        scopes={k: tuple(v) for k, v in scopes.items()},
        validator_class=validator,
        options=options,
        resource_name=raw.get("RESOURCE_NAME"),
    )


def _strings(value: Any) -> bool:
    return isinstance(value, list | tuple) and all(
        isinstance(v, str) and v for v in value
    )


class BearerTokenAuthentication(BaseAuthentication):
    """``Authorization: Bearer <token>`` at the MCP endpoint, by the validator.

    Inert when OAuth is off and on every other URL: a token issued for the
    MCP endpoint is not a credential for the REST API (RFC 8707).
    """

    def authenticate(self, request: Request) -> tuple[Any, Grant] | None:
        config = get_config()
        parts = get_authorization_header(request).split()
        if config is None or not parts or parts[0].lower() != b"bearer":
            return None
        if not _at_endpoint(request):
            return None
        if len(parts) != 2:
            raise drf_exceptions.AuthenticationFailed("Malformed bearer token.")
        try:
            grant = config.validator.validate(parts[1].decode("ascii"))
        except (TokenRejected, UnicodeDecodeError) as exc:
            logger.info("Bearer token refused: %s", exc)
            raise drf_exceptions.AuthenticationFailed("Invalid access token.") from None
        return grant.user, dataclasses.replace(grant, config=config)

    def authenticate_header(self, request: Request) -> str | None:
        """The 401's ``Bearer`` challenge, or ``None`` when OAuth is off.

        ``error="invalid_token"`` only when a bearer token was sent (RFC 6750
        §3.1: a request without credentials gets no error code).
        """
        config = get_config()
        if config is None:
            return None
        params = {"resource_metadata": config.metadata_url}
        sent = request.META.get("HTTP_AUTHORIZATION", "")
        if str(sent).split(" ")[0].lower() == "bearer":
            params = {"error": "invalid_token", **params}
        if config.scopes:
            params["scope"] = " ".join(config.scopes)
        return config.challenge(params)


def _at_endpoint(request: Request) -> bool:
    match = getattr(request._request, "resolver_match", None)
    return (
        match is not None
        and "frisian_mcp" in match.app_names
        and match.url_name == "endpoint"
    )
