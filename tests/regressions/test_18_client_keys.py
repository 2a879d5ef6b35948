"""Issue 18 item 10: keys clients add inside ``arguments`` are ignored.

n8n's MCP Client Tool sends ``toolCallId`` with every call; other clients
and proxies put request metadata (``_meta``) there rather than in
``params._meta``. frisian_mcp drops these keys (``CLIENT_KEYS``) in every
kind of tool, in bulk items and through dispatchers: never stored, never
refused. A tool whose serializer declares the name gets it like any field.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.test import override_settings

from demo_project.contacts.models import Contact
from frisian_mcp.contrib.testing import MCPTestClient
from frisian_mcp.registry import reset_registry
from tests.testapp.models import Book

pytestmark = pytest.mark.django_db

ADDED: dict[str, Any] = {
    "toolCallId": "call_0BCIShth4lxZuYr4coSp4E5E",
    "_meta": {"progressToken": 7},
}
ROW = ("email", "first_name", "last_name", "phone", "notes")


def client(**settings: Any) -> Any:
    """An initialized client of the quoting host's URLconf (and the demo's)."""
    override = override_settings(
        ROOT_URLCONF="tests.hosts.quoting.urls",
        FRISIAN_MCP={"REQUIRE_AUTHENTICATION": False, **settings},
    )
    override.enable()
    reset_registry()
    mcp = MCPTestClient()
    mcp.initialize()
    return mcp, override


@pytest.fixture(params=["flat", "dispatcher"])
def call(request: pytest.FixtureRequest) -> Any:
    """Call a demo contacts tool, through its dispatcher or by name."""
    mcp, override = client(TOOL_LAYOUT=request.param)

    def call(action: str, arguments: dict[str, Any]) -> dict[str, Any]:
        if request.param == "dispatcher":
            routed = {"resource": "contacts", "action": action, **arguments}
            result: dict[str, Any] = mcp.call_tool("contacts", routed)
        else:
            result = mcp.call_tool(f"contacts__{action}", arguments)
        assert result["isError"] is False, result
        structured: dict[str, Any] = result["structuredContent"]
        return structured

    yield call
    override.disable()


def stored(pk: str) -> tuple[Any, ...]:
    return tuple(Contact.objects.values_list(*ROW).get(pk=pk))


def test_every_kind_of_tool_ignores_client_keys(call: Any) -> None:
    fields = {"first_name": "Ada", "last_name": "Lovelace", "notes": "n"}
    plain = call("create", {"email": "a@example.com", **fields})
    added = call("create", {"email": "b@example.com", **fields, **ADDED})
    assert stored(added["id"])[1:] == stored(plain["id"])[1:]
    checked = call("create", {"email": "c@example.com", "mode": "validate", **ADDED})
    assert checked["validation"]["data"] == {"email": "c@example.com"}
    call("partial_update", {"id": added["id"], "phone": "+31", **ADDED})
    call("update", {"id": plain["id"], "email": "a@example.com", **fields, **ADDED})
    assert stored(plain["id"]) == ("a@example.com", "Ada", "Lovelace", "", "n")
    assert stored(added["id"]) == ("b@example.com", "Ada", "Lovelace", "+31", "n")
    assert call("retrieve", {"id": added["id"], **ADDED})["phone"] == "+31"
    listed = call("list", {"filters": {"search": "Ada"}, "page_size": 1, **ADDED})
    assert listed["count"] == 2
    documented = call("create", {"help": True, **ADDED})
    assert "help" in documented
    assert call("destroy", {"id": plain["id"], **ADDED}) == {"deleted": True}
    assert Contact.objects.count() == 1


def test_a_bulk_body_and_its_items_ignore_client_keys(call: Any) -> None:
    items: list[dict[str, Any]] = [
        {"email": f"{n}@example.com", "first_name": "Ada"} for n in range(3)
    ]
    items[1] = {**items[1], **ADDED}
    created = call("create", {"objects": items, **ADDED})
    assert created["created"] == 3
    rows = set(Contact.objects.values_list("email", "first_name", "notes"))
    assert rows == {(f"{n}@example.com", "Ada", "") for n in range(3)}


def test_a_declared_field_of_the_same_name_wins() -> None:
    mcp, override = client()
    try:
        schema = next(
            t["inputSchema"]
            for t in mcp.list_tools()
            if t["name"] == "call-log__create"
        )
        assert "toolCallId" in schema["properties"]
        result = mcp.call_tool(
            "call-log__create", {"title": "T", "toolCallId": "call-1", "_meta": {}}
        )
    finally:
        override.disable()
    assert result["structuredContent"]["toolCallId"] == "call-1"
    assert Book.objects.get().isbn == "call-1"
