"""The OAuth 2.1 resource server (docs/authorization.md, ADR 0022).

Add ``"frisian_mcp.contrib.oauth"`` to ``INSTALLED_APPS`` (its checks),
``authentication.BearerTokenAuthentication`` to the authentication classes,
``FRISIAN_MCP["OAUTH"]`` and ``include("frisian_mcp.contrib.oauth.urls")``
to the root URLconf. Each token's :class:`~.tokens.Grant` tells the core
which tools it reaches.
"""
