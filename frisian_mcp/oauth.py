"""OAuth 2.1 resource server: bearer tokens, scopes and discovery metadata.

MCP 2025-11-25 and 2026-07-28 basic/authorization. The endpoint accepts
access tokens issued for its canonical URL (RFC 8707 audience) by a
configured validator, maps token scopes to the tools they unlock, answers
with RFC 6750 challenges and serves RFC 9728 Protected Resource Metadata.
Off unless ``FRISIAN_MCP["OAUTH"]`` is set; no import of PyJWT or
django-oauth-toolkit happens unless their validator is configured.
"""

from __future__ import annotations

import fnmatch
import functools
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from django.core.signals import setting_changed
from django.dispatch import receiver
from django.http import Http404, HttpRequest, JsonResponse
from django.utils.module_loading import import_string
from rest_framework import exceptions as drf_exceptions
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.request import Request

from frisian_mcp.conf import SETTINGS_NAME, mcp_settings
from frisian_mcp.exceptions import ConfigurationError, InvalidRequest
from frisian_mcp.tokens import BaseTokenValidator, Grant, TokenRejected
from frisian_mcp.types import ErrorCode, Kind

__all__ = [
    "BearerTokenAuthentication",
    "InsufficientScope",
    "OAuthConfig",
    "challenge",
    "check_scope",
    "get_config",
    "granted",
    "permits",
    "protected_resource_metadata",
    "scope_challenge",
]

logger = logging.getLogger("frisian_mcp")

#: What a scope entry may name besides a glob of tool names.
CATEGORIES = frozenset(
    {"list", "read", "safe_action", "create", "update", "delete", "action"}
)
DEFAULT_SCOPES: dict[str, list[str]] = {
    "mcp:read": ["list", "read", "safe_action"],
    "mcp:write": ["create", "update", "delete", "action"],
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
_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


class InsufficientScope(InvalidRequest):
    """The token is valid but lacks a scope the tool needs (HTTP 403)."""

    http_status = 403


@dataclass(frozen=True)
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

    def scopes_for(self, name: str, kind: Kind, method: str) -> tuple[str, ...]:
        """The scopes any one of which unlocks the tool ``name``."""
        category = kind.value
        if kind is Kind.ACTION and method.upper() in _SAFE_METHODS:
            category = "safe_action"
        return tuple(
            scope
            for scope, entries in self.scopes.items()
            if any(
                entry == category
                or (entry not in CATEGORIES and fnmatch.fnmatchcase(name, entry))
                for entry in entries
            )
        )


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


@receiver(setting_changed)
def _forget_config(*, setting: str, **kwargs: Any) -> None:
    if setting == SETTINGS_NAME:
        _cache.clear()


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
    path = raw.get("TOKEN_VALIDATOR", "frisian_mcp.tokens.JWTTokenValidator")
    try:
        validator = import_string(path) if isinstance(path, str) else path
    except ImportError as exc:
        raise ConfigurationError(
            f"{where}['TOKEN_VALIDATOR'] names {path!r}, which cannot be imported: {exc}."
        ) from exc
    if not (isinstance(validator, type) and issubclass(validator, BaseTokenValidator)):
        raise ConfigurationError(
            f"{where}['TOKEN_VALIDATOR'] must name a subclass of "
            "frisian_mcp.tokens.BaseTokenValidator."
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


# -- the DRF authentication class ---------------------------------------------


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
        return grant.user, grant

    def authenticate_header(self, request: Request) -> str | None:
        return challenge(request)


def _at_endpoint(request: Request) -> bool:
    match = getattr(request._request, "resolver_match", None)
    return (
        match is not None
        and "frisian_mcp" in match.app_names
        and match.url_name == "endpoint"
    )


def challenge(request: Request | HttpRequest | None = None) -> str | None:
    """The RFC 6750 ``Bearer`` challenge of a 401, or ``None`` when OAuth is off.

    ``error="invalid_token"`` only when a bearer token was sent (RFC 6750
    §3.1: a request without credentials gets no error code).
    """
    config = get_config()
    if config is None:
        return None
    params = {"resource_metadata": config.metadata_url}
    sent = request.META.get("HTTP_AUTHORIZATION", "") if request is not None else ""
    if str(sent).split(" ")[0].lower() == "bearer":
        params = {"error": "invalid_token", **params}
    if config.scopes:
        params["scope"] = " ".join(config.scopes)
    return _header(params)


def scope_challenge(scope: str) -> str | None:
    """The ``insufficient_scope`` challenge of a 403 (RFC 6750 §3.1)."""
    config = get_config()
    if config is None:
        return None
    return _header(
        {
            "error": "insufficient_scope",
            "scope": scope,
            "resource_metadata": config.metadata_url,
        }
    )


def _header(params: Mapping[str, str]) -> str:
    # Values are settings and fixed words; quotes and backslashes are dropped
    # all the same so that no value can end its quoted string.
    quoted = ", ".join(
        f'{k}="{v.replace(chr(92), "").replace(chr(34), "")}"'
        for k, v in params.items()
    )
    return f"Bearer {quoted}"


# -- scopes and tools ----------------------------------------------------------


def granted(auth: Any) -> tuple[str, ...] | None:
    """The scopes of an OAuth caller's ``auth``; ``None`` for other callers."""
    return auth.scopes if isinstance(auth, Grant) else None


def permits(scopes: Sequence[str], name: str, kind: Kind, method: str) -> bool:
    """Whether a token with ``scopes`` may see and call the tool ``name``.

    A tool no configured scope names is closed to every token.
    """
    config = get_config()
    if config is None:
        return True
    return bool(set(config.scopes_for(name, kind, method)) & set(scopes))


def check_scope(auth: Any, name: str, kind: Kind, method: str) -> None:
    """Raise :class:`InsufficientScope` when an OAuth caller lacks the scope.

    The ``scope`` to ask for keeps the scopes already granted and adds the
    first one that unlocks the tool (MCP 2025-11-25 "Scope Challenge
    Handling", recommended approach).
    """
    scopes = granted(auth)
    config = get_config()
    if scopes is None or config is None or permits(scopes, name, kind, method):
        return
    needed = config.scopes_for(name, kind, method)[:1]
    ask = [s for s in config.scopes if s in scopes or s in needed]
    if not needed:
        ask = list(config.scopes)
    scope = " ".join(ask)
    raise InsufficientScope(
        "Forbidden: the access token lacks the scope this tool needs. "
        f"Authorize again with scope: {scope}.",
        data={"code": ErrorCode.INSUFFICIENT_SCOPE.value, "scope": scope},
    )


# -- RFC 9728 metadata ----------------------------------------------------------


def protected_resource_metadata(request: HttpRequest, path: str = "") -> JsonResponse:
    """The Protected Resource Metadata document (RFC 9728 §2, §3).

    Built from settings only, so a forged ``Host`` cannot change it. Served
    at the well-known URL with and without the endpoint's path.
    """
    config = get_config()
    if config is None:
        raise Http404("OAuth is not configured.")
    own = urlsplit(config.resource).path.strip("/")
    if path.strip("/") not in ("", own):
        raise Http404("No protected resource at this path.")
    document: dict[str, Any] = {
        "resource": config.resource,
        "authorization_servers": list(config.authorization_servers),
        "scopes_supported": list(config.scopes),
        "bearer_methods_supported": ["header"],
    }
    if config.resource_name:
        document["resource_name"] = config.resource_name
    response = JsonResponse(document)
    # A public document, fetched by browser-based clients from any origin.
    response["Access-Control-Allow-Origin"] = "*"
    response["Cache-Control"] = "public, max-age=300"
    return response
