"""JSON-RPC envelopes and the MCP methods, through the real HTTP path."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.conf import settings
from django.test import Client, override_settings
from django.urls import reverse

from frisian_mcp import __version__
from frisian_mcp.contrib.testing import MCPError, MCPTestClient

pytestmark = pytest.mark.django_db


def raw(client: Client, body: Any, **headers: str) -> Any:
    headers.setdefault("Accept", "application/json, text/event-stream")
    data = body if isinstance(body, str | bytes) else json.dumps(body)
    return client.post(
        reverse("frisian_mcp:endpoint"),
        data=data,
        content_type="application/json",
        headers=headers,
    )


def initialize_params(version: str = "2025-11-25") -> dict[str, Any]:
    return {
        "protocolVersion": version,
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    }


# -- initialize and version negotiation ---------------------------------------


@pytest.mark.parametrize("version", ["2025-03-26", "2025-06-18", "2025-11-25"])
def test_initialize_echoes_a_supported_version(client: Client, version: str) -> None:
    body = raw(
        client,
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": initialize_params(version),
        },
    ).json()
    result = body["result"]
    assert result["protocolVersion"] == version
    # The test settings install apps that declare prompts (tests/testapp,
    # the demo): a host without any serves no prompts (test_prompts.py).
    assert result["capabilities"] == {
        "tools": {"listChanged": False},
        "resources": {},
        "completions": {},
        "prompts": {},
        "logging": {},
    }
    assert result["serverInfo"] == {"name": "frisian-mcp", "version": __version__}


def test_initialize_offers_latest_version_for_unknown_one(client: Client) -> None:
    body = raw(
        client,
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": initialize_params("2024-01-01"),
        },
    ).json()
    assert body["result"]["protocolVersion"] == "2025-11-25"


@override_settings(
    FRISIAN_MCP={
        "REQUIRE_AUTHENTICATION": False,
        "SERVER_TITLE": "Acme",
        "SERVER_INSTRUCTIONS": "Be careful.",
    }
)
def test_initialize_carries_title_and_instructions(client: Client) -> None:
    result = raw(
        client,
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": initialize_params(),
        },
    ).json()["result"]
    assert result["serverInfo"]["title"] == "Acme"
    assert result["instructions"] == "Be careful."


def test_initialize_without_protocol_version_is_invalid_params(client: Client) -> None:
    body = raw(
        client, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}
    ).json()
    assert body["error"]["code"] == -32602


def test_unsupported_protocol_version_header_is_400(client: Client) -> None:
    response = raw(
        client,
        {"jsonrpc": "2.0", "id": 4, "method": "ping"},
        **{"MCP-Protocol-Version": "1999-01-01"},
    )
    assert response.status_code == 400
    body = response.json()
    assert body["id"] == 4
    assert body["error"]["data"]["supported"] == [
        "2025-03-26",
        "2025-06-18",
        "2025-11-25",
        "2026-07-28",
    ]


# -- envelopes ----------------------------------------------------------------


def test_malformed_json_is_parse_error_with_json_body(client: Client) -> None:
    response = raw(client, '{"jsonrpc": "2.0", "id": 1, "method": ')
    assert response.status_code == 400
    assert response["Content-Type"] == "application/json"
    assert response.json() == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {
            "code": -32700,
            "message": "Parse error: the request body is not valid JSON.",
        },
    }


def test_invalid_utf8_is_parse_error(client: Client) -> None:
    response = raw(client, b'{"jsonrpc": "2.0", "id": 1, "method": "ping\xff"}')
    assert response.json()["error"]["code"] == -32700


@pytest.mark.parametrize(
    ("body", "echoed_id"),
    [
        ("42", None),
        ('"text"', None),
        ({"id": 1, "method": "ping"}, 1),
        ({"jsonrpc": "1.0", "id": 1, "method": "ping"}, 1),
        ({"jsonrpc": "2.0", "id": 1}, 1),
        ({"jsonrpc": "2.0", "id": 1, "method": 5}, 1),
        ({"jsonrpc": "2.0", "id": None, "method": "ping"}, None),
        ({"jsonrpc": "2.0", "id": 1.5, "method": "ping"}, None),
        ({"jsonrpc": "2.0", "id": True, "method": "ping"}, None),
        ({"jsonrpc": "2.0", "id": [1], "method": "ping"}, None),
    ],
)
def test_invalid_envelope_is_invalid_request(
    client: Client, body: Any, echoed_id: Any
) -> None:
    response = raw(client, body)
    assert response.status_code == 400
    payload = response.json()
    assert payload["error"]["code"] == -32600
    assert payload["id"] == echoed_id


def test_params_must_be_an_object(client: Client) -> None:
    body = raw(
        client, {"jsonrpc": "2.0", "id": 3, "method": "ping", "params": [1, 2]}
    ).json()
    assert body == {
        "jsonrpc": "2.0",
        "id": 3,
        "error": {
            "code": -32602,
            "message": "Invalid params: params must be an object.",
        },
    }


def test_unknown_method_is_method_not_found(client: Client) -> None:
    response = raw(
        client, {"jsonrpc": "2.0", "id": "a", "method": "resources/subscribe"}
    )
    assert response.status_code == 200
    assert response.json()["error"]["code"] == -32601
    assert response.json()["id"] == "a"


def test_unknown_method_name_is_not_echoed_when_odd(client: Client) -> None:
    body = raw(
        client, {"jsonrpc": "2.0", "id": 1, "method": "<script>alert(1)</script>"}
    ).json()
    assert body["error"]["code"] == -32601
    assert "script" not in body["error"]["message"]


def test_ping_returns_empty_result(client: Client) -> None:
    assert raw(client, {"jsonrpc": "2.0", "id": 1, "method": "ping"}).json() == {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {},
    }


def test_string_ids_are_echoed(client: Client) -> None:
    assert (
        raw(client, {"jsonrpc": "2.0", "id": "req-7", "method": "ping"}).json()["id"]
        == "req-7"
    )


def test_cancelled_notification_is_accepted(client: Client) -> None:
    response = raw(
        client,
        {
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": {"requestId": 1},
        },
    )
    assert response.status_code == 202


def test_notification_with_id_is_invalid(client: Client) -> None:
    response = raw(
        client, {"jsonrpc": "2.0", "id": 5, "method": "notifications/initialized"}
    )
    assert response.status_code == 400


# -- batches ----------------------------------------------------------------


def test_batch_is_rejected_for_newer_versions(client: Client) -> None:
    batch = [{"jsonrpc": "2.0", "id": 1, "method": "ping"}]
    response = raw(client, batch, **{"MCP-Protocol-Version": "2025-06-18"})
    assert response.status_code == 400
    assert response.json()["error"]["code"] == -32600


def test_batch_is_served_for_2025_03_26(client: Client) -> None:
    batch = [
        {"jsonrpc": "2.0", "id": 1, "method": "ping"},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "nope"},
    ]
    response = raw(client, batch, **{"MCP-Protocol-Version": "2025-03-26"})
    assert response.status_code == 200
    assert response.json() == [
        {"jsonrpc": "2.0", "id": 1, "result": {}},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "error": {"code": -32601, "message": "Method not found: nope."},
        },
    ]


def test_batch_of_notifications_only_is_202(client: Client) -> None:
    batch = [{"jsonrpc": "2.0", "method": "notifications/initialized"}]
    assert (
        raw(client, batch, **{"MCP-Protocol-Version": "2025-03-26"}).status_code == 202
    )


def test_batch_must_not_contain_initialize(client: Client) -> None:
    batch = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": initialize_params("2025-03-26"),
        }
    ]
    response = raw(client, batch, **{"MCP-Protocol-Version": "2025-03-26"})
    assert response.status_code == 400


def test_empty_batch_is_invalid(client: Client) -> None:
    assert raw(client, [], **{"MCP-Protocol-Version": "2025-03-26"}).status_code == 400


@pytest.mark.django_db
@override_settings(
    FRISIAN_MCP={"REQUIRE_AUTHENTICATION": False, "MAX_BATCH_MESSAGES": 3}
)
@pytest.mark.parametrize(("size", "runs"), [(3, True), (4, False)])
def test_batch_over_the_cap_runs_nothing(client: Client, size: int, runs: bool) -> None:
    from demo_project.contacts.models import Contact

    batch = [
        {
            "jsonrpc": "2.0",
            "id": i,
            "method": "tools/call",
            "params": {
                "name": "contacts__create",
                "arguments": {"email": f"b{i}@example.com"},
            },
        }
        for i in range(size)
    ]
    response = raw(client, batch, **{"MCP-Protocol-Version": "2025-03-26"})
    if runs:
        assert response.status_code == 200
        assert Contact.objects.count() == size
        return
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == -32600
    assert "at most 3 messages" in error["message"]
    assert not Contact.objects.exists()


# -- tools/list ---------------------------------------------------------------


def test_tools_list_is_sorted_and_complete(mcp: MCPTestClient) -> None:
    names = [tool["name"] for tool in mcp.list_tools()]
    assert names == sorted(names)
    assert {
        "contacts__list",
        "contacts__retrieve",
        "contacts__create",
        "contacts__update",
        "contacts__partial_update",
        "contacts__destroy",
    } <= set(names)


@override_settings(
    FRISIAN_MCP={"REQUIRE_AUTHENTICATION": False, "TOOLS_LIST_PAGE_SIZE": 7}
)
def test_tools_list_pages_with_opaque_cursor(mcp: MCPTestClient) -> None:
    first = mcp.request("tools/list", {})
    assert len(first["tools"]) == 7
    assert isinstance(first["nextCursor"], str)
    everything = mcp.list_tools()
    assert [t["name"] for t in everything[:7]] == [t["name"] for t in first["tools"]]
    assert len({t["name"] for t in everything}) == len(everything)
    last = mcp.request("tools/list", {"cursor": _cursor_before_end(mcp)})
    assert "nextCursor" not in last


def _cursor_before_end(mcp: MCPTestClient) -> str:
    params: dict[str, Any] = {}
    cursor = ""
    while True:
        result = mcp.request("tools/list", params)
        if "nextCursor" not in result:
            return cursor
        cursor = result["nextCursor"]
        params = {"cursor": cursor}


@pytest.mark.parametrize("cursor", ["garbage", "eyJvIjogMX0", 5])
def test_invalid_cursor_is_invalid_params(mcp: MCPTestClient, cursor: Any) -> None:
    with pytest.raises(MCPError) as info:
        mcp.request("tools/list", {"cursor": cursor})
    assert info.value.code == -32602


def test_tools_list_is_byte_identical_between_calls(client: Client) -> None:
    request = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    first = raw(client, request, **{"MCP-Protocol-Version": "2025-11-25"}).content
    from frisian_mcp.registry import reset_registry

    reset_registry()
    second = raw(client, request, **{"MCP-Protocol-Version": "2025-11-25"}).content
    assert first == second


def test_2025_03_26_clients_get_no_newer_fields(client: Client) -> None:
    mcp = MCPTestClient(client, protocol_version="2025-03-26")
    mcp.initialize()
    tool = mcp.list_tools()[0]
    assert "title" not in tool
    assert "outputSchema" not in tool


# -- tools/call ---------------------------------------------------------------


def test_unknown_tool_is_invalid_params_with_suggestions(mcp: MCPTestClient) -> None:
    with pytest.raises(MCPError) as info:
        mcp.call_tool("contacts__creat", {})
    error = info.value
    assert error.code == -32602
    assert error.data["code"] == "unknown_tool"
    assert error.data["tool"] is None
    assert "contacts__create" in error.data["suggestions"]
    assert "contacts__creat " not in error.message


@override_settings(
    ROOT_URLCONF="tests.urls_parity",
    REST_FRAMEWORK={
        **settings.REST_FRAMEWORK,
        "DEFAULT_PERMISSION_CLASSES": [
            "rest_framework.permissions.DjangoModelPermissions"
        ],
    },
    FRISIAN_MCP={
        "REQUIRE_AUTHENTICATION": True,
        "AUTHENTICATION_CLASSES": ["rest_framework.authentication.TokenAuthentication"],
    },
)
def test_no_destructive_suggestion_on_another_resource(demo_data: None) -> None:
    from demo_project.management.commands.seed_demo import DEMO_TOKEN, STAFF_TOKEN

    demo = MCPTestClient(headers={"Authorization": f"Token {DEMO_TOKEN}"})
    demo.initialize()
    with pytest.raises(MCPError) as info:
        demo.call_tool("dcim__sites__destroy", {"id": 1})  # demo may not
    suggested = info.value.data["suggestions"]
    assert not [name for name in suggested if name.endswith("__destroy")]
    staff = MCPTestClient(headers={"Authorization": f"Token {STAFF_TOKEN}"})
    staff.initialize()
    with pytest.raises(MCPError) as info:
        staff.call_tool("dcim__sites__destory", {"id": 1})
    assert info.value.data["suggestions"][0] == "dcim__sites__destroy"


def test_unknown_tool_name_is_never_echoed(mcp: MCPTestClient) -> None:
    with pytest.raises(MCPError) as info:
        mcp.call_tool("SENTINEL-7f3a9", {})
    assert "SENTINEL-7f3a9" not in info.value.response.content.decode()


@pytest.mark.parametrize("params", [{}, {"name": ""}, {"name": 5}])
def test_tools_call_needs_a_name(mcp: MCPTestClient, params: dict[str, Any]) -> None:
    with pytest.raises(MCPError) as info:
        mcp.request("tools/call", params)
    assert info.value.code == -32602


def test_arguments_must_be_an_object(mcp: MCPTestClient) -> None:
    with pytest.raises(MCPError) as info:
        mcp.request("tools/call", {"name": "contacts__create", "arguments": ["a"]})
    assert info.value.code == -32602
    assert info.value.data["tool"] == "contacts__create"


def test_unexpected_exception_is_internal_error_without_internals(
    mcp: MCPTestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    from frisian_mcp import invocation

    def explode(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("SECRET-internal-detail /etc/passwd")

    monkeypatch.setattr(invocation, "run", explode)
    response = mcp.post(
        {
            "jsonrpc": "2.0",
            "id": 11,
            "method": "tools/call",
            "params": {"name": "contacts__list", "arguments": {}},
        }
    )
    assert response.status_code == 500
    body = json.loads(response.content)
    assert body["id"] == 11
    assert body["error"]["code"] == -32603
    assert body["error"]["data"]["code"] == "internal_error"
    assert len(body["error"]["data"]["correlation_id"]) == 16
    assert "SECRET" not in response.content.decode()
    assert "Traceback" not in response.content.decode()


@pytest.mark.parametrize("method", ["tööls/list", "tools/list\u0661", "x" * 65])
def test_unknown_method_names_that_are_not_plain_are_not_echoed(
    client: Client, method: str
) -> None:
    response = raw(client, {"jsonrpc": "2.0", "id": 1, "method": method})
    assert response.json()["error"] == {
        "code": -32601,
        "message": "Method not found: <method>.",
    }


# -- the reply's bytes ---------------------------------------------------------


@pytest.mark.parametrize("version", ["2025-03-26", "2025-11-25", "2026-07-28"])
def test_a_tool_result_is_the_compact_json_of_its_envelope(version: str) -> None:
    """The structure is encoded once and written twice: the bytes are those
    of ``json.dumps`` of the whole answer, text block and structure alike."""
    mcp = MCPTestClient(protocol_version=version)
    mcp.initialize()
    made = mcp.call_tool(
        "contacts__create", {"first_name": 'Zoë "\u2028x', "email": "z@example.com"}
    )
    assert made["isError"] is False
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": 7, "method": "tools/call"}
    message["params"] = {"name": "contacts__list", "arguments": {"page_size": 1}}
    if mcp.modern:
        message["params"]["_meta"] = {
            "io.modelcontextprotocol/protocolVersion": version,
            "io.modelcontextprotocol/clientCapabilities": {},
        }
    headers = {"Mcp-Method": "tools/call", "Mcp-Name": "contacts__list"}
    response = mcp.post(message, headers=headers if mcp.modern else None)
    text = response.content.decode()
    answer = json.loads(text)
    result = answer["result"]
    assert text == json.dumps(answer, ensure_ascii=False, separators=(",", ":"))
    assert json.loads(result["content"][0]["text"])["results"][0]["first_name"] == (
        'Zoë "\u2028x'
    )
    if version != "2025-03-26":
        assert json.loads(result["content"][0]["text"]) == result["structuredContent"]
    else:
        assert "structuredContent" not in result
