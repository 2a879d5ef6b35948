"""URLs of the demo's authorization server, for the demo's root URLconf.

``metadata`` is mounted at the site root: RFC 8414 inserts the well-known
path before the issuer's path, so the issuer ``…/oauth`` has its metadata at
``/.well-known/oauth-authorization-server/oauth`` (the root form is served
too, for clients that look there). ``endpoints`` is mounted at ``oauth/``
in the ``oauth2_provider`` namespace the toolkit reverses.
"""

from __future__ import annotations

from django.urls import URLPattern, path
from oauth2_provider import views as dot

from demo_project.authserver import views

metadata: list[URLPattern] = [
    path(
        ".well-known/oauth-authorization-server/oauth",
        dot.OAuthServerMetadataView.as_view(),
        name="oauth-server-metadata",
    ),
    path(
        ".well-known/oauth-authorization-server",
        dot.OAuthServerMetadataView.as_view(),
        name="oauth-server-metadata-root",
    ),
]

endpoints: list[URLPattern] = [
    path("login/", views.DemoLoginView.as_view(), name="login"),
    path("authorize/", views.ConsentView.as_view(), name="authorize"),
    path("token/", views.GuardedTokenView.as_view(), name="token"),
    path("revoke_token/", dot.RevokeTokenView.as_view(), name="revoke-token"),
    path("register/", views.RegistrationView.as_view(), name="dcr-register"),
    path(
        "register/<str:client_id>/",
        dot.DynamicClientRegistrationManagementView.as_view(),
        name="dcr-register-management",
    ),
]
