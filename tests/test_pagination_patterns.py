"""Host pagination classes and nested routes, compared with REST.

A host's list may page by limit/offset or by cursor, or not at all; a tool
pages the same way whatever the host chose (``page``, ``page_size``,
``continuation_token``). A nested route (``/publishers/{pk}/books/``, as
drf-nested-routers makes) scopes the rows by its path variable: its filter
set, the filters its instances add, and a parent lookup at schema time.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import django_filters
import pytest
from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from django.test import Client, override_settings
from django.urls import include, path
from rest_framework import pagination, viewsets

from frisian_mcp.contrib.testing import MCPTestClient
from tests.testapp.models import Publisher
from tests.testapp.serializers import PublisherSerializer

pytestmark = pytest.mark.django_db


class LimitOffsetPublishers(viewsets.ModelViewSet[Publisher]):
    queryset = Publisher.objects.order_by("name")
    serializer_class = PublisherSerializer
    pagination_class = pagination.LimitOffsetPagination


class Cursor(pagination.CursorPagination):
    ordering = "name"
    page_size = 2


class CursorPublishers(viewsets.ReadOnlyModelViewSet[Publisher]):
    queryset = Publisher.objects.all()
    serializer_class = PublisherSerializer
    pagination_class = Cursor


class UnpagedPublishers(viewsets.ReadOnlyModelViewSet[Publisher]):
    queryset = Publisher.objects.order_by("name")
    serializer_class = PublisherSerializer
    pagination_class = None


class CountryPublishers(viewsets.ModelViewSet[Publisher]):
    """Publishers of one country: a nested route's path variable scopes them."""

    serializer_class = PublisherSerializer
    filterset_fields = ("name",)

    def get_queryset(self) -> QuerySet[Publisher]:
        return Publisher.objects.filter(country=self.kwargs["country"]).order_by("pk")

    def perform_create(self, serializer: Any) -> None:
        serializer.save(country=self.kwargs["country"])


class ParentCheckingPublishers(viewsets.ReadOnlyModelViewSet[Publisher]):
    """A nested view that looks its parent row up (``get_object_or_404``)."""

    serializer_class = PublisherSerializer
    filterset_fields = ("name",)

    def get_queryset(self) -> QuerySet[Publisher]:
        parent = get_object_or_404(Publisher, pk=self.kwargs["publisher_pk"])
        return Publisher.objects.filter(country=parent.country).order_by("pk")


class CodeFilters(django_filters.FilterSet):  # type: ignore[misc]
    """A filter per code among the rows in scope, added per instance, as
    custom-field filter sets add one per field an object type has."""

    class Meta:
        model = Publisher
        fields = ("name",)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for code in self.queryset.exclude(code=None).values_list("code", flat=True):
            self.filters[f"code_{code}"] = django_filters.CharFilter(field_name="name")


class GrowingCountryPublishers(CountryPublishers):
    filterset_class = CodeFilters


urlpatterns = [
    path("mcp", include("frisian_mcp.urls")),
    path(
        "api/limit-offset/",
        LimitOffsetPublishers.as_view({"get": "list", "post": "create"}),
    ),
    path("api/cursor/", CursorPublishers.as_view({"get": "list"})),
    path("api/unpaged/", UnpagedPublishers.as_view({"get": "list"})),
    path(
        "api/countries/<str:country>/publishers/",
        CountryPublishers.as_view({"get": "list", "post": "create"}),
    ),
    path(
        "api/publishers/<int:publisher_pk>/peers/",
        ParentCheckingPublishers.as_view({"get": "list"}),
    ),
    path(
        "api/growing/<str:country>/publishers/",
        GrowingCountryPublishers.as_view({"get": "list"}),
    ),
]


@pytest.fixture(autouse=True)
def _urls() -> Iterator[None]:
    with override_settings(
        ROOT_URLCONF=__name__,
        FRISIAN_MCP={"REQUIRE_AUTHENTICATION": False, "TOOL_LAYOUT": "flat"},
    ):
        yield


@pytest.fixture
def publishers() -> list[Publisher]:
    # Ids from 101: no row answers a schema's placeholder path value ("1").
    return [
        Publisher.objects.create(pk=101 + i, name=name, country=country)
        for i, (name, country) in enumerate(
            [
                ("Alpha", "NL"),
                ("Beta", "NL"),
                ("Gamma", "DE"),
                ("Delta", "NL"),
                ("Epsilon", "FR"),
            ]
        )
    ]


