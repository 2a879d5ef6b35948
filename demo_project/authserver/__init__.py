"""The demo's OAuth 2.1 authorization server, built on django-oauth-toolkit.

Not part of frisian_mcp: the package is a resource server and works with
any authorization server. This one issues the tokens the demo's ``/mcp``
accepts: authorization code with PKCE (S256), rotating refresh tokens,
login and consent pages, RFC 8414 metadata, client ID metadata documents
and dynamic client registration (docs/authorization.md).
"""
