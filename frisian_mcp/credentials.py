"""Tools that would lock the agent out: views that end or replace the caller's
credentials (a logout, a token regeneration) are no tools unless
``CREDENTIAL_TOOLS`` names them (docs/listing.md, ADR 0031).

The decision reads only what a view declares: the classes it is built on
and the name of what serves the call. Nothing is imported to decide.
"""

from __future__ import annotations

import fnmatch
import re

from frisian_mcp.conf import mcp_settings
from frisian_mcp.types import ACTIONS, Endpoint, dotted

__all__ = ["CREDENTIAL_VIEWS", "ends_credentials", "served"]

#: Views that hand out, replace or delete the caller's token; their
#: subclasses too. Matched by dotted path, so none is imported.
CREDENTIAL_VIEWS = frozenset(
    {
        "rest_framework.authtoken.views.ObtainAuthToken",
        "knox.views.LogoutView",
        "knox.views.LogoutAllView",
        "dj_rest_auth.views.LogoutView",
    }
)
#: A name's words that say it: "log out", "sign out" or "auth token" (with
#: or without the space), or a verb that replaces or ends a credential
#: beside the credential it names ("regenerate_api_key").
_ENDING = re.compile(r"\b(?:log ?out|sign ?out|auth ?token)\b")
_VERBS = frozenset(
    {"generate", "regenerate", "rotate", "reset", "refresh", "renew", "cycle"}
    | {"revoke", "recreate", "reissue", "invalidate", "expire", "delete", "remove"}
)
_NOUNS = frozenset(
    {"token", "tokens", "authtoken", "key", "keys", "apikey", "apikeys"}
    | {"credential", "credentials"}
)
_WORD = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")


def ends_credentials(endpoint: Endpoint) -> bool:
    """Whether ``endpoint``'s view would end or replace the caller's credentials.

    So it is when its class is, or is built on, one of
    :data:`CREDENTIAL_VIEWS`, or when the name of what serves the call says
    so: a plain view's class name, a viewset's custom action's own name. A
    viewset's stock actions act on the rows it serves, whatever its name.
    """
    cls = endpoint.view_class
    if any(dotted(base) in CREDENTIAL_VIEWS for base in cls.__mro__):
        return True
    if endpoint.actions is None:
        name = cls.__name__
    elif endpoint.handler_name not in ACTIONS:
        name = endpoint.handler_name
    else:
        return False
    words = [w.lower() for w in _WORD.findall(name)]
    return bool(_ENDING.search(" ".join(words))) or (
        not _VERBS.isdisjoint(words) and not _NOUNS.isdisjoint(words)
    )


def served(name: str, endpoint: Endpoint) -> bool:
    """Whether the tool ``name`` is served: it ends no credentials, or
    ``CREDENTIAL_TOOLS`` names it."""
    if not ends_credentials(endpoint):
        return True
    return any(fnmatch.fnmatchcase(name, p) for p in mcp_settings.CREDENTIAL_TOOLS)
