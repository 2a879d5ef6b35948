"""The stateless 2026-07-28 revision, through the real HTTP path.

Every request carries its version and the client's capabilities in
``_meta`` and mirrors method, version and tool name into headers
(2026-07-28 basic/index "_meta", basic/transports/streamable-http "Request
Metadata"); the handshake era keeps working beside it on the same endpoint.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from django.core import checks
from django.test import Client, override_settings
from django.urls import reverse

from demo_project.contacts.models import Contact
from frisian_mcp import __version__
from frisian_mcp.checks import check_settings
from frisian_mcp.contrib.testing import MCPError, MCPTestClient, tool_error

pytestmark = pytest.mark.django_db

VERSION = "2026-07-28"
SERVER_INFO = {
    "io.modelcontextprotocol/serverInfo": {
        "name": "frisian-mcp",
        "version": __version__,
    }
}


def meta(version: str = VERSION) -> dict[str, Any]:
    return {
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
    }


def request(
    method: str, params: dict[str, Any] | None = None, **extra: Any
) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": 1,
        "method": method,
        "params": {**(params or {}), "_meta": meta()},
        **extra,
    }


def headers_for(body: dict[str, Any]) -> dict[str, str]:
    """The headers a conforming client mirrors from ``body``."""
    headers = {
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": body["params"]["_meta"][
            "io.modelcontextprotocol/protocolVersion"
        ],
        "Mcp-Method": body["method"],
    }
    if body["method"] == "tools/call":
        headers["Mcp-Name"] = body["params"]["name"]
    return headers


def post(client: Client, body: Any, headers: dict[str, str] | None = None) -> Any:
    if headers is None:
        headers = headers_for(body)
    return client.post(
        reverse("frisian_mcp:endpoint"),
        data=body if isinstance(body, str | bytes) else json.dumps(body),
        content_type="application/json",
        headers=headers,
    )


def call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return request("tools/call", {"name": name, "arguments": arguments})


# -- server/discover ------------------------------------------------------------


def test_discover_advertises_both_eras_and_caching(client: Client) -> None:
    response = post(client, request("server/discover"))
    assert response.status_code == 200
    result = response.json()["result"]
    assert result == {
        "supportedVersions": ["2025-03-26", "2025-06-18", "2025-11-25", VERSION],
        "capabilities": {
            "tools": {"listChanged": False},
            "resources": {},
            "completions": {},
            "prompts": {},
            "logging": {},
        },
        "ttlMs": 60_000,
        "cacheScope": "private",
        "resultType": "complete",
        "_meta": SERVER_INFO,
    }


@override_settings(
    FRISIAN_MCP={
        "REQUIRE_AUTHENTICATION": False,
        "SERVER_INSTRUCTIONS": "Contacts and DCIM.",
        "SERVER_TITLE": "Demo",
        "CACHE_TTL_MS": 0,
    }
)
def test_discover_carries_instructions_title_and_ttl_setting(client: Client) -> None:
    result = post(client, request("server/discover")).json()["result"]
    assert result["instructions"] == "Contacts and DCIM."
    assert result["ttlMs"] == 0
    assert result["_meta"]["io.modelcontextprotocol/serverInfo"]["title"] == "Demo"


def test_negative_cache_ttl_is_a_settings_error() -> None:
    with override_settings(FRISIAN_MCP={"CACHE_TTL_MS": -1}):
        messages = check_settings()
    assert [m.id for m in messages] == ["frisian_mcp.E007"]
    assert all(m.level == checks.ERROR for m in messages)


# -- tools/list and tools/call -------------------------------------------------


def test_tools_list_is_the_handshake_list_with_result_fields(client: Client) -> None:
    modern = post(client, request("tools/list")).json()["result"]
    legacy = client.post(
        reverse("frisian_mcp:endpoint"),
        data=json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        content_type="application/json",
        headers={"MCP-Protocol-Version": "2025-11-25"},
    ).json()["result"]
    assert modern["tools"] == legacy["tools"]
    assert modern["tools"][0]["title"]
    assert modern["resultType"] == "complete"
    assert modern["ttlMs"] == 60_000
    assert modern["cacheScope"] == "private"
    assert modern["_meta"] == SERVER_INFO


@override_settings(
    FRISIAN_MCP={"REQUIRE_AUTHENTICATION": False, "TOOLS_LIST_PAGE_SIZE": 5}
)
def test_tools_list_pages_with_cursors(client: Client) -> None:
    names: list[str] = []
    cursor = None
    while True:
        params: dict[str, Any] = {} if cursor is None else {"cursor": cursor}
        result = post(client, request("tools/list", params)).json()["result"]
        names += [tool["name"] for tool in result["tools"]]
        cursor = result.get("nextCursor")
        if cursor is None:
            break
    assert len(names) == len(set(names)) > 5
    assert "contacts__create" in names


def test_call_creates_and_answers_with_result_fields(client: Client) -> None:
    response = post(client, call("contacts__create", {"email": "ada@example.com"}))
    assert response.status_code == 200
    result = response.json()["result"]
    assert result["isError"] is False
    assert result["structuredContent"]["email"] == "ada@example.com"
    assert json.loads(result["content"][0]["text"]) == result["structuredContent"]
    assert result["resultType"] == "complete"
    assert result["_meta"] == SERVER_INFO
    assert "ttlMs" not in result
    assert Contact.objects.get().email == "ada@example.com"
    assert "Mcp-Session-Id" not in response


def test_tool_errors_are_results_with_result_fields(client: Client) -> None:
    missing = "00000000-0000-0000-0000-000000000000"
    result = post(client, call("contacts__retrieve", {"id": missing})).json()["result"]
    assert result["isError"] is True
    assert tool_error(result)["code"] == "not_found"
    assert result["resultType"] == "complete"


def test_the_wrapper_guard_holds_in_the_modern_era(client: Client) -> None:
    body = call("contacts__create", {"data": {"email": "ada@example.com"}})
    response = post(client, body)
    assert response.status_code == 200
    error = response.json()["error"]
    assert error["code"] == -32602
    assert error["data"]["code"] == "nested_wrapper"
    assert not Contact.objects.exists()


def test_base64_encoded_tool_name_header_is_decoded(client: Client) -> None:
    body = call("contacts__create", {"email": "ada@example.com"})
    headers = headers_for(body)
    encoded = base64.b64encode(b"contacts__create").decode()
    headers["Mcp-Name"] = f"=?base64?{encoded}?="
    response = post(client, body, headers)
    assert response.json()["result"]["isError"] is False
    assert Contact.objects.count() == 1


def test_only_the_response_is_streamed_to_sse_clients(client: Client) -> None:
    body = request("tools/list")
    headers = {**headers_for(body), "Accept": "text/event-stream"}
    response = post(client, body, headers)
    assert response["Content-Type"] == "text/event-stream"
    assert response["X-Accel-Buffering"] == "no"
    text = response.content.decode()
    # Not resumable: no event ids, no priming event.
    assert not [line for line in text.splitlines() if line.startswith("id:")]
    assert text.startswith("event: message\ndata: {")


def test_notifications_are_accepted(client: Client) -> None:
    body = {
        "jsonrpc": "2.0",
        "method": "notifications/cancelled",
        "params": {"_meta": meta()},
    }
    response = post(client, body, {"MCP-Protocol-Version": VERSION})
    assert response.status_code == 202
    assert response.content == b""


# -- refusals ------------------------------------------------------------------


@pytest.mark.parametrize(
    "drop",
    [
        "io.modelcontextprotocol/protocolVersion",
        "io.modelcontextprotocol/clientCapabilities",
    ],
)
def test_missing_required_meta_is_invalid_params_400(client: Client, drop: str) -> None:
    body = call("contacts__create", {"email": "ada@example.com"})
    headers = headers_for(body)
    del body["params"]["_meta"][drop]
    response = post(client, body, headers)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == -32602
    assert drop in error["message"]
    assert response.json()["id"] == 1
    assert not Contact.objects.exists()


def test_modern_header_without_meta_is_invalid_params_400(client: Client) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    response = post(
        client, body, {"MCP-Protocol-Version": VERSION, "Mcp-Method": "tools/list"}
    )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == -32602


def test_discover_without_meta_is_invalid_params_400(client: Client) -> None:
    # A dual-era client probing without _meta learns nothing modern from
    # -32602 and falls back to initialize, which still works.
    body = {"jsonrpc": "2.0", "id": 1, "method": "server/discover"}
    response = post(client, body, {"Mcp-Method": "server/discover"})
    assert response.status_code == 400
    assert response.json()["error"]["code"] == -32602


@pytest.mark.parametrize(
    ("header", "value"),
    [
        ("MCP-Protocol-Version", None),
        ("MCP-Protocol-Version", "2025-11-25"),
        ("Mcp-Method", None),
        ("Mcp-Method", "tools/list"),
        ("Mcp-Method", "TOOLS/CALL"),  # values are case-sensitive
        ("Mcp-Name", None),
        ("Mcp-Name", "contacts__destroy"),
        ("Mcp-Name", "=?base64?not base64!?="),
        ("Mcp-Name", "=?base64?" + base64.b64encode(b"contacts__list").decode() + "?="),
    ],
)
def test_header_mismatch_is_32020_and_writes_nothing(
    client: Client, header: str, value: str | None
) -> None:
    body = call("contacts__create", {"email": "ada@example.com"})
    headers = headers_for(body)
    if value is None:
        del headers[header]
    else:
        headers[header] = value
    response = post(client, body, headers)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == -32020
    assert header.lower() in error["message"].lower()
    for sent in ("contacts__destroy", "contacts__list", "2025-11-25", "TOOLS/CALL"):
        assert sent not in error["message"]
    assert not Contact.objects.exists()


def test_header_names_are_case_insensitive(client: Client) -> None:
    body = call("contacts__create", {"email": "ada@example.com"})
    headers = {k.lower(): v for k, v in headers_for(body).items()}
    response = post(client, body, headers)
    assert response.json()["result"]["isError"] is False


def test_unsupported_version_is_32022_listing_the_versions(client: Client) -> None:
    body = request("tools/list")
    body["params"]["_meta"] = meta("2027-01-01")
    response = post(client, body)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == -32022
    assert error["data"] == {
        "supported": ["2025-03-26", "2025-06-18", "2025-11-25", VERSION],
        "requested": "2027-01-01",
    }


@pytest.mark.parametrize(
    "method", ["initialize", "ping", "resources/subscribe", "logging/setLevel", "nope"]
)
def test_methods_outside_the_revision_are_404(client: Client, method: str) -> None:
    response = post(client, request(method))
    assert response.status_code == 404
    error = response.json()["error"]
    assert error["code"] == -32601
    assert response.json()["id"] == 1


def test_batches_are_refused(client: Client) -> None:
    body = [request("tools/list"), request("server/discover")]
    response = post(client, body, {"MCP-Protocol-Version": VERSION})
    assert response.status_code == 400
    assert response.json()["error"]["code"] == -32600


@pytest.mark.parametrize(("sent", "answered"), [(1, 1), (1.5, None), (True, None)])
def test_responses_from_the_client_are_refused(
    client: Client, sent: Any, answered: Any
) -> None:
    # Found by the fuzz test: the reply echoed a float id (ids are strings
    # or integers).
    body = {"jsonrpc": "2.0", "id": sent, "result": {}}
    response = post(client, body, {"MCP-Protocol-Version": VERSION})
    assert response.status_code == 400
    assert response.json()["error"]["code"] == -32600
    assert response.json()["id"] == answered


@override_settings(FRISIAN_MCP={})
def test_modern_requests_authenticate_like_any_other(client: Client) -> None:
    response = post(client, call("contacts__create", {"email": "ada@example.com"}))
    assert response.status_code == 401
    assert not Contact.objects.exists()


# -- the handshake era beside it ----------------------------------------------


def test_initialize_still_selects_the_handshake_era(client: Client) -> None:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
    response = client.post(
        reverse("frisian_mcp:endpoint"),
        data=json.dumps(body),
        content_type="application/json",
        headers={"Accept": "application/json, text/event-stream"},
    )
    result = response.json()["result"]
    assert result["protocolVersion"] == "2025-11-25"
    assert "resultType" not in result


# -- the test client -------------------------------------------------------------


def test_mcp_test_client_speaks_the_modern_revision(client: Client) -> None:
    mcp = MCPTestClient(client, protocol_version=VERSION)
    discovered = mcp.initialize()
    assert VERSION in discovered["supportedVersions"]
    names = {tool["name"] for tool in mcp.list_tools()}
    assert "contacts__create" in names
    result = mcp.call_tool("contacts__create", {"email": "ada@example.com"})
    assert result["isError"] is False
    assert result["resultType"] == "complete"
    with pytest.raises(MCPError) as info:
        mcp.call_tool("contacts__create", {"data": {"email": "bob@example.com"}})
    assert info.value.data["code"] == "nested_wrapper"
    assert Contact.objects.count() == 1


def test_mcp_test_client_encodes_names_that_are_not_plain_ascii(client: Client) -> None:
    # The Base64 sentinel round trip: the header matches, so the call gets
    # as far as the registry, which knows no such tool.
    mcp = MCPTestClient(client, protocol_version=VERSION)
    with pytest.raises(MCPError) as info:
        mcp.call_tool("kontakte__erstellen_ü", {})
    assert info.value.code == -32602
    assert info.value.data["code"] == "unknown_tool"
