"""Issue 20: a browser session can call the endpoint with its CSRF token.

DRF's ``SessionAuthentication`` enforces CSRF by reading ``request.POST``.
The endpoint had already read the body as a stream, so DRF's attempt to
parse it raised ``RawPostDataException`` and every session call answered
-32603. A session call with a valid ``X-CSRFToken`` now runs; one without
is refused, and neither refusal writes a row.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth.models import Permission, User
from django.middleware.csrf import get_token
from django.test import Client, RequestFactory, override_settings

from demo_project.contacts.models import Contact

pytestmark = pytest.mark.django_db

SESSION = {
    "REQUIRE_AUTHENTICATION": True,
    "AUTHENTICATION_CLASSES": ["rest_framework.authentication.SessionAuthentication"],
}
CREATE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "tools/call",
    "params": {"name": "contacts__create", "arguments": {"email": "s@example.com"}},
}


@pytest.fixture
def browser() -> Client:
    """A logged-in session that enforces CSRF as a browser's would be."""
    user = User.objects.create_user("person", password="pw")
    user.user_permissions.set(Permission.objects.filter(codename="add_contact"))
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    return client


def post(client: Client, **headers: str) -> Any:
    return client.post(
        "/mcp",
        data=json.dumps(CREATE),
        content_type="application/json",
        headers={
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": "2025-11-25",
            **headers,
        },
    )


def csrf_token(client: Client) -> str:
    """A CSRF token of the client's session (and its cookie, set)."""
    request = RequestFactory().get("/")
    token = get_token(request)
    client.cookies["csrftoken"] = request.META["CSRF_COOKIE"]
    return token


@override_settings(FRISIAN_MCP=SESSION)
def test_a_session_call_with_its_csrf_token_runs(browser: Client) -> None:
    response = post(browser, **{"X-CSRFToken": csrf_token(browser)})
    assert response.status_code == 200
    result = response.json()["result"]
    assert result["isError"] is False
    assert Contact.objects.get().email == "s@example.com"


@override_settings(FRISIAN_MCP=SESSION)
def test_a_session_call_without_a_csrf_token_is_refused(browser: Client) -> None:
    csrf_token(browser)  # the cookie alone, as a forged form would carry it
    response = post(browser)
    assert response.status_code == 403
    assert response.json()["error"]["code"] == -32600
    assert not Contact.objects.exists()


@override_settings(FRISIAN_MCP=SESSION)
def test_a_session_call_with_a_wrong_csrf_token_is_refused(browser: Client) -> None:
    csrf_token(browser)
    response = post(browser, **{"X-CSRFToken": "x" * 64})
    assert response.status_code == 403
    assert not Contact.objects.exists()
