"""Actions that build their own paginator page as REST pages (issue 25 item 4).

``tests.hosts.catalogue``'s reports build a paginator in the action's body
(``LargePagination()``: page numbers, limit and offset, a cursor), one
answers a plain list and one declares an answer that is no list. Nothing
reads the host's code (ADR 0035): a GET action takes the paging arguments
unless its schema declares an answer that is neither a list nor a page; the
answer shows how it paged. Every page is compared with REST's on the same
server, under ``DEBUG = False``.
"""

from __future__ import annotations

import datetime
import itertools
import json
from collections.abc import Iterator
from typing import Any

import pytest
from django.test import Client, override_settings
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, inline_serializer
from rest_framework import serializers

from frisian_mcp import pagination
from frisian_mcp.contrib.testing import MCPError, MCPTestClient
from tests.hosts.catalogue.models import Product
from tests.hosts.catalogue.views import ProductSerializer, SummarySerializer

pytestmark = pytest.mark.django_db

PAGING = {"page", "page_size", "continuation_token"}


@pytest.fixture(autouse=True)
def _host() -> Iterator[None]:
    with override_settings(
        ROOT_URLCONF="tests.hosts.catalogue.urls",
        DEBUG=False,
        FRISIAN_MCP={"REQUIRE_AUTHENTICATION": False, "TOOL_LAYOUT": "flat"},
    ):
        yield


@pytest.fixture(autouse=True)
def products() -> None:
    """Twelve products, each stock and release date its own."""
    start = datetime.date(2024, 1, 1)
    for i in range(12):
        Product.objects.create(
            pk=101 + i,
            name=f"Product {i}",
            sku=f"SKU-{i:03}",
            stock=(i * 5) % 12,
            released=start + datetime.timedelta(days=(i * 7) % 12),
        )


def rest(url: str, **params: Any) -> Any:
    response = Client().get(url, params)
    assert response.status_code == 200, response.content
    return json.loads(response.content)


def rest_pages(url: str) -> list[list[int]]:
    """Every page REST gives, following its ``next`` links."""
    pages, page = [], rest(url)
    while True:
        pages.append(ids(page["results"]))
        if not page["next"]:
            return pages
        page = rest(page["next"])


def mcp_pages(mcp: MCPTestClient, tool: str, **arguments: Any) -> list[list[int]]:
    """Every page the tool gives, following its ``next_token``."""
    pages, page = [], mcp.call_tool(tool, arguments)["structuredContent"]
    while True:
        pages.append(ids(page["results"]))
        if "next_token" not in page:
            assert page["has_more"] is False
            return pages
        token = {"continuation_token": page["next_token"]}
        page = mcp.call_tool(tool, token)["structuredContent"]


def ids(rows: list[dict[str, Any]]) -> list[int]:
    return [row["id"] for row in rows]


@pytest.mark.parametrize(
    "tool",
    [
        "products__bestsellers",
        "products__newest",
        "products__oldest",
        "products__timeline",
        "products__skus",
    ],
)
def test_a_get_action_that_may_page_declares_the_paging_arguments(
    mcp: MCPTestClient, tool: str
) -> None:
    listed = {t["name"]: t for t in mcp.list_tools()}
    assert set(listed[tool]["inputSchema"]["properties"]) >= PAGING


def test_an_action_declaring_an_answer_that_is_no_list_takes_no_page(
    mcp: MCPTestClient,
) -> None:
    listed = {t["name"]: t for t in mcp.list_tools()}
    assert not PAGING & set(listed["products__summary"]["inputSchema"]["properties"])
    summary = mcp.call_tool("products__summary")["structuredContent"]
    assert summary == rest("/api/products/summary/")
    with pytest.raises(MCPError) as info:
        mcp.call_tool("products__summary", {"page": 2})
    assert info.value.data["code"] == "unknown_argument"


@pytest.mark.parametrize(
    ("arguments", "query"),
    [
        ({}, {}),
        ({"page": 2}, {"page": 2}),
        ({"page": 3}, {"page": 3}),
        ({"page": 2, "page_size": 5}, {"page": 2, "page_size": 5}),
        ({"page_size": 5}, {"page_size": 5}),
    ],
)
def test_an_action_with_its_own_page_number_paginator_pages_as_rest(
    mcp: MCPTestClient, arguments: dict[str, int], query: dict[str, int]
) -> None:
    """``LargePagination()`` reads ``page`` and ``page_size`` from the query
    string, under the names of the view's paginator class."""
    page = mcp.call_tool("products__bestsellers", arguments)["structuredContent"]
    over_rest = rest("/api/products/bestsellers/", **query)
    assert ids(page["results"]) == ids(over_rest["results"]), arguments
    assert page["count"] == over_rest["count"] == 12
    assert page["page"] == arguments.get("page", 1)
    assert page["has_more"] is (over_rest["next"] is not None)
    assert ("next_token" in page) is page["has_more"]
    if page["has_more"]:  # the size its own paginator chose
        assert page["page_size"] == len(over_rest["results"])
    assert not {"next", "previous"} & set(page)


