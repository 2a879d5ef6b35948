"""The audit trail (issue 22 item 2): one value-free record per request.

A session runs through the endpoint (unauthenticated, refused, initialize,
create, list, a delete confirmed with its token); each record is checked
field by field, and no value the session sent appears in any log output.
"""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import override_settings
from rest_framework.authtoken.models import Token

from demo_project.contacts.models import Contact
from frisian_mcp.contrib.testing import MCPTestClient, tool_error
from tests.testapp.models import Shelf

pytestmark = pytest.mark.django_db(transaction=True)

SETTINGS = {
    "REQUIRE_AUTHENTICATION": True,
    "AUTHENTICATION_CLASSES": ["rest_framework.authentication.TokenAuthentication"],
    "CALL_HOOKS": ["frisian_mcp.contrib.confirm.hooks.ConfirmationHook"],
    "CONFIRM": ["destroy"],
}


@pytest.fixture
def audit_log(audit_stream: io.StringIO) -> Iterator[io.StringIO]:
    """The audit logger's output (tests/conftest.py), under :data:`SETTINGS`."""
    with override_settings(FRISIAN_MCP=SETTINGS):
        yield audit_stream


def _records(stream: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stream.getvalue().splitlines()]


def test_a_session_leaves_one_record_per_request_and_no_value(
    audit_log: io.StringIO, caplog: pytest.LogCaptureFixture
) -> None:
    user = User.objects.create_user("auditor", password="pw")
    key = Token.objects.create(user=user).key
    email, name = "zqx-audit@example.com", "Quimbyzqx"
    sent = [email, name, key, "wrong-zqx-secret"]
    caplog.set_level(logging.DEBUG)

    MCPTestClient().post({"jsonrpc": "2.0", "id": 1, "method": "ping"})
    refused = MCPTestClient(headers={"Authorization": "Token wrong-zqx-secret"})
    refused.post({"jsonrpc": "2.0", "id": 2, "method": "ping"})
    foreign = MCPTestClient(headers={"Origin": "https://evil.example"})
    foreign.post({"jsonrpc": "2.0", "id": 3, "method": "ping"})
    mcp = MCPTestClient(headers={"Authorization": f"Token {key}"})
    mcp.initialize()  # initialize, then notifications/initialized
    created = mcp.call_tool("contacts__create", {"email": email, "first_name": name})
    contact = created["structuredContent"]["id"]
    sent.append(contact)
    mcp.call_tool("contacts__list", {"filters": {"search": name}})
    asked = mcp.call_tool("contacts__destroy", {"id": contact})
    token = tool_error(asked)["confirm"]
    sent.append(token)
    mcp.call_tool("contacts__destroy", {"id": contact, "confirm": token})
    assert not Contact.objects.exists()

    records = _records(audit_log)
    assert len(records) == 9
    first, bad, origin, init, note, create, listing, ask, delete = records
    for record in records:
        assert record["logger"] == "frisian_mcp.audit"
        assert record["transport"] == "http"
        assert record["duration_ms"] >= 0
        assert record["time"].endswith("+00:00")
    for record in (first, bad, origin):
        assert record["user_id"] is None
        assert record["username"] is None
        assert record["method"] is None
        assert (record["rows_created"], record["rows_deleted"]) == (0, 0)
    assert (first["outcome"], first["status"], first["auth_scheme"]) == (
        "not_authenticated",
        401,
        None,
    )
    assert (bad["outcome"], bad["status"], bad["auth_scheme"]) == (
        "not_authenticated",
        401,
        "Token",
    )
    assert (origin["outcome"], origin["status"]) == ("forbidden", 403)
    for record in records[3:]:
        assert record["user_id"] == user.pk
        assert record["username"] == "auditor"
        assert record["auth"] == "TokenAuthentication"
    assert init["method"] == "initialize"
    assert init["client_name"] == "frisian_mcp.testing"
    assert init["client_version"] == "1"
    assert init["protocol_version"] == "2025-11-25"
    assert init["request_id"] == 1
    assert (note["method"], note["status"]) == ("notifications/initialized", 202)
    # The handshake era carries clientInfo on initialize only (stateless).
    assert create["client_name"] is None
    assert create["protocol_version"] == "2025-11-25"
    assert (create["method"], create["tool"], create["outcome"]) == (
        "tools/call",
        "contacts__create",
        "ok",
    )
    assert (create["rows_created"], create["rows_updated"]) == (1, 0)
    assert (listing["tool"], listing["outcome"], listing["rows_created"]) == (
        "contacts__list",
        "ok",
        0,
    )
    assert (ask["tool"], ask["outcome"], ask["rows_deleted"]) == (
        "contacts__destroy",
        "confirmation_required",
        0,
    )
    assert (delete["outcome"], delete["rows_deleted"]) == ("ok", 1)

    everything = audit_log.getvalue() + caplog.text
    for value in sent:
        assert value not in everything
    assert "zqx" not in everything


def test_argument_errors_and_unknown_tools_name_their_code_only(
    audit_log: io.StringIO,
) -> None:
    user = User.objects.create_user("agent", password="pw")
    mcp = MCPTestClient(
        headers={"Authorization": f"Token {Token.objects.create(user=user).key}"}
    )
    mcp.post(
        {
            "jsonrpc": "2.0",
            "id": "call-7",
            "method": "tools/call",
            "params": {
                "name": "contacts__create",
                "arguments": {"data": {"email": "zqx@example.com"}},
            },
        }
    )
    mcp.post(
        {
            "jsonrpc": "2.0",
            "id": "zqx secret id \n",
            "method": "tools/call",
            "params": {"name": "x\n[fake] zqx", "arguments": {}},
        }
    )
    wrapped, unknown = _records(audit_log)
    assert (wrapped["outcome"], wrapped["request_id"]) == ("nested_wrapper", "call-7")
    assert wrapped["tool"] == "contacts__create"
    assert (unknown["outcome"], unknown["tool"]) == ("unknown_tool", None)
    assert unknown["request_id"] is None
    assert "zqx" not in audit_log.getvalue()
    assert not Contact.objects.exists()


def test_rows_rolled_back_count_nothing(audit_log: io.StringIO) -> None:
    """The first item is inserted, the second collides: all is rolled back."""
    user = User.objects.create_user("agent", password="pw")
    key = Token.objects.create(user=user).key
    mcp = MCPTestClient(headers={"Authorization": f"Token {key}"})
    twins = [{"room": "north", "number": 1}, {"room": "north", "number": 1}]
    mcp.protocol_version = "2025-11-25"  # no initialize: no records for it
    result = mcp.call_tool("testapp__shelves__create", {"objects": twins})
    assert tool_error(result)["code"] == "conflict"
    single = mcp.call_tool("testapp__shelves__create", {"room": "south", "number": 2})
    assert single["isError"] is False
    refused, created = _records(audit_log)
    assert (refused["outcome"], refused["rows_created"]) == ("conflict", 0)
    assert (created["outcome"], created["rows_created"]) == ("ok", 1)
    assert Shelf.objects.count() == 1
