"""The OAuth 2.1 resource server (docs/authorization.md, ADR 0022).

Add ``"frisian_mcp.contrib.oauth"`` to ``INSTALLED_APPS`` (its checks),
``authentication.BearerTokenAuthentication`` to the authentication classes,
``FRISIAN_MCP["OAUTH"]`` and ``include("frisian_mcp.contrib.oauth.urls")``
to the root URLconf. Each token's :class:`~.tokens.Grant` tells the core
which tools it reaches.
"""

from __future__ import annotations

from frisian_mcp.conf import Setting, Value, declare

# Declared here, not in ready(): an authentication class named in a setting
# reads its row even when the app is not installed (W014 says so). The row
# takes any dict: the checks (E009, W004-W006) check its keys.
declare(
    __name__,
    OAUTH=Setting(
        None,
        Value("a dict", lambda v: True) | None,
        "OAuth 2.1 resource server (contrib.oauth).",
    ),
)
