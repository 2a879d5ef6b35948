"""Bulk routes as REST has them (issue 25 item 12, ADR 0033).

The bulk-routes host (``tests.hosts.bulk``) maps ``bulk_update`` (PUT),
``bulk_partial_update`` (PATCH) and ``bulk_destroy`` (DELETE) onto its list
routes, as large inventory applications do. Each is a tool of its own: a
partial update's entries need only their id and the fields sent, a full
update's every required field, a delete takes ids. Every call is compared
with REST on the same server (``DEBUG = False``): status, answer, rows.
Where they differ by design (REST skips an unknown id and drops an unknown
key without a word; the tool refuses both), the test says so.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import transaction
from django.test import Client, override_settings

from frisian_mcp.contrib.testing import MCPError, MCPTestClient, tool_error
from tests.hosts.bulk.models import Rack, Site

pytestmark = pytest.mark.django_db

MARKER = "zz-marker-42"
SETTINGS = {"REQUIRE_AUTHENTICATION": False, "TOOL_LAYOUT": "flat"}


@pytest.fixture(autouse=True)
def _urls() -> Iterator[None]:
    with override_settings(
        ROOT_URLCONF="tests.hosts.bulk.urls", DEBUG=False, FRISIAN_MCP=SETTINGS
    ):
        yield


@pytest.fixture
def sites() -> list[Site]:
    return [
        Site.objects.create(name=f"Site {n}", slug=f"site-{n}", status="active")
        for n in range(1, 5)
    ]


@pytest.fixture
def tools(mcp: MCPTestClient) -> dict[str, dict[str, Any]]:
    return {tool["name"]: tool for tool in mcp.list_tools()}


def rows() -> list[Any]:
    """Every site and rack, as stored."""
    sites, racks = Site.objects.order_by("pk"), Rack.objects.order_by("pk")
    return [*sites.values(), *racks.values()]


def rest(method: str, url: str, body: Any) -> tuple[int, Any, list[Any]]:
    """REST's status, answer and the rows it leaves; all rolled back."""
    with transaction.atomic():
        response = getattr(Client(), method)(
            url, json.dumps(body), content_type="application/json"
        )
        after = rows()
        transaction.set_rollback(True)
    content = json.loads(response.content) if response.content else None
    return response.status_code, content, after


def refused(mcp: MCPTestClient, name: str, arguments: dict[str, Any]) -> Any:
    """The error data (and message) of a call that must fail; no row may
    change. An argument error is JSON-RPC's -32602; any other an ``isError``
    result.
    """
    before = rows()
    code: int | None = None
    try:
        result = mcp.call_tool(name, arguments)
    except MCPError as exc:
        code, data = exc.code, {**exc.data, "message": exc.message}
    else:
        assert result["isError"] is True, result
        data = tool_error(result)
    assert code in (None, -32602)
    assert rows() == before
    assert MARKER not in json.dumps(data)
    return data


# -- the listing -----------------------------------------------------------
def test_the_bulk_routes_are_tools_of_their_own(
    tools: dict[str, dict[str, Any]],
) -> None:
    expected = {
        "sites__bulk_partial_update": ("Partially update sites in bulk", ["id"]),
        "sites__bulk_update": ("Update sites in bulk", ["id", "name", "slug"]),
        "sites__bulk_destroy": ("Delete sites in bulk", ["id"]),
    }
    for name, (title, required) in expected.items():
        tool = tools[name]
        assert tool["title"] == title
        assert tool["annotations"] == {
            "destructiveHint": True,
            "idempotentHint": True,
            "openWorldHint": False,
        }
        schema = tool["inputSchema"]
        (argument,) = schema["required"]
        assert set(schema["properties"]) == {argument, "help", "mode"}
        listed = schema["properties"][argument]
        assert listed["type"] == "array"
        assert listed["minItems"] == 1
        entry = listed["items"]
        entry = entry["anyOf"][-1] if "anyOf" in entry else entry
        assert entry["required"] == required
        assert entry["additionalProperties"] is False
    assert tools["sites__bulk_destroy"]["inputSchema"]["required"] == ["ids"]
    partial = tools["sites__bulk_partial_update"]["inputSchema"]
    entry = partial["properties"]["objects"]["items"]
    assert set(entry["properties"]) == {"id", "name", "slug", "status", "description"}


