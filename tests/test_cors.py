"""CORS at the endpoint, for browser-based clients (issue 22 item 4).

An origin in ``ALLOWED_ORIGINS`` gets its preflights answered and, on every
answer (errors included: 401, 403, 4xx, 500), ``Access-Control-Allow-Origin``
and the headers a browser client must read exposed: ``WWW-Authenticate``,
``Mcp-Session-Id``, ``MCP-Protocol-Version``. Any other origin gets 403 and
no CORS grant. tests/test_browser_cors.py checks the same in Chromium.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client, override_settings

from demo_project.contacts.models import Contact

pytestmark = pytest.mark.django_db

INSPECTOR = "http://localhost:6274"
EXPOSED = {"www-authenticate", "mcp-session-id", "mcp-protocol-version"}
PING = {"jsonrpc": "2.0", "id": 1, "method": "ping"}


def settings(**options: Any) -> dict[str, Any]:
    return {"REQUIRE_AUTHENTICATION": False, "ALLOWED_ORIGINS": [INSPECTOR], **options}


@pytest.fixture(autouse=True)
def _allowed() -> Any:
    with override_settings(FRISIAN_MCP=settings()):
        yield


def names(value: str) -> set[str]:
    return {part.strip().lower() for part in value.split(",") if part.strip()}


def assert_granted(response: Any, origin: str = INSPECTOR) -> None:
    assert response["Access-Control-Allow-Origin"] == origin
    assert names(response["Access-Control-Expose-Headers"]) == EXPOSED
    assert "origin" in names(response["Vary"])
    assert "Access-Control-Allow-Credentials" not in response


def preflight(client: Client, origin: str, method: str = "POST") -> Any:
    return client.options(
        "/mcp",
        headers={
            "Origin": origin,
            "Access-Control-Request-Method": method,
            "Access-Control-Request-Headers": (
                "authorization,content-type,mcp-protocol-version,mcp-method,mcp-name"
            ),
        },
    )


@pytest.mark.parametrize("method", ["POST", "GET", "DELETE"])
def test_a_preflight_from_an_allowed_origin_is_granted(
    client: Client, method: str
) -> None:
    response = preflight(client, INSPECTOR, method)
    assert response.status_code == 204
    assert response.content == b""
    assert_granted(response)
    assert method.lower() in names(response["Access-Control-Allow-Methods"])
    requested = {"authorization", "content-type", "mcp-protocol-version"}
    assert requested | {"mcp-method", "mcp-name"} <= names(
        response["Access-Control-Allow-Headers"]
    )
    assert response["Access-Control-Max-Age"] == "7200"


@pytest.mark.parametrize(
    "origin", ["https://evil.example", "null", "http://localhost:6275"]
)
def test_a_preflight_from_another_origin_gets_no_grant(
    client: Client, origin: str
) -> None:
    response = preflight(client, origin)
    assert response.status_code == 403
    for header in response.headers:
        assert not header.lower().startswith("access-control-"), header


def post(client: Client, body: Any = PING, **headers: str) -> Any:
    data = body if isinstance(body, bytes | str) else json.dumps(body)
    return client.post(
        headers.pop("path", "/mcp"),
        data,
        content_type=headers.pop("content_type", "application/json"),
        headers={"Origin": INSPECTOR, **headers},
    )


class BrokenAuthentication:
    def authenticate(self, request: Any) -> Any:
        raise RuntimeError("broken")

    def authenticate_header(self, request: Any) -> str:
        return "Broken"


AUTH = ["rest_framework.authentication.TokenAuthentication"]


@pytest.mark.parametrize(
    ("status", "send", "options"),
    [
        (200, {}, {}),
        (401, {}, {"REQUIRE_AUTHENTICATION": True, "AUTHENTICATION_CLASSES": AUTH}),
        (406, {"Accept": "text/html"}, {}),
        (415, {"content_type": "text/plain"}, {}),
        (413, {"body": b" " * 2048}, {"MAX_REQUEST_BYTES": 1024}),
        (400, {"MCP-Protocol-Version": "1999-01-01"}, {}),
        (400, {"path": "/mcp?" + "&".join(f"k{i}=1" for i in range(1100))}, {}),
        (500, {}, {"AUTHENTICATION_CLASSES": [f"{__name__}.BrokenAuthentication"]}),
    ],
    ids=["ok", "401", "406", "415", "413", "400-version", "400-malformed", "500"],
)
def test_every_answer_to_an_allowed_origin_carries_cors(
    client: Client, status: int, send: dict[str, Any], options: dict[str, Any]
) -> None:
    send = dict(send)
    body = send.pop("body", PING)
    with override_settings(FRISIAN_MCP=settings(**options)):
        response = post(client, body, **send)
    assert response.status_code == status, response.content
    assert_granted(response)
    if status == 401:
        assert response["WWW-Authenticate"].startswith("Token")


def test_get_and_delete_answer_an_allowed_origin_with_cors(client: Client) -> None:
    for method in (client.get, client.delete):
        response = method("/mcp", headers={"Origin": INSPECTOR})
        assert response.status_code == 405
        assert_granted(response)


def test_a_refused_origin_gets_403_and_writes_nothing(client: Client) -> None:
    call = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "contacts__create", "arguments": {"email": "x@example.com"}},
    }
    response = client.post(
        "/mcp",
        json.dumps(call),
        content_type="application/json",
        headers={"Origin": "https://evil.example"},
    )
    assert response.status_code == 403
    assert "Access-Control-Allow-Origin" not in response
    assert not Contact.objects.exists()


def test_answers_without_an_origin_vary_on_it_and_grant_nothing(
    client: Client,
) -> None:
    response = client.post("/mcp", json.dumps(PING), content_type="application/json")
    assert response.status_code == 200
    assert "origin" in names(response["Vary"])
    assert "Access-Control-Allow-Origin" not in response
