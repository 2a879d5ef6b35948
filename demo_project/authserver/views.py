"""The demo authorization server's views: django-oauth-toolkit's, narrowed.

- The authorization and token endpoints issue tokens for the demo's own
  MCP resource only (RFC 8707 ``invalid_target`` for any other, without
  repeating it) and the first shows a plain consent page, after a login
  page.
- The registration endpoint (RFC 7591) checks the metadata itself, with
  messages that name fields and never repeat values, and throttles each
  address with Django's cache (HTTP 429).
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.auth.views import LoginView
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse, JsonResponse
from oauth2_provider.exceptions import OAuthToolkitError
from oauth2_provider.models import get_application_model
from oauth2_provider.settings import oauth2_settings
from oauth2_provider.views import (
    AuthorizationView,
    DynamicClientRegistrationView,
    TokenView,
)
from oauthlib.oauth2.rfc6749.errors import CustomOAuth2Error

__all__ = [
    "ConsentView",
    "DemoLoginView",
    "GuardedTokenView",
    "RegistrationView",
    "allowed_resources",
]

#: Largest registration request accepted, in bytes.
MAX_REGISTRATION_BYTES = 5 * 1024
GRANT_TYPES = frozenset({"authorization_code", "refresh_token"})
AUTH_METHODS = frozenset({"none", "client_secret_basic", "client_secret_post"})
LOOPBACK = frozenset({"127.0.0.1", "::1", "localhost"})


def allowed_resources() -> set[str]:
    """The resources tokens may be issued for: the demo's MCP endpoint."""
    config: Any = getattr(settings, "FRISIAN_MCP", {})
    resource = str(config["OAUTH"]["RESOURCE"]).rstrip("/")
    return {resource, resource + "/"}


def _target_error(state: str | None, redirect_uri: str) -> OAuthToolkitError:
    return OAuthToolkitError(
        error=CustomOAuth2Error(
            error="invalid_target",
            description="This server issues tokens for its MCP endpoint only.",
            state=state,
        ),
        redirect_uri=redirect_uri,
    )


class DemoLoginView(LoginView):
    """Username and password, then back to the authorization request."""

    template_name = "demo_project/login.html"


class ConsentView(AuthorizationView):  # type: ignore[misc]
    """The authorization endpoint: login, then consent, for the MCP resource."""

    template_name = "demo_project/consent.html"

    def validate_authorization_request(
        self, request: HttpRequest
    ) -> tuple[list[str], dict[str, Any]]:
        """Django-oauth-toolkit's checks, then the requested resources."""
        scopes, credentials = super().validate_authorization_request(request)
        if not set(request.GET.getlist("resource")) <= allowed_resources():
            raise _target_error(credentials.get("state"), credentials["redirect_uri"])
        return scopes, credentials

    def form_valid(self, form: Any) -> HttpResponse:
        """Grant or deny; the hidden ``resource`` and ``client_id`` fields are
        checked again.

        A tampered form gets an error page, not a redirect: its hidden
        ``redirect_uri`` has not been checked against the client yet.
        """
        requested = set(str(form.cleaned_data.get("resource") or "").split())
        if not requested <= allowed_resources():
            return self._refused(_target_error(None, "").oauthlib_error)
        client = form.cleaned_data.get("client_id")
        if not get_application_model().objects.filter(client_id=client).exists():
            # The toolkit would raise DoesNotExist: a 500, whose DEBUG page
            # repeats the posted form.
            return self._refused(
                CustomOAuth2Error(
                    error="invalid_client", description="The client is not registered."
                )
            )
        return super().form_valid(form)  # type: ignore[no-any-return]

    def form_invalid(self, form: Any) -> HttpResponse:
        """A form posted without its hidden fields: an error page that
        repeats none of what was posted (not the form again)."""
        return self._refused(
            CustomOAuth2Error(
                error="invalid_request",
                description="The authorization form is incomplete; start again "
                "from the application.",
            )
        )

    def _refused(self, error: Any) -> HttpResponse:
        return self.render_to_response({"error": error}, status=400)  # type: ignore[no-any-return]