def test_an_action_with_a_limit_offset_paginator_class_pages_as_rest(
    mcp: MCPTestClient,
) -> None:
    """The action's own paginator class (``@action(pagination_class=...)``)
    names its parameters: page 2 of 2 is REST's ``?limit=2&offset=2``."""
    arguments = {"page": 2, "page_size": 2}
    page = mcp.call_tool("products__oldest", arguments)["structuredContent"]
    over_rest = rest("/api/products/oldest/", limit=2, offset=2)
    assert ids(page["results"]) == ids(over_rest["results"])
    assert page["count"] == over_rest["count"]
    # Without page_size, every page's limit is the class's default_limit.
    first = mcp.call_tool("products__oldest", {"page": 1})["structuredContent"]
    assert ids(first["results"]) == ids(
        rest("/api/products/oldest/", limit=25)["results"]
    )


@pytest.mark.parametrize(
    ("tool", "url"),
    [
        ("products__bestsellers", "/api/products/bestsellers/"),
        ("products__newest", "/api/products/newest/"),
        ("products__oldest", "/api/products/oldest/"),
        ("products__timeline", "/api/products/timeline/"),
        ("products__list", "/api/products/"),
    ],
)
def test_the_continuation_token_walks_every_page_as_rest_links_do(
    mcp: MCPTestClient, tool: str, url: str
) -> None:
    """Each next_token carries the host paginator's own next link: page
    numbers, limit and offset, or a cursor; the list pages by the call."""
    expected = rest_pages(url)
    assert len(expected) > 2, tool
    walked = mcp_pages(mcp, tool)
    if tool == "products__list":  # paged by the call, in its page size
        assert [*itertools.chain(*walked)] == [*itertools.chain(*expected)]
    else:
        assert walked == expected


@pytest.mark.parametrize("tool", ["products__newest", "products__timeline"])
def test_a_page_its_own_paginator_cannot_take_by_number_is_refused(
    mcp: MCPTestClient, tool: str
) -> None:
    """A limit/offset paginator on a page-number view, and a cursor, do not
    read ``page``: page 2 by number would be page 1, so it is refused with
    the way that works; the token of page 1 reaches page 2."""
    with pytest.raises(MCPError) as info:
        mcp.call_tool(tool, {"page": 2})
    data = info.value.data
    assert data["code"] == "invalid_argument", data
    assert data["field"] == "page"
    assert "next_token" in data["hint"]
    first = mcp.call_tool(tool, {})["structuredContent"]
    second = mcp.call_tool(tool, {"continuation_token": first["next_token"]})
    url = f"/api/products/{tool.partition('__')[2]}/"
    assert ids(second["structuredContent"]["results"]) == rest_pages(url)[1]


def test_a_page_size_its_own_paginator_does_not_take_is_reported(
    mcp: MCPTestClient,
) -> None:
    """``page_size`` has no limit/offset name on a page-number view: the
    page says the size its paginator chose, and the token goes on in it."""
    first = mcp.call_tool("products__newest", {"page_size": 3})["structuredContent"]
    assert first["page_size"] == 2
    token = {"continuation_token": first["next_token"]}
    second = mcp.call_tool("products__newest", token)["structuredContent"]
    over_rest = rest("/api/products/newest/", limit=2, offset=2)
    assert ids(second["results"]) == ids(over_rest["results"])
    assert second["page"] == 2


def test_an_action_answering_a_plain_list_refuses_paging_it_cannot_give(
    mcp: MCPTestClient,
) -> None:
    whole = rest("/api/products/skus/")
    assert mcp.call_tool("products__skus")["structuredContent"] == {"result": whole}
    first = mcp.call_tool("products__skus", {"page": 1})["structuredContent"]
    assert first == {"result": whole}
    for paging in ({"page": 2}, {"page_size": 3}, {"page": 2, "page_size": 3}):
        with pytest.raises(MCPError) as info:
            mcp.call_tool("products__skus", paging)
        data = info.value.data
        assert data["code"] == "invalid_argument", paging
        assert data["field"] == next(iter(paging))
        assert "SKU" not in json.dumps(data)


def test_the_stock_list_pages_as_rest(mcp: MCPTestClient) -> None:
    page = mcp.call_tool("products__list", {"page": 2, "page_size": 3})
    over_rest = rest("/api/products/", page=2, page_size=3)
    assert ids(page["structuredContent"]["results"]) == ids(over_rest["results"])
    assert page["structuredContent"]["count"] == over_rest["count"]


@pytest.mark.parametrize(
    ("declared", "pages"),
    [
        (ProductSerializer(many=True), True),
        (ProductSerializer, False),
        ({200: ProductSerializer(many=True), 404: None}, True),
        ({(200, "text/csv"): OpenApiTypes.BINARY}, False),
        (OpenApiResponse(response=ProductSerializer(many=True)), True),
        (OpenApiResponse(description="Counts."), False),
        ({200: {"type": "array", "items": {"type": "string"}}}, True),
        ({200: {"type": "object", "properties": {"results": {}}}}, True),
        ({200: {"type": "object", "properties": {"total": {}}}}, False),
        (inline_serializer("Page", {"results": serializers.ListField()}), True),
        (SummarySerializer, False),
        (None, False),
    ],
)
def test_a_declared_answer_says_whether_an_action_may_page(
    declared: Any, pages: bool
) -> None:
    """What ``@extend_schema(responses=...)`` declares: a list or a page
    may page; a record, a file, a count may not (ADR 0035)."""
    assert pagination._listish(declared) is pages