@pytest.mark.parametrize(
    "name", ["sites__bulk_partial_update", "sites__bulk_update", "sites__bulk_destroy"]
)
def test_help_shows_a_call_the_tool_takes(
    mcp: MCPTestClient, sites: list[Site], name: str
) -> None:
    """An entry needs its id and a field: the example has both."""
    example = mcp.call_tool(name, {"help": True})["structuredContent"]["help"]
    arguments = example["example"]["arguments"]
    (argument,) = arguments
    for entry in arguments[argument]:
        if isinstance(entry, dict):
            entry["id"] = sites[0].pk
    arguments[argument] = [
        e if isinstance(e, dict) else sites[0].pk for e in arguments[argument]
    ]
    result = mcp.call_tool(name, {**arguments, "mode": "validate"})
    assert result["structuredContent"]["validation"]["valid"] is True


# -- the calls REST takes --------------------------------------------------
def test_a_bulk_partial_update_takes_the_id_and_the_fields_sent(
    mcp: MCPTestClient, sites: list[Site]
) -> None:
    """Three rows, one field each (a different one for each): as REST."""
    first, second, third = sites[:3]
    objects = [
        {"id": first.pk, "status": "planned"},
        {"id": second.pk, "description": "the north hall"},
        {"id": third.pk, "name": "Site Three"},
    ]
    status, over_rest, after_rest = rest("patch", "/api/sites/", objects)
    assert status == 200, over_rest
    result = mcp.call_tool("sites__bulk_partial_update", {"objects": objects})
    assert result["isError"] is False, result
    assert result["structuredContent"] == {"result": over_rest}
    assert rows() == after_rest
    first.refresh_from_db()
    assert (first.status, first.name) == ("planned", "Site 1")


def test_a_bulk_full_update_takes_every_required_field(
    mcp: MCPTestClient, sites: list[Site]
) -> None:
    objects = [
        {"id": sites[0].pk, "name": "Alpha", "slug": "alpha", "status": "retired"},
        {"id": sites[1].pk, "name": "Beta", "slug": "beta"},
    ]
    status, over_rest, after_rest = rest("put", "/api/sites/", objects)
    assert status == 200, over_rest
    result = mcp.call_tool("sites__bulk_update", {"objects": objects})
    assert result["structuredContent"] == {"result": over_rest}
    assert rows() == after_rest
    assert Site.objects.get(pk=sites[1].pk).status == "active"  # its default


def test_a_bulk_destroy_takes_ids_or_id_objects(
    mcp: MCPTestClient, sites: list[Site]
) -> None:
    ids = [sites[0].pk, sites[2].pk]
    status, over_rest, after_rest = rest(
        "delete", "/api/sites/", [{"id": pk} for pk in ids]
    )
    assert (status, over_rest) == (204, None)
    result = mcp.call_tool("sites__bulk_destroy", {"ids": [ids[0], {"id": ids[1]}]})
    assert result["structuredContent"] == {"deleted": True}
    assert rows() == after_rest
    assert sorted(Site.objects.values_list("pk", flat=True)) == [
        sites[1].pk,
        sites[3].pk,
    ]


def test_an_entry_may_blank_a_field(mcp: MCPTestClient, sites: list[Site]) -> None:
    """Unlike a create's, an update's blank value is a change: as REST."""
    Site.objects.filter(pk=sites[0].pk).update(description="old")
    objects = [{"id": sites[0].pk, "description": ""}]
    status, over_rest, after_rest = rest("patch", "/api/sites/", objects)
    assert status == 200
    result = mcp.call_tool("sites__bulk_partial_update", {"objects": objects})
    assert result["structuredContent"] == {"result": over_rest}
    assert rows() == after_rest
    assert Site.objects.get(pk=sites[0].pk).description == ""