class GuardedTokenView(TokenView):  # type: ignore[misc]
    """The token endpoint, refusing other resources before the toolkit does.

    The toolkit refuses them too, but repeats the value in its message.
    """

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        """Issue or refresh a token for the MCP resource only."""
        if not set(request.POST.getlist("resource")) <= allowed_resources():
            return JsonResponse(
                {
                    "error": "invalid_target",
                    "error_description": "This server issues tokens for its "
                    "MCP endpoint only.",
                },
                status=400,
            )
        response: HttpResponse = super().post(request, *args, **kwargs)
        return response


def _invalid(field: str) -> JsonResponse:
    # RFC 7591 section 3.2.2; the value sent is never repeated.
    return JsonResponse(
        {
            "error": "invalid_client_metadata"
            if field != "redirect_uris"
            else "invalid_redirect_uri",
            "error_description": f"The {field} field is missing or not allowed.",
        },
        status=400,
    )


def _redirect_uri_ok(uri: Any) -> bool:
    if not isinstance(uri, str) or len(uri) > 512 or "#" in uri:
        return False
    parts = urlsplit(uri)
    if not parts.hostname or "@" in parts.netloc:
        return False
    if parts.scheme == "https":
        return True
    # http only back to the client's own machine (RFC 8252 section 7.3).
    return parts.scheme == "http" and parts.hostname in LOOPBACK


def check_metadata(data: Any) -> str | None:
    """The first field of RFC 7591 client metadata the demo refuses, or None."""
    if not isinstance(data, dict):
        return "body"
    uris = data.get("redirect_uris")
    if not (isinstance(uris, list) and 0 < len(uris) <= 10):
        return "redirect_uris"
    if not all(_redirect_uri_ok(uri) for uri in uris):
        return "redirect_uris"
    grants = data.get("grant_types", ["authorization_code"])
    if not (isinstance(grants, list) and "authorization_code" in grants):
        return "grant_types"
    if not set(grants) <= GRANT_TYPES:
        return "grant_types"
    if data.get("response_types", ["code"]) != ["code"]:
        return "response_types"
    if data.get("token_endpoint_auth_method", "none") not in AUTH_METHODS:
        return "token_endpoint_auth_method"
    name = data.get("client_name", "")
    if not isinstance(name, str) or len(name) > 100:
        return "client_name"
    scope = data.get("scope", "")
    if not isinstance(scope, str) or not set(scope.split()) <= set(
        oauth2_settings.SCOPES
    ):
        return "scope"
    return None


class RegistrationView(DynamicClientRegistrationView):  # type: ignore[misc]
    """RFC 7591 registration, open to anyone, throttled per address."""

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        """Register a client, or say which field is refused, or 429."""
        limit, window = getattr(settings, "DEMO_REGISTRATION_RATE", (10, 3600))
        key = f"demo-dcr:{request.META.get('REMOTE_ADDR', '')}"
        cache.add(key, 0, window)
        try:
            count = cache.incr(key)
        except ValueError:  # expired between add and incr
            cache.set(key, count := 1, window)
        if count > limit:
            throttled = JsonResponse(
                {
                    "error": "too_many_requests",
                    "error_description": "Too many registrations from this "
                    "address; try again later.",
                },
                status=429,
            )
            throttled["Retry-After"] = str(window)
            return throttled
        if len(request.body) > MAX_REGISTRATION_BYTES:
            return _invalid("body")
        try:
            data = json.loads(request.body)
        except ValueError:
            return _invalid("body")
        field = check_metadata(data)
        if field is not None:
            return _invalid(field)
        response: HttpResponse = super().post(request, *args, **kwargs)
        if response.status_code == 400:
            # The toolkit's own messages may repeat values; say less.
            return _invalid("metadata")
        return response
