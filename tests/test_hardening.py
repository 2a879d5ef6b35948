"""Hostile input at the endpoint: depth, throttles, failures, logs (DESIGN.md §9)."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client, override_settings
from rest_framework.throttling import AnonRateThrottle

from demo_project.contacts.models import Contact
from demo_project.contacts.views import ContactViewSet
from frisian_mcp.contrib.testing import MCPTestClient, tool_error

pytestmark = pytest.mark.django_db

HEADERS = {"Accept": "application/json, text/event-stream"}


def post_raw(client: Client, payload: bytes | str) -> Any:
    return client.post(
        "/mcp", data=payload, content_type="application/json", headers=HEADERS
    )


def call(name: str, arguments: Any) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }


# --- nesting depth --------------------------------------------------------


def nested(depth: int) -> Any:
    value: Any = "x"
    for _ in range(depth):
        value = {"a": value}
    return value


@pytest.mark.parametrize("depth", [40, 5_000, 150_000])
def test_bodies_nested_too_deep_are_refused_before_parsing(
    client: Client, depth: int
) -> None:
    body = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"contacts__create","arguments":{"notes":'
    body += '{"a":' * depth + "1" + "}" * depth + "}}}"
    response = post_raw(client, body)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == -32600
    assert "32 levels" in error["message"]
    assert not Contact.objects.exists()


def test_brackets_inside_strings_do_not_count(client: Client) -> None:
    notes = "[{" * 100 + '"\\" ]]' + "}]" * 100
    response = post_raw(
        client,
        json.dumps(
            call("contacts__create", {"email": "a@example.com", "notes": notes})
        ),
    )
    assert response.status_code == 200
    assert response.json()["result"]["isError"] is False
    assert Contact.objects.get().notes == notes


@pytest.mark.parametrize("levels", [28, 29])
def test_nesting_within_the_limit_reaches_the_tool(client: Client, levels: int) -> None:
    # 3 envelope levels + 29 more are exactly 32, the limit; the guard
    # answers -32602.
    response = post_raw(
        client,
        json.dumps(
            call("contacts__create", {"email": "a@example.com", "x": nested(levels)})
        ),
    )
    assert response.status_code == 200
    assert response.json()["error"]["code"] == -32602
    assert not Contact.objects.exists()


@override_settings(FRISIAN_MCP={"REQUIRE_AUTHENTICATION": False, "MAX_JSON_DEPTH": 4})
def test_depth_limit_is_a_setting(client: Client) -> None:
    response = post_raw(client, json.dumps(call("contacts__create", {"x": {"y": [1]}})))
    assert response.status_code == 400
    assert "4 levels" in response.json()["error"]["message"]


# --- query length ---------------------------------------------------------


@pytest.mark.parametrize(("length", "refused"), [(93, False), (94, True)])
@override_settings(
    FRISIAN_MCP={"REQUIRE_AUTHENTICATION": False, "MAX_QUERY_LENGTH": 100}
)
def test_query_length_limit(client: Client, length: int, refused: bool) -> None:
    # "search=" and 93 characters are exactly 100.
    Contact.objects.create(email="a@example.com")
    search = "ZQX" + "a" * (length - 3)
    response = post_raw(
        client, json.dumps(call("contacts__list", {"filters": {"search": search}}))
    )
    assert response.status_code == 200
    reply = response.json()
    if not refused:
        assert reply["result"]["isError"] is False, reply
        assert json.loads(reply["result"]["content"][0]["text"])["count"] == 0
        return
    error = reply["error"]
    assert error["code"] == -32602
    assert error["data"]["code"] == "invalid_argument"
    assert error["data"]["fields"][0]["field"] == "filters.search"
    assert error["data"]["fields"][0]["code"] == "max_length"
    assert "100 characters" in error["message"]
    assert "ZQX" not in response.content.decode()


@override_settings(
    FRISIAN_MCP={"REQUIRE_AUTHENTICATION": False, "MAX_QUERY_LENGTH": 60}
)
def test_query_length_names_the_longest_of_several_filters(client: Client) -> None:
    filters = {"search": "a" * 20, "email": "b" * 30 + "@example.com"}
    response = post_raw(
        client, json.dumps(call("contacts__list", {"filters": filters}))
    )
    assert response.json()["error"]["data"]["fields"][0]["field"] == "filters.email"


# --- throttles ------------------------------------------------------------


class TwoPerMinute(AnonRateThrottle):
    rate = "2/min"


@pytest.fixture
def throttled(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(ContactViewSet, "throttle_classes", [TwoPerMinute])
    cache.clear()
    yield
    cache.clear()


def test_throttled_call_is_an_error_result_with_retry_after(
    mcp: MCPTestClient, throttled: None
) -> None:
    for n in range(2):
        result = mcp.call_tool("contacts__create", {"email": f"a{n}@example.com"})
        assert result["isError"] is False
    result = mcp.call_tool("contacts__create", {"email": "late@example.com"})
    assert result["isError"] is True
    error = tool_error(result)
    assert error["code"] == "throttled"
    assert 0 < error["retry_after"] <= 60
    assert "Retry after" in error["hint"]
    assert Contact.objects.count() == 2
    assert not Contact.objects.filter(email="late@example.com").exists()


def test_rest_and_mcp_share_the_throttle(
    client: Client, mcp: MCPTestClient, throttled: None
) -> None:
    assert client.get("/api/contacts/").status_code == 200
    assert client.get("/api/contacts/").status_code == 200
    result = mcp.call_tool("contacts__list", {})
    assert tool_error(result)["code"] == "throttled"


def test_listing_tools_counts_no_throttle(mcp: MCPTestClient, throttled: None) -> None:
    for _ in range(5):
        assert any(t["name"] == "contacts__create" for t in mcp.list_tools())
    assert (
        mcp.call_tool("contacts__create", {"email": "a@example.com"})["isError"]
        is False
    )


# --- unexpected failures --------------------------------------------------


class BrokenAuthentication:
    def authenticate(self, request: Any) -> Any:
        raise RuntimeError("secret-setting-value /etc/passwd SELECT 1")

    def authenticate_header(self, request: Any) -> str:
        return "Broken"


@pytest.mark.parametrize("debug", [False, True])
def test_failures_outside_a_call_are_json_rpc_internal_errors(
    client: Client, caplog: pytest.LogCaptureFixture, debug: bool
) -> None:
    options = {
        "REQUIRE_AUTHENTICATION": False,
        "AUTHENTICATION_CLASSES": ["tests.test_hardening.BrokenAuthentication"],
    }
    with (
        override_settings(DEBUG=debug, FRISIAN_MCP=options),
        caplog.at_level(logging.ERROR, logger="frisian_mcp"),
    ):
        response = post_raw(client, json.dumps(call("contacts__list", {})))
    assert response.status_code == 500
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert body["error"]["code"] == -32603
    correlation = body["error"]["data"]["correlation_id"]
    assert correlation in body["error"]["message"]
    text = response.content.decode()
    for leak in ("secret-setting-value", "Traceback", "SELECT", "RuntimeError"):
        assert leak not in text
    logged = [r for r in caplog.records if correlation in r.getMessage()]
    assert logged
    assert logged[0].exc_info is not None


@pytest.mark.parametrize("debug", [False, True])
def test_failures_inside_a_call_never_leak_details(
    mcp: MCPTestClient,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    debug: bool,
) -> None:
    def explode(self: Any, serializer: Any) -> None:
        raise RuntimeError("INSERT INTO secret VALUES ('hunter2')")

    monkeypatch.setattr(ContactViewSet, "perform_create", explode)
    with override_settings(DEBUG=debug), caplog.at_level(logging.ERROR):
        response = mcp.post(call("contacts__create", {"email": "a@example.com"}))
    assert response.status_code == 500
    body = json.loads(response.content)
    assert body["error"]["code"] == -32603
    correlation = body["error"]["data"]["correlation_id"]
    text = response.content.decode()
    for leak in ("hunter2", "INSERT", "Traceback", "a@example.com"):
        assert leak not in text
    assert any(correlation in r.getMessage() and r.exc_info for r in caplog.records)
    assert not Contact.objects.exists()


def test_bodies_that_are_not_utf8_are_parse_errors(client: Client) -> None:
    body = json.dumps(call("contacts__create", {"email": "a@example.com"}))
    raw_surrogate = body.replace("a@example", "a\\u0000@example").encode()
    raw_surrogate = raw_surrogate.replace(b"\\u0000", b"\xed\xa0\x80")
    for payload in (body.encode("utf-16"), raw_surrogate):
        response = post_raw(client, payload)
        assert response.status_code == 400
        assert response.json()["error"]["code"] == -32700
    assert not Contact.objects.exists()


def test_a_body_both_too_deep_and_not_text_is_a_parse_error(client: Client) -> None:
    # Found by the fuzz test: a lone surrogate escape makes the body no
    # Unicode text, which is decided before its depth is looked at.
    arguments = {"email": "a@example.com", "x": nested(40), "notes": "\ud800"}
    response = post_raw(client, json.dumps(call("contacts__create", arguments)))
    assert response.status_code == 400
    assert response.json()["error"]["code"] == -32700
    assert not Contact.objects.exists()


def test_what_django_finds_suspicious_is_a_400(client: Client) -> None:
    # More query fields than DATA_UPLOAD_MAX_NUMBER_FIELDS: Django raises
    # TooManyFieldsSent, a SuspiciousOperation, when they are read.
    query = "&".join(f"f{n}=1" for n in range(1_100))
    response = client.post(
        f"/mcp?{query}",
        data=json.dumps(call("contacts__list", {})),
        content_type="application/json",
        headers=HEADERS,
    )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == -32600


# --- bodies that read differently to different parsers ----------------------

CREATE = (
    '"method":"tools/call","params":{"name":"contacts__create",'
    '"arguments":{"email":"dup@example.com"}}'
)


@pytest.mark.parametrize(
    ("body", "path", "request_id"),
    [
        # A proxy keeping the first "method" would see a ping.
        ('{"jsonrpc":"2.0","id":5,"method":"ping",' + CREATE + "}", "method", 5),
        (
            '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":'
            '"contacts__create","arguments":{"email":"SECRET-a@example.com",'
            '"email":"SECRET-b@example.com"}}}',
            "params.arguments.email",
            5,
        ),
        # The id itself is in doubt: the reply carries none.
        ('{"jsonrpc":"2.0","id":5,"id":6,' + CREATE + "}", "id", None),
        (
            '{"jsonrpc":"2.0","id":5,' + CREATE[:-2] + ',"tags":[{"a":1,"a":2}]}}}',
            "params.arguments.tags[0].a",
            5,
        ),
    ],
)
def test_duplicate_keys_are_refused_by_path(
    client: Client, body: str, path: str, request_id: Any
) -> None:
    response = post_raw(client, body)
    assert response.status_code == 400
    reply = response.json()
    assert reply["id"] == request_id
    assert reply["error"]["code"] == -32600
    assert f"the key {path} appears more than once" in reply["error"]["message"]
    assert "SECRET" not in response.content.decode()
    assert not Contact.objects.exists()


def test_a_lone_surrogate_is_named_and_the_id_kept(client: Client) -> None:
    body = json.dumps(call("contacts__create", {"email": "a@example.com"}))
    body = body.replace('"id": 1', '"id": 7').replace("a@example", "a\\ud800@example")
    response = post_raw(client, body)
    assert response.status_code == 400
    reply = response.json()
    assert reply["id"] == 7
    assert reply["error"]["code"] == -32700
    assert "lone UTF-16 surrogate" in reply["error"]["message"]
    assert not Contact.objects.exists()
