"""The HTTP boundary: methods, Origin, content types, sizes, SSE, auth."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest
from django.test import Client, override_settings
from django.urls import reverse

from frisian_mcp.contrib.testing import MCPTestClient

if TYPE_CHECKING:
    # The stubs' type of a test Client response (with .json()); it exists
    # for type checkers only.
    from django.test.client import _MonkeyPatchedWSGIResponse as TestResponse

PING = {"jsonrpc": "2.0", "id": 1, "method": "ping"}


@pytest.fixture
def url() -> str:
    return reverse("frisian_mcp:endpoint")


def post(client: Client, url: str, body: object, **headers: str) -> TestResponse:
    headers.setdefault("Accept", "application/json, text/event-stream")
    return client.post(
        url, data=json.dumps(body), content_type="application/json", headers=headers
    )


def test_endpoint_is_mounted_with_and_without_trailing_slash(
    client: Client, url: str
) -> None:
    assert url == "/mcp"
    for path in ("/mcp", "/mcp/"):
        response = post(client, path, PING)
        assert response.status_code == 200
        assert response.json() == {"jsonrpc": "2.0", "id": 1, "result": {}}


@pytest.mark.parametrize("method", ["get", "delete"])
def test_get_and_delete_are_not_allowed_when_stateless(
    client: Client, url: str, method: str
) -> None:
    response = getattr(client, method)(url)
    assert response.status_code == 405
    assert response["Allow"] == "POST, OPTIONS"
    assert response.json()["error"]["code"] == -32600


def test_foreign_origin_is_forbidden(client: Client, url: str) -> None:
    response = post(client, url, PING, Origin="https://evil.example")
    assert response.status_code == 403
    body = response.json()
    assert body["id"] is None
    assert body["error"]["code"] == -32600


def test_own_origin_is_allowed(client: Client, url: str) -> None:
    response = post(client, url, PING, Origin="http://testserver")
    assert response.status_code == 200
    assert response["Access-Control-Allow-Origin"] == "http://testserver"


@override_settings(
    FRISIAN_MCP={
        "REQUIRE_AUTHENTICATION": False,
        "ALLOWED_ORIGINS": ["http://localhost:6274"],
    }
)
def test_configured_origin_is_allowed_and_gets_cors_headers(
    client: Client, url: str
) -> None:
    response = post(client, url, PING, Origin="http://localhost:6274")
    assert response.status_code == 200
    assert response["Access-Control-Allow-Origin"] == "http://localhost:6274"
    preflight = client.options(url, headers={"Origin": "http://localhost:6274"})
    assert preflight.status_code == 204
    allowed = preflight["Access-Control-Allow-Headers"]
    for header in ("MCP-Protocol-Version", "Mcp-Method", "Mcp-Name"):
        assert header in allowed


def test_origin_check_applies_to_every_method(client: Client, url: str) -> None:
    assert (
        client.get(url, headers={"Origin": "https://evil.example"}).status_code == 403
    )
    assert client.options(url, headers={"Origin": "null"}).status_code == 403


def test_wrong_content_type_is_415(client: Client, url: str) -> None:
    response = client.post(
        url, data="x=1", content_type="application/x-www-form-urlencoded"
    )
    assert response.status_code == 415
    assert response.json()["error"]["code"] == -32600


def test_unacceptable_accept_header_is_406(client: Client, url: str) -> None:
    response = post(client, url, PING, Accept="text/html")
    assert response.status_code == 406


def test_missing_accept_header_is_tolerated(client: Client, url: str) -> None:
    response = client.post(url, data=json.dumps(PING), content_type="application/json")
    assert response.status_code == 200


def test_event_stream_only_client_gets_sse(client: Client, url: str) -> None:
    response = post(client, url, PING, Accept="text/event-stream")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/event-stream")
    lines = response.content.decode().splitlines()
    assert lines[0].startswith("id: ")
    assert lines[1] == "data: "
    data = [line for line in lines if line.startswith("data: {")]
    assert json.loads(data[0][len("data: ") :]) == {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {},
    }


@override_settings(
    FRISIAN_MCP={"REQUIRE_AUTHENTICATION": False, "MAX_REQUEST_BYTES": 200}
)
def test_oversized_body_is_413(client: Client, url: str) -> None:
    body = {**PING, "params": {"pad": "x" * 500}}
    response = post(client, url, body)
    assert response.status_code == 413
    assert response.json()["error"]["code"] == -32600
    assert "200 bytes" in response.json()["error"]["message"]


def test_notification_is_accepted_with_202_and_no_body(
    client: Client, url: str
) -> None:
    response = post(
        client, url, {"jsonrpc": "2.0", "method": "notifications/initialized"}
    )
    assert response.status_code == 202
    assert response.content == b""
    assert "Content-Type" not in response


def test_client_response_message_is_accepted(client: Client, url: str) -> None:
    response = post(client, url, {"jsonrpc": "2.0", "id": 7, "result": {}})
    assert response.status_code == 202


def test_no_session_id_is_issued(client: Client) -> None:
    mcp = MCPTestClient(client)
    mcp.initialize()
    response = mcp.post({"jsonrpc": "2.0", "id": 9, "method": "ping"})
    assert "Mcp-Session-Id" not in response


@override_settings(
    FRISIAN_MCP={
        "AUTHENTICATION_CLASSES": ["rest_framework.authentication.BasicAuthentication"]
    }
)
@pytest.mark.django_db
def test_bad_credentials_get_401_with_challenge(client: Client, url: str) -> None:
    response = post(client, url, PING, Authorization="Basic bm9ib2R5Om5vcGU=")
    assert response.status_code == 401
    assert response["WWW-Authenticate"].startswith("Basic")
    body = response.json()
    assert body["error"]["code"] == -32600
    assert "nobody" not in response.content.decode()
