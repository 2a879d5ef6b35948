"""Host code using DRF's API on what frisian_mcp hands it (issue 18 item 4).

The document-management host (``tests.hosts.docsearch``) pages a full-text
search by ``self.paginator.get_page_size()``, reads its paginator's links
and its own ``get_all_result_ids()`` after a page, serves a viewset whose
``queryset`` is a manager, and writes tags through a related field whose
class supplies ``get_queryset()``. Each is called over MCP and over REST.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from io import StringIO
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from django.contrib.auth.models import Permission, User
from django.core.management import call_command
from django.test import Client, override_settings

from frisian_mcp.contrib.testing import MCPError, MCPTestClient
from tests.hosts.docsearch.models import Config, Document, Tag

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _urls() -> Iterator[None]:
    with override_settings(
        ROOT_URLCONF="tests.hosts.docsearch.urls",
        FRISIAN_MCP={"REQUIRE_AUTHENTICATION": False, "TOOL_LAYOUT": "flat"},
    ):
        yield


@pytest.fixture
def documents() -> list[Document]:
    """Eight documents; every other one mentions apples."""
    red = Tag.objects.create(name="red")
    rows = []
    for i in range(8):
        fruit = "apple" if i % 2 else "pear"
        rows.append(Document.objects.create(title=f"doc {i}", content=f"a {fruit}"))
        rows[-1].tags.add(red)
    return rows


def rest(url: str, **params: Any) -> Any:
    response = Client().get(url, params)
    assert response.status_code == 200, response.content
    return json.loads(response.content)


def ids(rows: list[dict[str, Any]]) -> list[int]:
    return [row["id"] for row in rows]


def paging(link: str | None) -> dict[str, list[str]]:
    """The paging parameters of a link (its filters aside)."""
    query = parse_qs(urlsplit(link).query) if link else {}
    return {k: v for k, v in query.items() if k in ("page", "limit", "offset")}


@pytest.mark.parametrize("size", [2, 3])
def test_full_text_search_pages_as_rest(
    mcp: MCPTestClient, documents: list[Document], size: int
) -> None:
    """The search builds its hits with the paginator's page size: the call's."""
    for number in (1, 2):
        over_mcp = mcp.call_tool(
            "documents__list",
            {"filters": {"query": "apple"}, "page": number, "page_size": size},
        )
        assert over_mcp["isError"] is False, over_mcp
        page = over_mcp["structuredContent"]
        over_rest = rest("/api/documents/", query="apple", page=number, page_size=size)
        assert ids(page["results"]) == ids(over_rest["results"]), (size, number)
        assert page["count"] == over_rest["count"] == 4
        assert page["has_more"] is (over_rest["next"] is not None)


def test_full_text_search_follows_its_continuation_token(
    mcp: MCPTestClient, documents: list[Document]
) -> None:
    arguments: dict[str, Any] = {"filters": {"query": "apple"}, "page_size": 3}
    first = mcp.call_tool("documents__list", arguments)["structuredContent"]
    token = first["next_token"]
    rest_page = mcp.call_tool("documents__list", {"continuation_token": token})
    found = ids(first["results"]) + ids(rest_page["structuredContent"]["results"])
    apples = [d.pk for d in documents if "apple" in d.content]
    assert found == apples


@pytest.mark.parametrize("kind", ["by-number", "by-offset", "by-host"])
def test_every_method_of_the_hosts_paginator_sees_the_calls_page(
    mcp: MCPTestClient, documents: list[Document], kind: str
) -> None:
    """Page 2 of 2 rows: what host code asks and reads equals REST's."""
    tool = kind + "__list"
    seen = mcp.call_tool(tool, {"page": 2, "page_size": 2})["structuredContent"]
    params = {"limit": 2, "offset": 2} if kind == "by-offset" else {"page": 2}
    over_rest = rest(f"/api/{kind}/", **params, page_size=2)
    assert ids(seen["results"]) == ids(over_rest["results"])
    mine, theirs = seen["seen"], over_rest["seen"]
    assert mine["asked"] == theirs["asked"], kind
    for link in ("next", "previous"):
        assert paging(mine[link]) == paging(theirs[link]), (kind, link)
        assert (mine[link] is None) is (theirs[link] is None), (kind, link)
    assert "pagination" in mine["html"], kind
    if kind == "by-host":
        assert mine["all"] == theirs["all"] == [d.pk for d in documents]


