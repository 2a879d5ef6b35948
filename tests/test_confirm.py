"""Confirmation before destructive tools (issue 22 item 1), through the wire.

frisian_mcp.contrib.confirm is installed, so its hook is on; CONFIRM names the
tools per test (CALL_HOOKS lists the hook too, which changes nothing). Every
refusal checks its code and that no row was written or removed.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client, override_settings
from jsonschema import Draft202012Validator

from demo_project.contacts.models import Contact
from demo_project.dcim.models import Device, Site, Tag
from frisian_mcp import tokens
from frisian_mcp.contrib.testing import MCPError, MCPTestClient, tool_error
from tests.extras import without
from tests.testapp.models import Book, Publisher, Shelf, ShelfLabel

HOOK = "frisian_mcp.contrib.confirm.hooks.ConfirmationHook"
pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _confirm_destroy() -> Iterator[None]:
    settings = {
        "REQUIRE_AUTHENTICATION": False,
        "CALL_HOOKS": [HOOK],
        "CONFIRM": ["destroy"],
    }
    with override_settings(FRISIAN_MCP=settings):
        yield


def _error(result: dict[str, Any]) -> dict[str, Any]:
    assert result["isError"] is True
    error: dict[str, Any] = tool_error(result)
    assert json.loads(result["content"][0]["text"]) == {"error": error}
    return error


def _contact(**fields: Any) -> Contact:
    return Contact.objects.create(
        **{"first_name": "Ada", "last_name": "Byron", **fields}
    )


def _login(name: str) -> MCPTestClient:
    client = Client()
    client.force_login(User.objects.create_user(name, password="pw"))
    mcp = MCPTestClient(client)
    mcp.initialize()
    return mcp


def test_listing_declares_confirm_and_says_so(mcp: MCPTestClient) -> None:
    tools = {t["name"]: t for t in mcp.list_tools()}
    destroy = tools["contacts__destroy"]
    properties = destroy["inputSchema"]["properties"]
    assert properties["confirm"]["type"] == "string"
    assert properties["mode"]["enum"] == ["execute", "validate"]
    assert "confirmation" in destroy["description"]
    assert destroy["annotations"]["destructiveHint"] is True
    for name in ("contacts__create", "contacts__partial_update", "contacts__list"):
        assert "confirm" not in tools[name]["inputSchema"]["properties"]
        assert "confirmation" not in tools[name]["description"]


def test_unconfirmed_delete_writes_nothing_and_returns_a_token(
    mcp: MCPTestClient,
) -> None:
    contact = _contact()
    error = _error(mcp.call_tool("contacts__destroy", {"id": str(contact.pk)}))
    assert error["code"] == "confirmation_required"
    assert error["recoverable"] is True
    assert isinstance(error["confirm"], str)
    summary = error["summary"]
    assert summary["action"] == "delete"
    assert summary["record"] == "Ada Byron"
    assert summary["message"].startswith("Delete contact «Ada Byron»")
    assert Contact.objects.filter(pk=contact.pk).exists()

    done = mcp.call_tool(
        "contacts__destroy", {"id": str(contact.pk), "confirm": error["confirm"]}
    )
    assert done["isError"] is False
    assert done["structuredContent"] == {"deleted": True}
    assert not Contact.objects.filter(pk=contact.pk).exists()

    # A replay finds nothing to delete: the token named the row as it was.
    again = mcp.call_tool(
        "contacts__destroy", {"id": str(contact.pk), "confirm": error["confirm"]}
    )
    assert _error(again)["code"] == "not_found"


def test_the_summary_counts_cascades_unlinks_and_blockers(mcp: MCPTestClient) -> None:
    shelf = Shelf.objects.create(room="north", number=3)
    ShelfLabel.objects.bulk_create(
        [ShelfLabel(shelf=shelf, text="a"), ShelfLabel(shelf=shelf, text="b")]
    )
    error = _error(mcp.call_tool("testapp__shelves__destroy", {"id": shelf.pk}))
    assert error["summary"]["deleted_with"] == [{"model": "shelf labels", "count": 2}]
    assert "and with it 2 shelf labels" in error["summary"]["message"]
    assert ShelfLabel.objects.count() == 2

    publisher = Publisher.objects.create(name="Penguin")
    Book.objects.create(title="One", publisher=publisher)
    error = _error(mcp.call_tool("testapp__publishers__destroy", {"id": publisher.pk}))
    assert error["summary"]["unlinked"] == [{"model": "books", "count": 1}]

    site = Site.objects.create(name="hq", slug="hq")
    Device.objects.create(name="sw1", site=site)
    error = _error(mcp.call_tool("dcim__sites__destroy", {"id": site.pk}))
    assert error["summary"]["blocked_by"] == [{"model": "devices", "count": 1}]
    assert Site.objects.filter(pk=site.pk).exists()


def test_validate_reports_that_confirmation_is_needed(mcp: MCPTestClient) -> None:
    contact = _contact()
    result = mcp.call_tool(
        "contacts__destroy", {"id": str(contact.pk), "mode": "validate"}
    )
    assert result["isError"] is False
    report = result["structuredContent"]["validation"]
    assert report["action"] == "delete"
    assert report["written"] is False
    assert report["confirmation"]["required"] is True
    assert report["confirmation"]["summary"]["record"] == "Ada Byron"
    assert "confirm" not in json.dumps(report["confirmation"]["summary"])
    assert Contact.objects.filter(pk=contact.pk).exists()
    # The hook's mode comes with its report's shape (issue 26 item 1).
    tools = {t["name"]: t for t in mcp.list_tools()}
    listed = tools["contacts__destroy"]["outputSchema"]
    Draft202012Validator(listed).validate(result["structuredContent"])
    assert "validation" not in json.dumps(tools["contacts__retrieve"]["outputSchema"])


def test_a_confirmation_error_is_text_only(mcp: MCPTestClient) -> None:
    """The question's token and summary are no record: an error of a tool
    listed with an outputSchema carries no structuredContent (ADR 0038)."""
    result = mcp.call_tool("contacts__destroy", {"id": str(_contact().pk)})
    assert "structuredContent" not in result
    assert _error(result)["code"] == "confirmation_required"


def _token(mcp: MCPTestClient, name: str, args: dict[str, Any]) -> str:
    token: str = _error(mcp.call_tool(name, args))["confirm"]
    return token


def _refused(mcp: MCPTestClient, name: str, args: dict[str, Any]) -> dict[str, Any]:
    with pytest.raises(MCPError) as info:
        mcp.call_tool(name, args)
    data: dict[str, Any] = info.value.data
    assert data["code"] == "invalid_token"
    assert data["field"] == "confirm"
    return {**data, "message": info.value.message}


def test_a_token_is_bound_to_the_caller() -> None:
    contact = _contact()
    args = {"id": str(contact.pk)}
    token = _token(_login("alice"), "contacts__destroy", args)
    data = _refused(_login("bob"), "contacts__destroy", {**args, "confirm": token})
    assert "another caller" in data["message"]
    assert Contact.objects.filter(pk=contact.pk).exists()


def test_a_token_is_bound_to_the_tool_and_the_arguments(mcp: MCPTestClient) -> None:
    first, second = _contact(), _contact(first_name="Grace")
    tag = Tag.objects.create(name="t", slug="t")
    token = _token(mcp, "contacts__destroy", {"id": str(first.pk)})
    data = _refused(mcp, "contacts__destroy", {"id": str(second.pk), "confirm": token})
    assert "other arguments" in data["message"]
    data = _refused(mcp, "dcim__tags__destroy", {"id": tag.pk, "confirm": token})
    assert "another tool" in data["message"]
    assert Contact.objects.count() == 2
    assert Tag.objects.count() == 1


def test_a_token_is_refused_once_the_record_changed(mcp: MCPTestClient) -> None:
    contact = _contact()
    token = _token(mcp, "contacts__destroy", {"id": str(contact.pk)})
    Contact.objects.filter(pk=contact.pk).update(phone="555")
    data = _refused(mcp, "contacts__destroy", {"id": str(contact.pk), "confirm": token})
    assert "record changed" in data["message"]
    assert Contact.objects.filter(pk=contact.pk).exists()


def test_a_forged_or_expired_token_is_refused(
    mcp: MCPTestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    contact = _contact()
    args = {"id": str(contact.pk)}
    token = _token(mcp, "contacts__destroy", args)
    data = _refused(mcp, "contacts__destroy", {**args, "confirm": token[:-3] + "abc"})
    assert "not a confirmation token" in data["message"]

    class Later:
        @staticmethod
        def time() -> float:
            return time.time() + 301

    monkeypatch.setattr(tokens, "time", Later)
    data = _refused(mcp, "contacts__destroy", {**args, "confirm": token})
    assert "has expired" in data["message"]
    assert Contact.objects.filter(pk=contact.pk).exists()


def test_a_token_is_used_once_even_where_the_row_stays_the_same(
    mcp: MCPTestClient,
) -> None:
    settings = {"CALL_HOOKS": [HOOK], "CONFIRM": ["contacts__partial_update"]}
    contact = _contact()
    args = {"id": str(contact.pk), "first_name": "Ada"}  # changes nothing
    with override_settings(FRISIAN_MCP={"REQUIRE_AUTHENTICATION": False, **settings}):
        token = _token(mcp, "contacts__partial_update", args)
        assert (
            mcp.call_tool("contacts__partial_update", {**args, "confirm": token})[
                "isError"
            ]
            is False
        )
        data = _refused(mcp, "contacts__partial_update", {**args, "confirm": token})
    assert "used already" in data["message"]


def test_the_summary_never_quotes_a_callers_value(mcp: MCPTestClient) -> None:
    contact = _contact(first_name="", last_name="", email="zqx-secret@example.com")
    error = _error(mcp.call_tool("contacts__destroy", {"id": str(contact.pk)}))
    assert error["summary"]["record"] == "zqx-secret@example.com"  # stored, not sent
    # The id the caller sent is the record's text when it has no other.
    bare = Contact.objects.create()
    error = _error(mcp.call_tool("contacts__destroy", {"id": str(bare.pk)}))
    assert str(bare.pk) not in json.dumps(error["summary"])
    assert str(bare.pk)[:8] not in error["message"]


# -- elicitation over 2026-07-28 (MRTR) --------------------------------------

MODERN = "2026-07-28"


def _modern_call(
    mcp: MCPTestClient, args: dict[str, Any], **extra: Any
) -> dict[str, Any]:
    meta: dict[str, Any] = {
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}
    }
    params = {"name": "contacts__destroy", "arguments": args, "_meta": meta, **extra}
    result: dict[str, Any] = mcp.request("tools/call", params)
    return result


def test_a_modern_client_that_elicits_is_asked_and_accept_runs() -> None:
    mcp = MCPTestClient(protocol_version=MODERN)
    contact = _contact()
    args = {"id": str(contact.pk)}
    asked = _modern_call(mcp, args)
    assert asked["resultType"] == "input_required"
    request = asked["inputRequests"]["confirm"]
    assert request["method"] == "elicitation/create"
    assert request["params"]["mode"] == "form"
    assert request["params"]["message"].startswith("Delete contact «Ada Byron»")
    assert request["params"]["requestedSchema"]["required"] == ["confirm"]
    assert Contact.objects.filter(pk=contact.pk).exists()

    answer = {"confirm": {"action": "accept", "content": {"confirm": True}}}
    done = _modern_call(
        mcp, args, inputResponses=answer, requestState=asked["requestState"]
    )
    assert done["resultType"] == "complete"
    assert done["structuredContent"] == {"deleted": True}
    assert not Contact.objects.filter(pk=contact.pk).exists()


@pytest.mark.parametrize(
    "answer",
    [
        {"action": "decline"},
        {"action": "cancel"},
        {"action": "accept", "content": {"confirm": False}},
    ],
)
def test_decline_and_cancel_write_nothing(answer: dict[str, Any]) -> None:
    mcp = MCPTestClient(protocol_version=MODERN)
    contact = _contact()
    args = {"id": str(contact.pk)}
    state = _modern_call(mcp, args)["requestState"]
    result = _modern_call(
        mcp, args, inputResponses={"confirm": answer}, requestState=state
    )
    assert _error(result)["code"] == "confirmation_declined"
    assert Contact.objects.filter(pk=contact.pk).exists()


def test_request_state_is_bound_like_a_token() -> None:
    mcp = MCPTestClient(protocol_version=MODERN)
    first, second = _contact(), _contact(first_name="Grace")
    state = _modern_call(mcp, {"id": str(first.pk)})["requestState"]
    accept = {"confirm": {"action": "accept", "content": {"confirm": True}}}
    with pytest.raises(MCPError) as info:
        _modern_call(
            mcp, {"id": str(second.pk)}, inputResponses=accept, requestState=state
        )
    assert info.value.data["code"] == "invalid_token"
    assert info.value.data["field"] == "requestState"
    assert Contact.objects.count() == 2


def test_a_modern_client_without_elicitation_gets_a_token() -> None:
    mcp = MCPTestClient(protocol_version=MODERN)
    contact = _contact()
    result = mcp.call_tool("contacts__destroy", {"id": str(contact.pk)})
    assert result["resultType"] == "complete"
    assert _error(result)["code"] == "confirmation_required"
    assert Contact.objects.filter(pk=contact.pk).exists()


def test_the_extras_mode_is_the_cores_own(mcp: MCPTestClient) -> None:
    """The extra adds the core's ``mode`` row, not a copy (ADR 0042)."""
    tools = {t["name"]: t for t in mcp.list_tools()}
    destroy = tools["contacts__destroy"]["inputSchema"]["properties"]
    create = tools["contacts__create"]["inputSchema"]["properties"]
    assert destroy["mode"] == create["mode"]
    result = mcp.call_tool("contacts__destroy", {"help": True})
    explained = result["structuredContent"]["help"]["protocol_arguments"]
    created = mcp.call_tool("contacts__create", {"help": True})
    core = created["structuredContent"]["help"]["protocol_arguments"]
    assert explained["mode"] == core["mode"]