def test_an_id_as_numeric_text_reaches_the_view_as_a_number(
    mcp: MCPTestClient, sites: list[Site]
) -> None:
    """The view maps its changes by the ids it was sent; a text id would
    miss the row (REST's PATCH with "12" fails), so the tool sends 12."""
    objects = [{"id": str(sites[0].pk), "status": "retired"}]
    status, _, _ = rest("patch", "/api/sites/", objects)
    assert status == 400
    result = mcp.call_tool("sites__bulk_partial_update", {"objects": objects})
    assert result["structuredContent"]["result"][0]["id"] == sites[0].pk
    assert Site.objects.get(pk=sites[0].pk).status == "retired"


def test_lookup_objects_are_resolved_entry_by_entry(
    mcp: MCPTestClient, sites: list[Site]
) -> None:
    racks = [Rack.objects.create(site=sites[0], name=f"R{n}") for n in (1, 2)]
    objects = [
        {"id": racks[0].pk, "site": {"slug": sites[1].slug}},
        {"id": racks[1].pk, "site": sites[2].pk},
    ]
    result = mcp.call_tool("racks__bulk_partial_update", {"objects": objects})
    assert result["isError"] is False, result
    assert [r.site_id for r in Rack.objects.order_by("pk")] == [
        sites[1].pk,
        sites[2].pk,
    ]


def test_an_allocator_takes_one_object_as_rest_does(
    mcp: MCPTestClient, tools: dict[str, dict[str, Any]], sites: list[Site]
) -> None:
    """Its declared body is a list; REST takes a single object too."""
    body = tools["sites__available_racks"]["inputSchema"]["properties"]["body"]
    assert [form["type"] for form in body["anyOf"]] == ["array", "object"]
    site = sites[0]
    url = f"/api/sites/{site.pk}/available-racks/"
    status, over_rest, _ = rest("post", url, {"status": "planned"})
    assert status == 201, over_rest
    arguments = {"id": site.pk, "body": {"status": "planned"}}
    result = mcp.call_tool("sites__available_racks", arguments)
    assert result["isError"] is False, result
    created = result["structuredContent"]
    # Ids aside: PostgreSQL's sequences do not roll back.
    assert {**created, "id": None} == {**over_rest, "id": None}
    assert created["name"] == "R1"
    listed = {"id": site.pk, "body": [{"status": "active"}, {}]}
    result = mcp.call_tool("sites__available_racks", listed)
    assert [r["name"] for r in result["structuredContent"]["result"]] == ["R2", "R3"]


# -- refused calls ---------------------------------------------------------
def test_an_unknown_id_refuses_the_whole_call(
    mcp: MCPTestClient, sites: list[Site]
) -> None:
    """REST skips the id no row has and changes the others; the tool
    changes nothing and names the entry."""
    missing = Site.objects.order_by("-pk")[0].pk + 100
    objects = [
        {"id": sites[0].pk, "status": "retired"},
        {"id": missing, "status": "retired"},
    ]
    status, _, after_rest = rest("patch", "/api/sites/", objects)
    assert status == 200
    assert after_rest != rows()  # REST changed the row it found
    error = refused(mcp, "sites__bulk_partial_update", {"objects": objects})
    assert error["code"] == "not_found"
    assert error["fields"] == [
        {"index": 1, "field": "id", "code": "not_found", "message": "names no site"}
    ]
    error = refused(mcp, "sites__bulk_destroy", {"ids": [missing, sites[0].pk]})
    assert error["code"] == "not_found"
    assert [f["index"] for f in error["fields"]] == [0]


def test_an_entry_without_its_id_is_refused(
    mcp: MCPTestClient, sites: list[Site]
) -> None:
    objects = [{"id": sites[0].pk, "status": "retired"}, {"status": "retired"}]
    status, _, after_rest = rest("patch", "/api/sites/", objects)
    assert status == 400
    assert after_rest == rows()
    error = refused(mcp, "sites__bulk_partial_update", {"objects": objects})
    assert error["code"] == "invalid_argument"
    assert error["failed_items"] == [1]
    assert [(f["index"], f["field"], f["code"]) for f in error["fields"]] == [
        (1, "id", "required")
    ]


