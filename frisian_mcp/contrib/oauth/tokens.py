"""Bearer token validators: what an access token grants, or its refusal.

A validator turns the token of an ``Authorization: Bearer`` header into a
:class:`Grant` only if it was issued for this endpoint (RFC 8707 audience,
MCP basic/authorization "Token Handling"); nothing is passed on. Two ship:
django-oauth-toolkit's access tokens and signed JWTs (PyJWT, optional),
both imported only when configured. A :class:`Grant` is the core's
``ToolGrant``: its scopes decide which tools the token reaches.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.contrib.auth import get_user_model

from frisian_mcp.exceptions import ConfigurationError, Forbidden, FrisianMCPError
from frisian_mcp.types import ErrorCode

if TYPE_CHECKING:
    from frisian_mcp.contrib.oauth.authentication import OAuthConfig
    from frisian_mcp.tools import Tool

__all__ = [
    "BaseTokenValidator",
    "DOTTokenValidator",
    "Grant",
    "JWTTokenValidator",
    "TokenRejected",
]


class TokenRejected(FrisianMCPError):
    """A validator refuses a token; the reason is logged, never sent."""


@dataclass(frozen=True)
class Grant:
    """What an accepted access token allows: ``request.auth`` of OAuth callers.

    Only the scopes take part in ``repr`` and equality, so callers holding
    the same scopes share cached tool lists; ``token`` is the validator's
    own record (a django-oauth-toolkit ``AccessToken``, or JWT claims).
    ``config`` is set by the authentication class that accepted the token.
    """

    scopes: tuple[str, ...]
    user: Any = field(default=None, repr=False, compare=False)
    client_id: str | None = field(default=None, repr=False, compare=False)
    token: Any = field(default=None, repr=False, compare=False)
    config: OAuthConfig | None = field(default=None, repr=False, compare=False)

    def allows_tool(self, tool: Tool) -> bool:
        """Whether a scope of the token unlocks ``tool``; none names it: no."""
        config = self.config
        return config is None or bool(set(config.scopes_for(tool)) & set(self.scopes))

    def check_tool(self, tool: Tool) -> None:
        """Refuse a call the scopes do not unlock: 403 ``insufficient_scope``.

        The ``scope`` to ask for keeps the scopes already granted and adds
        the first one that unlocks the tool (MCP 2025-11-25 "Scope
        Challenge Handling", recommended approach).
        """
        config = self.config
        if config is None or self.allows_tool(tool):
            return
        needed = config.scopes_for(tool)[:1]
        ask = [s for s in config.scopes if s in self.scopes or s in needed]
        scope = " ".join(ask if needed else config.scopes)
        raise Forbidden(
            "Forbidden: the access token lacks the scope this tool needs. "
            f"Authorize again with scope: {scope}.",
            data={"code": ErrorCode.INSUFFICIENT_SCOPE.value, "scope": scope},
            challenge=config.challenge(
                {
                    "error": "insufficient_scope",
                    "scope": scope,
                    "resource_metadata": config.metadata_url,
                }
            ),
        )


class BaseTokenValidator:
    """Turns a bearer token into a :class:`Grant`, or raises TokenRejected.

    A validator MUST check that the token was issued for
    ``config.resource`` (RFC 8707); a token for anything else is rejected,
    never passed on. ``VALIDATOR_OPTIONS`` reach it as ``config.options``.
    """

    def __init__(self, config: OAuthConfig) -> None:
        self.config = config

    def validate(self, token: str) -> Grant:
        """The grant of ``token``; raise :class:`TokenRejected` to refuse it."""
        raise NotImplementedError


class DOTTokenValidator(BaseTokenValidator):
    """Access tokens of the project's own django-oauth-toolkit (3.4.1+).

    The token's RFC 8707 ``resource`` list (set by DOT when the client sent
    ``resource``) must hold this endpoint's URL; unbound tokens are refused.
    A revoked token no longer exists in DOT's table, and so is refused.
    """

    def __init__(self, config: OAuthConfig) -> None:
        super().__init__(config)
        from oauth2_provider.models import get_access_token_model

        self.model = get_access_token_model()
        names = {f.name for f in self.model._meta.get_fields()}
        if not {"resource", "token_checksum"} <= names:
            raise ConfigurationError(
                "DOTTokenValidator needs django-oauth-toolkit 3.4.1 or later, "
                "whose access tokens record their RFC 8707 resource."
            )

    def validate(self, token: str) -> Grant:
        model = self.model
        checksum = hashlib.sha256(token.encode()).hexdigest()
        found = (
            model._default_manager.select_related("application", "user")
            .filter(token_checksum=checksum)
            .first()
        )
        if found is None or found.is_expired():
            raise TokenRejected("unknown, revoked or expired token")
        bound = {str(r).rstrip("/").lower() for r in (found.resource or [])}
        if self.config.resource.lower() not in bound:
            raise TokenRejected("token not issued for this resource")
        if found.user is None:
            raise TokenRejected("token without a user (client credentials)")
        application = found.application
        return Grant(
            scopes=tuple(sorted(set(found.scope.split()))),
            user=found.user,
            client_id=getattr(application, "client_id", None),
            token=found,
        )


class JWTTokenValidator(BaseTokenValidator):
    """Signed JWT access tokens (RFC 9068) from an external server; needs PyJWT.

    Options: ``JWKS_URL`` or ``KEYS`` (PEM strings or JWK dicts),
    ``ISSUERS`` (default: ``AUTHORIZATION_SERVERS``), ``ALGORITHMS``
    (``["RS256"]``), ``LEEWAY`` seconds (30), ``USER_CLAIM`` (``"sub"``) and
    ``USER_FIELD`` (``"username"``): the user whose field equals the claim.
    """

    def __init__(self, config: OAuthConfig) -> None:
        super().__init__(config)
        try:
            import jwt
        except ImportError as exc:  # pragma: no cover - PyJWT is in the test env
            raise ConfigurationError(
                "JWTTokenValidator needs PyJWT: pip install PyJWT."
            ) from exc
        self.jwt = jwt
        options = config.options
        self.issuers = list(options.get("ISSUERS") or config.authorization_servers)
        self.algorithms = list(options.get("ALGORITHMS", ["RS256"]))
        self.leeway = options.get("LEEWAY", 30)
        self.user_claim = options.get("USER_CLAIM", "sub")
        self.user_field = options.get("USER_FIELD", "username")
        url = options.get("JWKS_URL")
        self.jwks = jwt.PyJWKClient(url, timeout=5) if url else None
        self.keys = [
            jwt.PyJWK(k) if isinstance(k, dict) else k for k in options.get("KEYS", [])
        ]
        if self.jwks is None and not self.keys:
            raise ConfigurationError(
                "JWTTokenValidator needs VALIDATOR_OPTIONS['JWKS_URL'] or ['KEYS']."
            )

    def validate(self, token: str) -> Grant:
        jwt = self.jwt
        try:
            claims = self._decode(token)
        except (jwt.PyJWTError, ValueError) as exc:
            raise TokenRejected(type(exc).__name__) from None
        user = self.get_user(claims)
        return Grant(
            scopes=tuple(sorted(set(_claimed_scopes(claims)))),
            user=user,
            client_id=claims.get("client_id") or claims.get("azp"),
            token=claims,
        )

    def _decode(self, token: str) -> dict[str, Any]:
        jwt = self.jwt
        kid = jwt.get_unverified_header(token).get("kid")
        if self.jwks is not None:
            candidates: list[Any] = [self.jwks.get_signing_key_from_jwt(token).key]
        else:
            candidates = [
                k.key if isinstance(k, jwt.PyJWK) else k
                for k in self.keys
                if not isinstance(k, jwt.PyJWK) or k.key_id in (None, kid)
            ]
        error: Exception = jwt.InvalidTokenError("no key matches the token")
        for key in candidates:
            try:
                claims: dict[str, Any] = jwt.decode(
                    token,
                    key,
                    algorithms=self.algorithms,
                    audience=list(self.config.audiences),
                    issuer=self.issuers,
                    leeway=self.leeway,
                    options={"require": ["exp", "iss", "aud", self.user_claim]},
                )
                return claims
            except jwt.InvalidSignatureError as exc:
                error = exc
        raise error

    def get_user(self, claims: Mapping[str, Any]) -> Any:
        """The active user the token speaks for; override to map differently."""
        model = get_user_model()
        value = claims.get(self.user_claim)
        user = model._default_manager.filter(**{self.user_field: value}).first()
        if user is None or not user.is_active:
            raise TokenRejected("no active user for the token's subject")
        return user


def _claimed_scopes(claims: Mapping[str, Any]) -> list[str]:
    """``scope`` (RFC 9068, space-separated) or ``scp`` (a list or a string)."""
    for name in ("scope", "scp"):
        value = claims.get(name)
        if isinstance(value, str):
            return value.split()
        if isinstance(value, list):
            return [v for v in value if isinstance(v, str)]
    return []
