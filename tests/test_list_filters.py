"""Issue 18 item 13: filters that take several values take one or a list.

``tests.hosts.archive`` filters documents with django-filter's own
``MultipleChoiceFilter``, ``ModelMultipleChoiceFilter`` and ``BaseInFilter``
(``__in``), and with the per-custom-field filters its filter set adds in
``__init__`` (NetBox's multi-value ``cf_<name>``, and a ``BaseInFilter``
``cf_<name>__in``). Each call's rows are compared with the REST request on
the same server: a single value is accepted as REST accepts ``?k=v``, and a
list is sent as the filter reads it (repeated, or comma-joined). The
paperless-style ``tags__id__all``, which drf-spectacular types as one
integer though it reads comma-separated ids, is fixed with
``query_parameters`` (issue 18 item 3).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from django.test import Client, override_settings

from frisian_mcp.contrib.testing import MCPError, MCPTestClient
from tests.hosts.archive.models import Correspondent, CustomField, Document, Tag

pytestmark = pytest.mark.django_db

DOCUMENTS = "tests.hosts.archive.views.DocumentViewSet"
#: A filter declared ``integer`` that reads comma-separated ids, corrected.
TAGS_ALL = {
    "tags__id__all": {
        "schema": {"type": "array", "items": {"type": "integer"}},
        "explode": False,
        "description": "Documents that carry every one of these tag ids.",
    }
}


def settings(**options: Any) -> dict[str, Any]:
    return {"REQUIRE_AUTHENTICATION": False, "TOOL_LAYOUT": "flat", **options}


@pytest.fixture(autouse=True)
def _host() -> Iterator[None]:
    with override_settings(
        ROOT_URLCONF="tests.hosts.archive.urls", FRISIAN_MCP=settings()
    ):
        yield


@pytest.fixture(autouse=True)
def documents() -> None:
    # Ids above 100: no row answers a schema's placeholder path value ("1").
    red, blue, green = (
        Tag.objects.create(pk=101 + i, name=name)
        for i, name in enumerate(("red", "blue", "green"))
    )
    one, two = (
        Correspondent.objects.create(pk=201 + i, name=name)
        for i, name in enumerate(("alice", "bob"))
    )
    CustomField.objects.create(name="owner")
    CustomField.objects.create(name="site")
    rows = [
        ("inbox", [red, blue], one, {"owner": "ops", "site": "ams"}),
        ("filed", [red], two, {"owner": "dev"}),
        ("archived", [blue, green], None, {"owner": "ops"}),
        ("inbox", [red, blue, green], one, {"owner": "sec", "site": "ber"}),
        ("filed", [], two, {}),
        ("archived", [green], None, {"owner": "dev", "site": "ams"}),
    ]
    for index, (status, tags, correspondent, fields) in enumerate(rows):
        document = Document.objects.create(
            pk=301 + index,
            title=f"Document {index}",
            status=status,
            correspondent=correspondent,
            custom_fields=fields,
        )
        document.tags.set(tags)


def rest_ids(query: str) -> list[int]:
    response = Client().get(f"/api/documents/?{query}")
    assert response.status_code == 200, response.content
    return [row["id"] for row in json.loads(response.content)["results"]]


def mcp_ids(filters: dict[str, Any]) -> list[int]:
    mcp = MCPTestClient()
    mcp.initialize()
    result = mcp.call_tool("documents__list", {"filters": filters})
    assert result["isError"] is False, result
    return [row["id"] for row in result["structuredContent"]["results"]]


CASES = [
    # MultipleChoiceFilter: one pair per value.
    ({"status": "inbox"}, "status=inbox"),
    ({"status": ["inbox", "filed"]}, "status=inbox&status=filed"),
    # ModelMultipleChoiceFilter, by pk and by a to_field_name.
    ({"tags": 101}, "tags=101"),
    ({"tags": [101, 103]}, "tags=101&tags=103"),
    ({"tag_name": "green"}, "tag_name=green"),
    ({"tag_name": ["red", "green"]}, "tag_name=red&tag_name=green"),
    # BaseInFilter (Meta.fields "in"): comma-joined.
    ({"id__in": 302}, "id__in=302"),
    ({"id__in": [301, 303, 305]}, "id__in=301,303,305"),
    ({"correspondent__id__in": [201, 202]}, "correspondent__id__in=201,202"),
    # Filters the filter set adds in __init__: NetBox's multi-value ...
    ({"cf_owner": "ops"}, "cf_owner=ops"),
    ({"cf_owner": ["ops", "dev"]}, "cf_owner=ops&cf_owner=dev"),
    # ... and a BaseInFilter.
    ({"cf_owner__in": "dev"}, "cf_owner__in=dev"),
    ({"cf_owner__in": ["ops", "sec"]}, "cf_owner__in=ops,sec"),
    (
        {"status": ["inbox", "archived"], "cf_site": "ams"},
        "status=inbox&status=archived&cf_site=ams",
    ),
]


@pytest.mark.parametrize(("filters", "query"), CASES)
def test_one_value_or_a_list_finds_the_rows_rest_finds(
    filters: dict[str, Any], query: str
) -> None:
    expected = rest_ids(query)
    assert 0 < len(expected) < Document.objects.count(), query
    assert mcp_ids(filters) == expected


def test_the_listing_types_a_filter_that_takes_several_values() -> None:
    mcp = MCPTestClient()
    mcp.initialize()
    listed = next(t for t in mcp.list_tools() if t["name"] == "documents__list")
    filters = listed["inputSchema"]["properties"]["filters"]["properties"]
    assert filters["id__in"]["type"] == ["integer", "array"]
    assert filters["id__in"]["items"] == {"type": "integer"}
    choices = ["archived", "filed", "inbox"]
    assert filters["status"]["anyOf"] == [
        {"type": "string", "enum": choices},
        {"type": "array", "items": {"type": "string", "enum": choices}},
    ]


def test_help_types_the_filters_an_instance_adds() -> None:
    mcp = MCPTestClient()
    mcp.initialize()
    result = mcp.call_tool("documents__list", {"help": True})
    listed = result["structuredContent"]["help"]["filters"]
    assert {"cf_owner", "cf_owner__in", "cf_site", "cf_site__in"} <= set(listed)


@pytest.mark.parametrize(
    "filters",
    [
        {"status": "lost"},
        {"status": ["inbox", "lost"]},
        {"id__in": ["x"]},
        {"cf_owner__in": [{"a": 1}]},
    ],
)
def test_a_wrong_value_is_refused_on_its_filter(filters: dict[str, Any]) -> None:
    mcp = MCPTestClient()
    mcp.initialize()
    with pytest.raises(MCPError) as info:
        mcp.call_tool("documents__list", {"filters": filters})
    assert info.value.data["code"] == "invalid_argument"
    (key,) = filters
    (field,) = info.value.data["fields"]
    assert field["field"].startswith(f"filters.{key}"), field
    assert "lost" not in json.dumps(info.value.data)


def test_a_filter_typed_wrongly_refuses_a_list_until_declared() -> None:
    """``tags__id__all`` reads "101,102"; its OpenAPI says one integer."""
    expected = rest_ids("tags__id__all=101,102")
    assert expected == [301, 304]
    mcp = MCPTestClient()
    mcp.initialize()
    with pytest.raises(MCPError) as info:
        mcp.call_tool("documents__list", {"filters": {"tags__id__all": [101, 102]}})
    assert info.value.data["code"] == "invalid_argument"


@pytest.mark.parametrize(
    ("value", "query"),
    [([101, 102], "tags__id__all=101,102"), (103, "tags__id__all=103")],
)
def test_query_parameters_override_a_declared_filter(value: Any, query: str) -> None:
    options = {"VIEWSET_OPTIONS": {DOCUMENTS: {"query_parameters": TAGS_ALL}}}
    with override_settings(FRISIAN_MCP=settings(**options)):
        expected = rest_ids(query)
        assert 0 < len(expected) < Document.objects.count()
        assert mcp_ids({"tags__id__all": value}) == expected
        mcp = MCPTestClient()
        mcp.initialize()
        listed = next(t for t in mcp.list_tools() if t["name"] == "documents__list")
    schema = listed["inputSchema"]["properties"]["filters"]["properties"]
    assert schema["tags__id__all"] == {
        "type": ["integer", "array"],
        "items": {"type": "integer"},
        "description": "Documents that carry every one of these tag ids.",
    }