def test_help_explains_confirm(mcp: MCPTestClient) -> None:
    result = mcp.call_tool("contacts__destroy", {"help": True})
    documented = result["structuredContent"]["help"]["protocol_arguments"]
    assert "token" in documented["confirm"]
    assert "confirm" not in result["structuredContent"]["help"]["example"]["arguments"]


def test_confirm_without_the_extra_is_a_check_error() -> None:
    from django.core.management import call_command
    from django.core.management.base import SystemCheckError

    with (
        without("confirm"),
        override_settings(FRISIAN_MCP={"CONFIRM": ["destroy"]}),
        pytest.raises(SystemCheckError, match=r"frisian_mcp\.E013"),
    ):
        call_command("check")
    with override_settings(FRISIAN_MCP={"CONFIRM": ["destroy"]}):
        call_command("check")  # installed, and nothing else: clean


def test_installed_the_extra_confirms_without_call_hooks() -> None:
    contact = _contact()
    options = {"REQUIRE_AUTHENTICATION": False, "CONFIRM": ["destroy"]}
    with override_settings(FRISIAN_MCP=options):
        mcp = MCPTestClient()
        mcp.initialize()
        result = mcp.call_tool("contacts__destroy", {"id": str(contact.pk)})
    assert _error(result)["code"] == "confirmation_required"
    assert Contact.objects.filter(pk=contact.pk).exists()


def test_dispatchers_pass_the_token_through(mcp: MCPTestClient) -> None:
    settings = {
        "REQUIRE_AUTHENTICATION": False,
        "CALL_HOOKS": [HOOK],
        "CONFIRM": ["destroy"],
        "TOOL_LAYOUT": "dispatcher",
    }
    contact = _contact()
    args = {"resource": "contacts", "action": "destroy", "id": str(contact.pk)}
    with override_settings(FRISIAN_MCP=settings):
        error = _error(mcp.call_tool("contacts", args))
        assert error["code"] == "confirmation_required"
        assert Contact.objects.filter(pk=contact.pk).exists()
        done = mcp.call_tool("contacts", {**args, "confirm": error["confirm"]})
    assert done["isError"] is False
    assert not Contact.objects.filter(pk=contact.pk).exists()
