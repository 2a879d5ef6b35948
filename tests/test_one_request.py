"""One request per call (issue 27 item 3, ADR 0039): the view's DRF request
carries the caller the endpoint authenticated and the body it decoded.

No authenticator runs a second time, no parser reads the body a second
time, and the view sees the authenticator that recognised the caller, as
a REST request would show it.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client, override_settings
from rest_framework.authentication import TokenAuthentication
from rest_framework.authtoken.models import Token
from rest_framework.parsers import JSONParser

from demo_project.contacts.models import Contact
from demo_project.contacts.views import ContactViewSet
from frisian_mcp.parsers import StrictJSONParser

pytestmark = pytest.mark.django_db

REQUIRED = {
    "REQUIRE_AUTHENTICATION": True,
    "AUTHENTICATION_CLASSES": ["rest_framework.authentication.TokenAuthentication"],
}


def _counted(monkeypatch: pytest.MonkeyPatch, cls: Any, name: str) -> list[Any]:
    calls: list[Any] = []
    original = getattr(cls, name)

    def counting(self: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(args)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(cls, name, counting)
    return calls


def test_the_view_gets_the_endpoints_caller_and_body_once(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    user = User.objects.create_user("agent")
    token = Token.objects.create(user=user)
    monkeypatch.setattr(
        ContactViewSet, "authentication_classes", (TokenAuthentication,)
    )
    authentications = _counted(monkeypatch, TokenAuthentication, "authenticate")
    endpoint_parses = _counted(monkeypatch, StrictJSONParser, "parse")
    view_parses = _counted(monkeypatch, JSONParser, "parse")
    seen: list[Any] = []
    create = ContactViewSet.create

    def recording(self: Any, request: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append((request.successful_authenticator, request.user, request.auth))
        return create(self, request, *args, **kwargs)

    monkeypatch.setattr(ContactViewSet, "create", recording)
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "contacts__create", "arguments": {"email": "a@example.com"}},
    }
    with override_settings(FRISIAN_MCP=REQUIRED):
        response = client.post(
            "/mcp",
            json.dumps(body),
            content_type="application/json",
            headers={"Authorization": f"Token {token.key}"},
        )
    assert response.status_code == 200
    assert response.json()["result"]["isError"] is False
    assert Contact.objects.get().email == "a@example.com"
    assert len(authentications) == 1
    assert (len(endpoint_parses), len(view_parses)) == (1, 0)
    [(authenticator, seen_user, auth)] = seen
    assert isinstance(authenticator, TokenAuthentication)
    assert (seen_user, auth) == (user, token)