def test_a_misspelt_field_is_refused_where_rest_drops_it(
    mcp: MCPTestClient, sites: list[Site]
) -> None:
    objects = [
        {"id": sites[0].pk, "status": "retired"},
        {"id": sites[1].pk, "statsu": MARKER},
    ]
    status, _, _ = rest("patch", "/api/sites/", objects)
    assert status == 200  # REST drops "statsu" and changes site 0
    assert Site.objects.get(pk=sites[1].pk).status == "active"
    error = refused(mcp, "sites__bulk_partial_update", {"objects": objects})
    assert error["code"] == "unknown_argument"
    (entry,) = error["fields"]
    assert (entry["index"], entry["field"], entry["did_you_mean"]) == (
        1,
        "statsu",
        "status",
    )


def test_the_views_own_validation_names_the_entry_and_field(
    mcp: MCPTestClient, sites: list[Site]
) -> None:
    """A name another site holds: the view's serializer refuses it."""
    objects = [
        {"id": sites[0].pk, "status": "retired"},
        {"id": sites[1].pk, "name": sites[2].name},
    ]
    status, over_rest, after_rest = rest("patch", "/api/sites/", objects)
    assert (status, over_rest) == (
        400,
        {"name": ["site with this name already exists."]},
    )
    assert after_rest == rows()
    error = refused(mcp, "sites__bulk_partial_update", {"objects": objects})
    assert error["code"] == "validation_failed"
    assert [(f["index"], f["field"], f["code"]) for f in error["fields"]] == [
        (1, "name", "unique")
    ]
    assert error["message"].startswith(
        "sites__bulk_partial_update rejected 1 item of the bulk body (index 1); "
        "nothing was written."
    )


def test_what_only_the_views_action_finds_is_undone_by_it(
    mcp: MCPTestClient, sites: list[Site]
) -> None:
    """Two entries taking one free name: each is valid alone, so the view's
    own action saves the first and refuses the second, in its transaction."""
    objects = [{"id": site.pk, "name": "Same"} for site in sites[:2]]
    status, over_rest, after_rest = rest("patch", "/api/sites/", objects)
    assert (status, over_rest) == (
        400,
        {"name": ["site with this name already exists."]},
    )
    assert after_rest == rows()
    error = refused(mcp, "sites__bulk_partial_update", {"objects": objects})
    assert error["code"] == "validation_failed"
    assert [(f["field"], f["code"]) for f in error["fields"]] == [("name", "unique")]
    # What the view's action wrote is its own transaction's to undo.
    assert "nothing was written" not in error["message"]


@pytest.mark.parametrize(
    ("objects", "code", "index", "field"),
    [
        ([{"status": MARKER}], "invalid_argument", 0, "status"),
        ([{"data": {"status": "retired"}}], "nested_wrapper", 0, "data"),
        ([{}], "empty_write", 0, "objects"),
    ],
)
def test_each_entry_is_guarded_like_a_single_write(
    mcp: MCPTestClient,
    sites: list[Site],
    objects: list[dict[str, Any]],
    code: str,
    index: int,
    field: str,
) -> None:
    entries = [{"id": sites[1].pk, "status": "planned"}]
    entries += [{"id": sites[0].pk, **entry} for entry in objects]
    error = refused(mcp, "sites__bulk_partial_update", {"objects": entries})
    assert error["code"] == code
    assert error["failed_items"] == [index + 1]
    assert [(f["index"], f["field"]) for f in error["fields"]][:1] == [
        (index + 1, field if code != "empty_write" else "arguments")
    ]


@pytest.mark.parametrize(
    ("name", "arguments", "code"),
    [
        ("sites__bulk_destroy", {"ids": []}, "invalid_bulk_body"),
        ("sites__bulk_destroy", {}, "invalid_argument"),
        ("sites__bulk_destroy", {"ids": ["one"]}, "invalid_argument"),
        ("sites__bulk_destroy", {"ids": [{"pk": 1}]}, "unknown_argument"),
        ("sites__bulk_partial_update", {"objects": [5]}, "invalid_bulk_body"),
        ("sites__bulk_partial_update", {"items": [{"id": 1}]}, "unknown_argument"),
        (
            "sites__bulk_update",
            {"objects": [{"id": 1, "name": "x"}]},
            "invalid_argument",
        ),
    ],
)
def test_a_list_of_the_wrong_shape_is_refused(
    mcp: MCPTestClient,
    sites: list[Site],
    name: str,
    arguments: dict[str, Any],
    code: str,
) -> None:
    assert refused(mcp, name, arguments)["code"] == code


