"""The demo's request validator: a replayed code revokes what it produced.

RFC 6749 section 4.1.2: a code used twice is refused (the toolkit deletes
it on first use), and the server SHOULD revoke the tokens already issued
from it, since a replay means the code leaked. The toolkit keeps no link
from a code to its tokens, so this validator records, for a while, the
refresh-token family each code started (keyed by the code's hash, in
Django's cache) and revokes that family, access tokens included, when the
code comes back.
"""

from __future__ import annotations

import hashlib
import uuid
from typing import Any

from django.core.cache import cache
from oauth2_provider.models import get_refresh_token_model
from oauth2_provider.oauth2_validators import OAuth2Validator

__all__ = ["DemoValidator"]

#: Seconds a used code's family is remembered: well past the code's life.
REMEMBER_SECONDS = 3600


def _key(code: str) -> str:
    return "demo-code:" + hashlib.sha256(code.encode()).hexdigest()


class DemoValidator(OAuth2Validator):  # type: ignore[misc]
    """The toolkit's validator, plus revocation on a replayed code."""

    def validate_code(
        self,
        client_id: str,
        code: str,
        client: Any,
        request: Any,
        *args: Any,
        **kwargs: Any,
    ) -> bool:
        """Check the code; when it was used before, revoke its tokens."""
        valid: bool = super().validate_code(
            client_id, code, client, request, *args, **kwargs
        )
        if not valid:
            family = cache.get(_key(code))
            if family is not None:
                cache.delete(_key(code))
                get_refresh_token_model().revoke_family(uuid.UUID(family))
        return valid

    def _create_refresh_token(
        self,
        request: Any,
        refresh_token_code: str,
        access_token: Any,
        previous_refresh_token: Any,
    ) -> Any:
        """Create the refresh token; remember the family a code started."""
        refresh_token = super()._create_refresh_token(
            request, refresh_token_code, access_token, previous_refresh_token
        )
        if request.grant_type == "authorization_code" and request.code:
            cache.set(
                _key(request.code), str(refresh_token.token_family), REMEMBER_SECONDS
            )
        return refresh_token