def test_a_cursor_paginators_links_continue_the_tools_pages(
    mcp: MCPTestClient, documents: list[Document]
) -> None:
    """The host's next link, made after a tool's page, leads on over REST."""
    first = mcp.call_tool("by-cursor__list", {"page_size": 3})["structuredContent"]
    assert first["seen"]["asked"] == {"get_page_size": 3}
    assert first["seen"]["previous"] is None
    following = json.loads(Client().get(first["seen"]["next"]).content)
    second = mcp.call_tool("by-cursor__list", {"page": 2, "page_size": 3})
    page = second["structuredContent"]
    assert ids(page["results"]) == ids(following["results"])
    assert ids(page["results"]) == [d.pk for d in documents[3:6]]
    assert page["seen"]["previous"] is not None
    back = json.loads(Client().get(page["seen"]["previous"]).content)
    assert ids(back["results"]) == ids(first["results"])


@pytest.mark.parametrize("kind", ["by-number", "by-offset", "by-cursor", "by-host"])
def test_a_page_past_the_end_is_empty_and_the_paginator_still_answers(
    mcp: MCPTestClient, documents: list[Document], kind: str
) -> None:
    page = mcp.call_tool(kind + "__list", {"page": 50, "page_size": 2})
    assert page["isError"] is False, page
    assert page["structuredContent"]["results"] == []
    assert page["structuredContent"]["seen"]["next"] is None


# -- a manager as the queryset ---------------------------------------------
def test_a_viewset_whose_queryset_is_a_manager_serves_every_tool(
    mcp: MCPTestClient,
) -> None:
    """``queryset = Config.objects``: listed, paged, read, written, deleted."""
    names = {tool["name"] for tool in mcp.list_tools()}
    crud = ("list", "retrieve", "create", "update", "partial_update", "destroy")
    assert {f"config__{a}" for a in crud} <= names
    created = mcp.call_tool("config__create", {"app_title": "Docs", "ocr_pages": 2})
    pk = created["structuredContent"]["id"]
    Config.objects.create(app_title="Spare")
    listed = mcp.call_tool("config__list", {"page_size": 1})["structuredContent"]
    assert listed["count"] == 2
    assert listed["has_more"] is True
    assert ids(listed["results"]) == [pk]
    assert ids(rest("/api/config/")) == ids(
        mcp.call_tool("config__list")["structuredContent"]["results"]
    )
    mcp.call_tool("config__partial_update", {"id": pk, "ocr_pages": 5})
    assert Config.objects.get(pk=pk).ocr_pages == 5
    help_doc = mcp.call_tool("config__update", {"help": True})["structuredContent"]
    assert help_doc["help"]["tool"] == "config__update"
    mcp.call_tool("config__destroy", {"id": pk})
    assert not Config.objects.filter(pk=pk).exists()


def test_a_manager_queryset_under_model_permissions() -> None:
    """Probes read the manager's model: a user sees what its permissions allow."""
    user = User.objects.create_user("clerk")
    user.user_permissions.add(Permission.objects.get(codename="view_config"))
    client = Client()
    client.force_login(user)
    settings = {"TOOL_LAYOUT": "flat", "FILTER_TOOLS_BY_PERMISSION": True}
    with override_settings(FRISIAN_MCP=settings):
        mcp = MCPTestClient(client)
        mcp.initialize()
        names = {t["name"] for t in mcp.list_tools() if "secured" in t["name"]}
        assert names == {"secured-config__list", "secured-config__retrieve"}
        assert mcp.call_tool("secured-config__list")["isError"] is False
        with pytest.raises(MCPError) as info:
            mcp.call_tool("secured-config__create", {"app_title": "x"})
    assert info.value.data["code"] == "unknown_tool", info.value.data
    assert not Config.objects.exists()


