"""django-filter's CSV and range filters by their real shape (issue 25 item 6).

``tests.hosts.catalogue`` filters products with django-filter's own classes:
``BaseInFilter`` numbers and strings, a ``BaseCSVFilter`` with a method,
``RangeFilter`` (``price_min``/``price_max``), ``DateFromToRangeFilter``
(``released_after``/``released_before``), a ``BaseRangeFilter`` (``a,b``),
``MultipleChoiceFilter`` (a repeated key), a scalar ``CharFilter`` and a
scalar filter the filter set adds per instance. Each call's rows are the
REST request's on the same server; wrong values are refused on their
filter, with no fragment of the value in the error.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pytest
from django.test import Client, override_settings

from frisian_mcp.contrib.testing import MCPError, MCPTestClient
from tests.hosts.catalogue.models import Feature, Product

pytestmark = pytest.mark.django_db


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
    Feature.objects.create(name="color")
    Feature.objects.create(name="size")
    rows = [
        ("Green garden lamp", "garden", "4.50", 0, {"color": "green"}),
        ("Small green pot", "garden", "12.00", 3, {"color": "green", "size": "s"}),
        ("Red kettle", "kitchen", "25.00", 7, {"color": "red"}),
        ("Small hammer", "tools", "9.99", 2, {"size": "s"}),
        ("Large red lamp", "kitchen", "40.00", 5, {"color": "red", "size": "l"}),
        ("Garden shears", "garden", "18.25", 9, {}),
    ]
    start = datetime.date(2024, 1, 1)
    for i, (name, category, price, stock, features) in enumerate(rows):
        Product.objects.create(
            pk=101 + i,
            name=name,
            sku=f"SKU-{i:03}",
            category=category,
            price=Decimal(price),
            stock=stock,
            released=start + datetime.timedelta(days=3 * i),
            features=features,
        )


def rest_ids(query: str) -> list[int]:
    response = Client().get(f"/api/products/?{query}&page_size=100")
    assert response.status_code == 200, response.content
    return [row["id"] for row in json.loads(response.content)["results"]]


def call(filters: dict[str, Any]) -> dict[str, Any]:
    mcp = MCPTestClient()
    mcp.initialize()
    return mcp.call_tool("products__list", {"filters": filters})


def mcp_ids(filters: dict[str, Any]) -> list[int]:
    result = call(filters)
    assert result["isError"] is False, result
    return [row["id"] for row in result["structuredContent"]["results"]]


CASES = [
    # BaseInFilter of numbers and of strings: comma-joined.
    ({"id__in": [101, 103, 105]}, "id__in=101,103,105"),
    ({"id__in": 102}, "id__in=102"),
    ({"sku__in": ["SKU-001", "SKU-004"]}, "sku__in=SKU-001,SKU-004"),
    ({"sku__in": "SKU-002"}, "sku__in=SKU-002"),
    # A BaseCSVFilter with a method of its own: comma-joined.
    ({"words": ["green", "small"]}, "words=green,small"),
    ({"words": "lamp"}, "words=lamp"),
    # RangeFilter: its widget's two keys; a price as a number or as text.
    ({"price_min": 5, "price_max": "20.50"}, "price_min=5&price_max=20.50"),
    ({"price_min": 12.5}, "price_min=12.5"),
    ({"price_max": "9.99"}, "price_max=9.99"),
    # DateFromToRangeFilter: its widget's two keys.
    (
        {"released_after": "2024-01-04", "released_before": "2024-01-10"},
        "released_after=2024-01-04&released_before=2024-01-10",
    ),
    # BaseRangeFilter: its pair, comma-joined.
    ({"stock__range": [2, 6]}, "stock__range=2,6"),
    # MultipleChoiceFilter: one key per value.
    ({"category": ["garden", "kitchen"]}, "category=garden&category=kitchen"),
    ({"category": "tools"}, "category=tools"),
    # A scalar filter: one value, or a list of one.
    ({"name": "lamp"}, "name=lamp"),
    ({"name": ["lamp"]}, "name=lamp"),
    # A scalar filter the filter set adds per instance, likewise.
    ({"feature_color": "red"}, "feature_color=red"),
    ({"feature_color": ["green"]}, "feature_color=green"),
    (
        {"category": ["garden"], "stock__range": [1, 9], "feature_size": ["s"]},
        "category=garden&stock__range=1,9&feature_size=s",
    ),
]


@pytest.mark.parametrize(("filters", "query"), CASES)
def test_each_filter_finds_the_rows_rest_finds(
    filters: dict[str, Any], query: str
) -> None:
    expected = rest_ids(query)
    assert 0 < len(expected) < Product.objects.count(), query
    assert mcp_ids(filters) == expected


def test_the_listing_types_each_filter_by_its_shape() -> None:
    mcp = MCPTestClient()
    mcp.initialize()
    listed = next(t for t in mcp.list_tools() if t["name"] == "products__list")
    filters = listed["inputSchema"]["properties"]["filters"]["properties"]
    assert filters["stock__range"]["type"] == "array"
    assert filters["stock__range"]["items"] == {"type": "integer"}
    assert filters["stock__range"]["minItems"] == filters["stock__range"]["maxItems"]
    assert filters["stock__range"]["minItems"] == 2
    assert filters["id__in"]["type"] == ["integer", "array"]
    assert filters["price_min"]["type"] == ["string", "number"]
    assert filters["released_after"] == {"type": "string", "format": "date"}
    assert filters["name"] == {"type": "string"}


SECRET = "zq-secret-9"


@pytest.mark.parametrize(
    ("filters", "field"),
    [
        ({"stock__range": [2]}, "filters.stock__range"),
        ({"stock__range": [1, 2, 3]}, "filters.stock__range"),
        ({"stock__range": 4}, "filters.stock__range"),
        ({"stock__range": [1, SECRET]}, "filters.stock__range"),
        ({"id__in": [101, SECRET]}, "filters.id__in"),
        ({"price_min": SECRET}, "filters.price_min"),
        ({"category": ["garden", SECRET]}, "filters.category"),
        ({"name": ["lamp", SECRET]}, "filters.name"),
        ({"name": [[SECRET]]}, "filters.name"),
        ({"feature_color": ["red", SECRET]}, "filters.feature_color"),
    ],
)
def test_a_wrong_value_is_refused_on_its_filter(
    filters: dict[str, Any], field: str
) -> None:
    with pytest.raises(MCPError) as info:
        call(filters)
    data = info.value.data
    assert data["code"] == "invalid_argument", data
    assert all(f["field"].startswith(field) for f in data["fields"]), data
    assert SECRET not in info.value.response.content.decode()


def test_a_value_only_the_filter_can_judge_is_refused_as_rest_refuses() -> None:
    """A date the schema types only as text: the filter's form refuses it."""
    response = Client().get(f"/api/products/?released_after={SECRET}")
    assert response.status_code == 400
    with pytest.raises(MCPError) as info:
        call({"released_after": SECRET})
    data = info.value.data
    assert data["code"] == "validation_failed", data
    assert data["fields"][0]["field"] == "filters.released_after", data
    assert SECRET not in info.value.response.content.decode()


@override_settings(
    ROOT_URLCONF="tests.hosts.translations.urls",
    FRISIAN_MCP={"REQUIRE_AUTHENTICATION": False, "TOOL_LAYOUT": "flat"},
)
def test_a_query_argument_that_takes_one_value_takes_a_list_of_one() -> None:
    """An action's own query parameter (``q``, declared one string)."""
    from tests.hosts.translations.models import Project, Translation, Unit

    project = Project.objects.create(slug="weather")
    translation = Translation.objects.create(project=project, language_code="fy")
    for source in ("rain", "sun", "more rain"):
        Unit.objects.create(translation=translation, source=source)
    mcp = MCPTestClient()
    mcp.initialize()
    arguments = {"id": translation.pk, "q": ["rain"]}
    page = mcp.call_tool("translations__units", arguments)["structuredContent"]
    url = f"/api/translations/{translation.pk}/units/?q=rain"
    expected = json.loads(Client().get(url).content)["results"]
    assert page["results"] == expected
    assert len(expected) == 2