@pytest.fixture
def mcp() -> MCPTestClient:
    client = MCPTestClient()
    client.initialize()
    return client


def names(rows: list[dict[str, Any]]) -> list[str]:
    return [row["name"] for row in rows]


def tool_names(mcp: MCPTestClient) -> set[str]:
    return {tool["name"] for tool in mcp.list_tools()}


def test_every_host_pagination_pages_the_same_way(
    mcp: MCPTestClient, publishers: list[Publisher]
) -> None:
    everyone = ["Alpha", "Beta", "Delta", "Epsilon", "Gamma"]
    for kind in ("limit-offset", "cursor", "unpaged"):
        name = f"{kind}__list"
        assert name in tool_names(mcp), (kind, tool_names(mcp))
        first = mcp.call_tool(name, {"page_size": 2})["structuredContent"]
        assert names(first["results"]) == everyone[:2], kind
        assert first["count"] == 5, kind
        rest = mcp.call_tool(name, {"continuation_token": first["next_token"]})
        assert names(rest["structuredContent"]["results"]) == everyone[2:4], kind


def test_a_limit_offset_page_equals_rest(
    mcp: MCPTestClient, publishers: list[Publisher]
) -> None:
    over_rest = json.loads(
        Client().get("/api/limit-offset/", {"limit": 2, "offset": 2}).content
    )
    over_mcp = mcp.call_tool("limit-offset__list", {"page": 2, "page_size": 2})
    assert over_mcp["structuredContent"]["results"] == over_rest["results"]
    assert over_mcp["structuredContent"]["count"] == over_rest["count"]


def test_a_nested_route_scopes_by_its_path_variable(
    mcp: MCPTestClient, publishers: list[Publisher]
) -> None:
    listed = mcp.call_tool("countries__publishers__list", {"country": "NL"})
    rest = json.loads(Client().get("/api/countries/NL/publishers/").content)
    assert listed["structuredContent"]["results"] == rest["results"]
    assert names(rest["results"]) == ["Alpha", "Beta", "Delta"]
    created = mcp.call_tool(
        "countries__publishers__create", {"country": "DE", "name": "Zeta"}
    )
    assert created["structuredContent"]["country"] == "DE"
    assert Publisher.objects.get(name="Zeta").country == "DE"


def test_a_nested_route_keeps_its_filter_set(
    mcp: MCPTestClient, publishers: list[Publisher]
) -> None:
    """Its get_queryset reads the path variable: the schema's mock view has
    one, so django-filter's filters are listed and accepted, as over REST."""
    (listed,) = (
        t for t in mcp.list_tools() if t["name"] == "countries__publishers__list"
    )
    assert "name" in listed["inputSchema"]["properties"]["filters"]["properties"]
    over_mcp = mcp.call_tool(
        "countries__publishers__list", {"country": "NL", "filters": {"name": "Beta"}}
    )
    rest = json.loads(Client().get("/api/countries/NL/publishers/?name=Beta").content)
    assert over_mcp["structuredContent"]["results"] == rest["results"]
    assert names(rest["results"]) == ["Beta"]


def test_a_nested_route_that_looks_its_parent_up_still_lists(
    mcp: MCPTestClient, publishers: list[Publisher]
) -> None:
    """No row answers the schema's placeholder: the tool is still listed and
    called; only what needs a queryset at schema time is missing."""
    names_listed = tool_names(mcp)
    assert "publishers__peers__list" in names_listed
    alpha = publishers[0]
    over_mcp = mcp.call_tool("publishers__peers__list", {"publisher_pk": alpha.pk})
    rest = json.loads(Client().get(f"/api/publishers/{alpha.pk}/peers/").content)
    assert over_mcp["structuredContent"]["results"] == rest["results"]


def test_filters_a_nested_route_adds_per_instance_are_accepted(
    mcp: MCPTestClient, publishers: list[Publisher]
) -> None:
    """The instance is built for the call's own path values, as REST's is:
    the Dutch rows' code makes the filter."""
    Publisher.objects.filter(name="Beta").update(code="b1")
    over_mcp = mcp.call_tool(
        "growing__publishers__list", {"country": "NL", "filters": {"code_b1": "Beta"}}
    )
    rest = json.loads(Client().get("/api/growing/NL/publishers/?code_b1=Beta").content)
    assert over_mcp["structuredContent"]["results"] == rest["results"]
    assert names(rest["results"]) == ["Beta"]
