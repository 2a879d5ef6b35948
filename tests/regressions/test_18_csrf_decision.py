"""Regression: the inner request dropped the host middleware's CSRF decision.

Found by the round-trip test over every test app (issue 18 items 5, 8).
With the endpoint on tokens, a view that takes only sessions authenticates
the caller's session cookie, as over REST, and DRF's ``SessionAuthentication``
checks CSRF for its writes. A host whose middleware exempts its API from
CSRF (``request._dont_enforce_csrf_checks``, as API-only hosts and Django's
test client set it) saw REST accept the write and the tool refuse it ("CSRF
Failed"): the inner request kept the middleware's public attributes and its
canonical host, not this one. Without that decision CSRF still applies,
exactly as over REST.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.http import HttpRequest, HttpResponseBase
from django.test import Client, override_settings
from rest_framework.authtoken.models import Token

from demo_project.contacts.models import Contact
from frisian_mcp.contrib.testing import MCPTestClient, tool_error

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.urls_oauth")]

TOKENS = {
    "AUTHENTICATION_CLASSES": ["rest_framework.authentication.TokenAuthentication"]
}
#: A CSRF secret the caller holds in its cookie and sends in the header.
SECRET = "a" * 32


class APIWithoutCSRF:
    """Exempts the API from CSRF checks, as API-only hosts' middleware does."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        request._dont_enforce_csrf_checks = True  # type: ignore[attr-defined]
        return self.get_response(request)


exempt = override_settings(
    MIDDLEWARE=[f"{__name__}.APIWithoutCSRF", *settings.MIDDLEWARE],
    FRISIAN_MCP=TOKENS,
)


def _caller() -> tuple[Client, MCPTestClient]:
    """A session (CSRF checked, as in a browser) and a DRF token."""
    user = User.objects.create_user("editor", password="pw")
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    token = Token.objects.create(user=user)
    mcp = MCPTestClient(client, headers={"Authorization": f"Token {token.key}"})
    mcp.initialize()
    return client, mcp


def _rest(client: Client, pk: Any, **headers: str) -> int:
    response = client.patch(
        f"/api/contacts/{pk}/",
        {"first_name": "REST"},
        content_type="application/json",
        headers=headers,
    )
    return response.status_code


def _tool(mcp: MCPTestClient, pk: Any) -> dict[str, Any]:
    result = mcp.call_tool(
        "contacts__partial_update", {"id": str(pk), "first_name": "MCP"}
    )
    return {"error": tool_error(result)} if result["isError"] else {}


@exempt
def test_regression_the_hosts_csrf_exemption_reaches_the_view() -> None:
    contact = Contact.objects.create(first_name="Ada")
    client, mcp = _caller()
    assert _rest(client, contact.pk) == 200
    assert _tool(mcp, contact.pk) == {}
    assert Contact.objects.get().first_name == "MCP"


@override_settings(FRISIAN_MCP=TOKENS)
def test_without_the_exemption_csrf_applies_as_over_rest() -> None:
    contact = Contact.objects.create(first_name="Ada")
    client, mcp = _caller()
    assert _rest(client, contact.pk) == 403
    error = _tool(mcp, contact.pk)["error"]
    assert error["code"] == "permission_denied", error
    assert "CSRF" in error["message"]
    assert Contact.objects.get().first_name == "Ada"
    client.cookies[settings.CSRF_COOKIE_NAME] = SECRET
    assert _rest(client, contact.pk, **{"X-CSRFToken": SECRET}) == 200
    mcp.headers["X-CSRFToken"] = SECRET
    assert _tool(mcp, contact.pk) == {}
    assert Contact.objects.get().first_name == "MCP"
