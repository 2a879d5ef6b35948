"""Issue 13, item 5: a bulk create that breaks a unique constraint names where.

DRF's unique validators compare each item with the stored rows, not with
the other items, and a row stored between validation and the write escapes
them too; the database constraint then refuses the batch. The ``conflict``
used to name neither the item nor the field. Now each colliding item gets
an entry with its index, the field and code ``unique``, never the value,
and nothing is written.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from rest_framework.validators import UniqueValidator

from demo_project.dcim.models import Device, Site
from frisian_mcp.collisions import unique_sets
from frisian_mcp.contrib.testing import MCPTestClient, tool_error
from tests.testapp.models import Publisher, Shelf

pytestmark = pytest.mark.django_db

SECRET = "Zq-Unrepeatable"


def _conflict(result: dict[str, Any]) -> dict[str, Any]:
    assert result["isError"] is True, result
    error: dict[str, Any] = tool_error(result)
    assert error["code"] == "conflict"
    assert error["recoverable"] is True
    return error


def _bulk(mcp: MCPTestClient, tool: str, items: list[Any]) -> dict[str, Any]:
    """Call ``tool`` with a bulk body; check no value is echoed; the error."""
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": tool, "arguments": {"objects": items}},
    }
    response = mcp.post(body)
    assert SECRET not in response.content.decode()
    return _conflict(json.loads(response.content)["result"])


@pytest.fixture
def race(monkeypatch: pytest.MonkeyPatch) -> None:
    """DRF's unique checks pass, as when a row is stored right after them."""
    monkeypatch.setattr(UniqueValidator, "__call__", lambda *args: None)


def test_two_items_with_one_unique_value_name_the_later_item(
    mcp: MCPTestClient,
) -> None:
    items = [{"name": "Ace"}, {"name": SECRET}, {"name": SECRET}]
    error = _bulk(mcp, "testapp__publishers__create", items)
    assert error["fields"] == [
        {
            "index": 2,
            "field": "name",
            "code": "unique",
            "message": "has the same value as item 1 of this bulk body; "
            "it must be unique",
        }
    ]
    assert error["field"] == "name"
    assert "Item 2 of the bulk body" in error["message"]
    assert Publisher.objects.count() == 0


def test_an_item_colliding_with_a_row_stored_after_validation_is_named(
    mcp: MCPTestClient, race: None
) -> None:
    Publisher.objects.create(name=SECRET)
    items = [{"name": "Ace"}, {"name": SECRET}, {"name": "Tor"}]
    error = _bulk(mcp, "testapp__publishers__create", items)
    assert [(f["index"], f["field"], f["code"]) for f in error["fields"]] == [
        (1, "name", "unique")
    ]
    assert "stored row" in error["fields"][0]["message"]
    assert list(Publisher.objects.values_list("name", flat=True)) == [SECRET]


def test_a_unique_constraint_over_two_fields_names_both(
    mcp: MCPTestClient, demo_data: None
) -> None:
    site = Site.objects.get(slug="hq-1")
    before = Device.objects.count()
    items = [
        {"site": site.pk, "name": "edge-9"},
        {"site": site.pk, "name": "edge-9"},
    ]
    error = _bulk(mcp, "dcim__devices__create", items)
    assert {(f["index"], f["field"]) for f in error["fields"]} == {
        (1, "site"),
        (1, "name"),
    }
    assert "field" not in error
    assert Device.objects.count() == before


def test_a_unique_together_pair_repeated_in_a_batch_is_named(
    mcp: MCPTestClient,
) -> None:
    items = [{"room": "A", "number": 1}, {"room": "A", "number": 1}]
    error = _bulk(mcp, "testapp__shelves__create", items)
    assert {(f["index"], f["field"]) for f in error["fields"]} == {
        (1, "room"),
        (1, "number"),
    }
    assert Shelf.objects.count() == 0


def test_a_single_create_racing_a_stored_row_names_the_field(
    mcp: MCPTestClient, race: None
) -> None:
    Publisher.objects.create(name=SECRET)
    error = _conflict(mcp.call_tool("testapp__publishers__create", {"name": SECRET}))
    assert error["field"] == "name"
    assert [(f["field"], f["code"]) for f in error["fields"]] == [("name", "unique")]
    assert "index" not in error["fields"][0]
    assert SECRET not in str(error)
    assert Publisher.objects.count() == 1


def test_a_conflict_with_no_unique_collision_names_no_field(
    mcp: MCPTestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.testapp.views import PublisherViewSet

    Publisher.objects.create(name="Ace")

    def create_duplicate(self: Any, serializer: Any) -> None:
        Publisher.objects.create(name="Ace")

    monkeypatch.setattr(PublisherViewSet, "perform_create", create_duplicate)
    error = _conflict(
        mcp.call_tool("testapp__publishers__create", {"objects": [{"name": "Tor"}]})
    )
    assert "fields" not in error
    assert "field" not in error


def test_unique_sets_cover_fields_together_and_constraints() -> None:
    assert ("name",) in unique_sets(Publisher)
    assert ("code",) in unique_sets(Publisher)
    assert ("room", "number") in unique_sets(Shelf)
    assert ("site", "name") in unique_sets(Device)