def test_two_entries_for_one_row_are_refused(
    mcp: MCPTestClient, sites: list[Site]
) -> None:
    """REST would apply one of them; the other's fields would be lost."""
    objects = [
        {"id": sites[0].pk, "status": "retired"},
        {"id": str(sites[0].pk), "description": "lost"},
    ]
    error = refused(mcp, "sites__bulk_partial_update", {"objects": objects})
    assert error["code"] == "invalid_bulk_body"
    assert [f["index"] for f in error["fields"]] == [0, 1]


def test_a_protected_row_is_a_conflict_and_nothing_is_deleted(
    mcp: MCPTestClient, sites: list[Site]
) -> None:
    Rack.objects.create(site=sites[1], name="R1")
    ids = [sites[0].pk, sites[1].pk]
    status, _, after_rest = rest("delete", "/api/sites/", [{"id": pk} for pk in ids])
    assert status == 409
    assert after_rest == rows()
    error = refused(mcp, "sites__bulk_destroy", {"ids": ids})
    assert error["code"] == "conflict"


def test_a_bad_lookup_names_the_entry(mcp: MCPTestClient, sites: list[Site]) -> None:
    rack = Rack.objects.create(site=sites[0], name="R1")
    objects = [{"id": rack.pk, "site": {"slug": MARKER}}]
    error = refused(mcp, "racks__bulk_partial_update", {"objects": objects})
    assert error["code"] == "invalid_reference"
    assert [(f["index"], f["field"]) for f in error["fields"]] == [(0, "site")]


# -- validate mode and confirmation -----------------------------------------
def test_validate_mode_checks_every_entry_and_writes_nothing(
    mcp: MCPTestClient, sites: list[Site]
) -> None:
    before = rows()
    objects: list[dict[str, Any]] = [
        {"id": sites[0].pk, "status": "retired"},
        {"id": str(sites[1].pk), "name": "Renamed"},
    ]
    arguments = {"objects": objects, "mode": "validate"}
    result = mcp.call_tool("sites__bulk_partial_update", arguments)
    assert result["structuredContent"] == {
        "validation": {
            "valid": True,
            "action": "update",
            "count": 2,
            "ids": [sites[0].pk, sites[1].pk],
            "written": False,
        }
    }
    result = mcp.call_tool(
        "sites__bulk_destroy", {"ids": [sites[0].pk], "mode": "validate"}
    )
    assert result["structuredContent"]["validation"]["action"] == "delete"
    assert rows() == before
    objects[1]["name"] = sites[2].name  # taken: validation fails, as it would
    error = refused(
        mcp, "sites__bulk_partial_update", {"objects": objects, "mode": "validate"}
    )
    assert error["code"] == "validation_failed"


@pytest.mark.parametrize("entry", ["destroy", "delete", "sites__bulk_*"])
def test_confirm_covers_bulk_deletes(
    mcp: MCPTestClient, sites: list[Site], entry: str
) -> None:
    hook = "frisian_mcp.contrib.confirm.hooks.ConfirmationHook"
    confirming = {**SETTINGS, "CALL_HOOKS": [hook], "CONFIRM": [entry]}
    ids = [sites[0].pk, sites[1].pk]
    with override_settings(FRISIAN_MCP=confirming):
        error = refused(mcp, "sites__bulk_destroy", {"ids": ids})
        assert error["code"] == "confirmation_required"
        assert error["summary"]["message"] == "Delete 2 sites?"
        confirmed = {"ids": ids, "confirm": error["confirm"]}
        result = mcp.call_tool("sites__bulk_destroy", confirmed)
    assert result["structuredContent"] == {"deleted": True}
    assert Site.objects.count() == 2
