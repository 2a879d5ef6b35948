"""Small holes found under hostile input (issue 22 item 5).

- The demo's consent form posted with a made-up ``client_id`` answered
  HTTP 500; with ``DEBUG`` on, Django's error page repeated the posted form.
- A read-only token calling a tool its user may not use got the step-up
  403, which says the tool exists and sends the client to re-consent for a
  scope that would not help.
- Under ``INPUT_ERROR_STYLE = "tool_result"`` an unknown tool became a tool
  result; it is a protocol error (MCP 2025-11-25 server/tools).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import Permission, User
from django.test import Client, override_settings

from demo_project.contacts.models import Contact
from demo_project.management.commands.seed_demo import DEMO_CLIENT_ID
from tests.oauth_as_support import pkce_pair
from tests.test_oauth_as import (
    REDIRECT,
    RESOURCE,
    as_settings,
    code_for,
    exchange,
    signed_in,
    written,
)

pytestmark = pytest.mark.django_db

SECRET = "hostile-7f3a9c"


@pytest.fixture
def demo_as(demo_data: None) -> Iterator[None]:
    with override_settings(**as_settings()):
        yield


def consent_post(**fields: str) -> dict[str, str]:
    """A consent form as a browser posts it, for the client ``fields`` say."""
    _, challenge = pkce_pair()
    form = {
        "client_id": DEMO_CLIENT_ID,
        "redirect_uri": REDIRECT,
        "response_type": "code",
        "scope": "mcp:read",
        "state": f"state-{SECRET}",
        "code_challenge": challenge,
        "code_challenge_method": "S256",
        "resource": RESOURCE,
        "allow": "Authorize",
    }
    form.update(fields)
    return form


@pytest.mark.parametrize("debug", [False, True])
@pytest.mark.parametrize(
    "form",
    [
        {"client_id": f"made-up-{SECRET}"},
        {"client_id": ""},
        {"redirect_uri": "", "response_type": ""},
    ],
    ids=["unknown-client", "no-client", "missing-fields"],
)
def test_a_forged_consent_form_gets_a_400_page_that_repeats_nothing(
    demo_as: None, debug: bool, form: dict[str, str]
) -> None:
    browser = signed_in()
    before = written()
    with override_settings(DEBUG=debug):
        response = browser.post("/oauth/authorize/", consent_post(**form))
    assert response.status_code == 400
    assert "Location" not in response
    page = response.content.decode()
    assert "This authorization request cannot be completed" in page
    for echoed in (SECRET, "made-up", REDIRECT, "S256", "csrfmiddlewaretoken"):
        assert echoed not in page
    assert written() == before


# -- a tool hidden from the user, called with a read-only token --------------


def _call(token: str, name: str, arguments: dict[str, Any]) -> Any:
    body = {
        "jsonrpc": "2.0",
        "id": 5,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }
    return Client().post(
        "/mcp",
        json.dumps(body),
        content_type="application/json",
        headers={
            "Accept": "application/json, text/event-stream",
            "Authorization": f"Bearer {token}",
            "MCP-Protocol-Version": "2025-11-25",
        },
    )


def _read_token(username: str) -> str:
    code, verifier = code_for(username, scope="mcp:read")
    token: str = json.loads(exchange(code, verifier).content)["access_token"]
    return token


def test_a_tool_hidden_from_the_user_answers_as_one_that_does_not_exist(
    demo_as: None,
) -> None:
    User.objects.create_user("viewer", password="viewer")  # no permissions
    token = _read_token("viewer")
    contact = Contact.objects.create(email="kept@example.com")
    hidden = _call(token, "contacts__destroy", {"id": str(contact.pk)})
    missing = _call(token, "contacts__obliterate", {"id": str(contact.pk)})

    assert hidden.status_code == missing.status_code == 200
    assert "WWW-Authenticate" not in hidden
    assert hidden.json()["error"] == missing.json()["error"]
    assert hidden.json()["error"]["data"]["code"] == "unknown_tool"
    assert Contact.objects.filter(pk=contact.pk).exists()


def test_a_tool_the_user_may_use_still_asks_for_the_scope(demo_as: None) -> None:
    viewer = User.objects.create_user("viewer", password="viewer")
    viewer.user_permissions.add(Permission.objects.get(codename="delete_contact"))
    contact = Contact.objects.create(email="kept@example.com")
    response = _call(
        _read_token("viewer"), "contacts__destroy", {"id": str(contact.pk)}
    )
    assert response.status_code == 403
    assert 'error="insufficient_scope"' in response["WWW-Authenticate"]
    assert response.json()["error"]["data"]["code"] == "insufficient_scope"
    assert Contact.objects.filter(pk=contact.pk).exists()


# -- unknown tools under INPUT_ERROR_STYLE = "tool_result" -------------------


@override_settings(
    FRISIAN_MCP={"REQUIRE_AUTHENTICATION": False, "INPUT_ERROR_STYLE": "tool_result"}
)
def test_an_unknown_tool_stays_a_protocol_error_under_tool_result_style(
    client: Client,
) -> None:
    def call(name: str, arguments: dict[str, Any]) -> Any:
        body = {
            "jsonrpc": "2.0",
            "id": "u",
            "method": "tools/call",
            "params": {"name": name, "arguments": arguments},
        }
        return client.post(
            "/mcp",
            json.dumps(body),
            content_type="application/json",
            headers={"MCP-Protocol-Version": "2025-11-25"},
        ).json()

    unknown = call("contacts__craete", {"email": "a@example.com"})
    assert unknown["id"] == "u"
    assert unknown["error"]["code"] == -32602
    assert unknown["error"]["data"]["code"] == "unknown_tool"
    assert "contacts__create" in unknown["error"]["data"]["suggestions"]
    # An argument error of a known tool is still a result, as configured.
    wrapped = call("contacts__create", {"data": {"email": "a@example.com"}})
    assert wrapped["result"]["isError"] is True
    assert not Contact.objects.exists()