def test_the_cleanup_command_finds_orphans_of_a_manager_querysets_model() -> None:
    empty = Config.objects.create(app_title="", ocr_pages=0)
    Config.objects.create(app_title="Docs")
    out = StringIO()
    call_command("frisian_mcp_cleanup", "--format", "json", stdout=out)
    rows = json.loads(out.getvalue())["rows"]
    found = [(r["model"], r["pk"]) for r in rows if r["model"].startswith("docsearch")]
    assert found == [("docsearch.Config", empty.pk)]


def test_a_related_field_whose_rows_are_a_manager_resolves_lookups(
    mcp: MCPTestClient, documents: list[Document]
) -> None:
    """``queryset=Tag.objects``: ids and lookup objects, misses refused."""
    inbox = Tag.objects.create(name="inbox")
    for value in (inbox.pk, str(inbox.pk), {"name": "inbox"}):
        arguments = {"id": documents[0].pk, "inbox_tag": value}
        assert mcp.call_tool("documents__partial_update", arguments)["isError"] is False
        documents[0].refresh_from_db()
        assert documents[0].inbox_tag == inbox
    with pytest.raises(MCPError) as info:
        mcp.call_tool(
            "documents__partial_update",
            {"id": documents[1].pk, "inbox_tag": {"name": "nowhere"}},
        )
    assert info.value.data["code"] == "invalid_reference", info.value.data
    documents[1].refresh_from_db()
    assert documents[1].inbox_tag is None


# -- related fields whose class supplies get_queryset() --------------------
def test_ids_a_get_queryset_field_returns_are_accepted_back(
    mcp: MCPTestClient, documents: list[Document]
) -> None:
    """``tags`` (``many=True``) takes the integer ids retrieve shows, as REST."""
    blue = Tag.objects.create(name="blue")
    record = mcp.call_tool("documents__retrieve", {"id": documents[0].pk})
    tags = record["structuredContent"]["tags"]
    assert all(isinstance(tag, int) for tag in tags)
    mcp.call_tool(
        "documents__partial_update", {"id": documents[0].pk, "tags": [*tags, blue.pk]}
    )
    assert set(documents[0].tags.values_list("name", flat=True)) == {"red", "blue"}
    mcp.call_tool(
        "documents__partial_update",
        {"id": documents[1].pk, "tags": [str(blue.pk), {"name": "red"}]},
    )
    assert set(documents[1].tags.values_list("name", flat=True)) == {"red", "blue"}


def test_a_plain_serializers_get_queryset_field_takes_ids(
    mcp: MCPTestClient, documents: list[Document]
) -> None:
    """No model to read the relation from: the field's own rows say it."""
    blue = Tag.objects.create(name="blue")
    document = documents[2]
    result = mcp.call_tool(
        "documents__add_tag", {"document": document.pk, "tag": blue.pk}
    )
    assert result["isError"] is False, result
    assert document.tags.filter(pk=blue.pk).exists()
    by_name = mcp.call_tool(
        "documents__add_tag", {"document": documents[3].pk, "tag": {"name": "blue"}}
    )
    assert by_name["isError"] is False, by_name
    assert documents[3].tags.filter(pk=blue.pk).exists()


def test_a_get_queryset_field_refuses_an_unknown_id_without_writing(
    mcp: MCPTestClient, documents: list[Document]
) -> None:
    before = list(documents[0].tags.values_list("pk", flat=True))
    with pytest.raises(MCPError) as info:
        mcp.call_tool(
            "documents__partial_update", {"id": documents[0].pk, "tags": [987654]}
        )
    assert info.value.code == -32602
    assert info.value.data["code"] == "validation_failed", info.value.data
    assert "987654" not in json.dumps(info.value.data)
    assert list(documents[0].tags.values_list("pk", flat=True)) == before
    with pytest.raises(MCPError) as info:
        mcp.call_tool(
            "documents__partial_update",
            {"id": documents[0].pk, "tags": [{"name": "x"}]},
        )
    assert info.value.data["code"] == "invalid_reference", info.value.data
    assert list(documents[0].tags.values_list("pk", flat=True)) == before
