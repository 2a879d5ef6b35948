"""tools/call round trips that read and write the database through DRF."""

from __future__ import annotations

import datetime
import json
from decimal import Decimal
from typing import Any

import pytest
from django.test import override_settings
from django.utils.translation import gettext_lazy
from rest_framework.response import Response

from demo_project.contacts.models import Contact
from demo_project.dcim.models import Device, Site
from frisian_mcp.contrib.testing import MCPError, MCPTestClient, tool_error
from tests.testapp.models import Book, Publisher
from tests.testapp.views import StatsView

pytestmark = pytest.mark.django_db


def structured(result: dict[str, Any]) -> dict[str, Any]:
    assert result["isError"] is False, result
    data: dict[str, Any] = result["structuredContent"]
    return data


def test_contact_crud_round_trip(mcp: MCPTestClient) -> None:
    created = structured(
        mcp.call_tool(
            "contacts__create", {"email": "ada@example.com", "first_name": "Ada"}
        )
    )
    assert Contact.objects.filter(
        pk=created["id"], email="ada@example.com", first_name="Ada"
    ).exists()
    assert (
        structured(mcp.call_tool("contacts__retrieve", {"id": created["id"]}))["email"]
        == "ada@example.com"
    )
    patched = structured(
        mcp.call_tool(
            "contacts__partial_update", {"id": created["id"], "last_name": "Lovelace"}
        )
    )
    assert patched["first_name"] == "Ada"
    assert patched["last_name"] == "Lovelace"
    replaced = structured(
        mcp.call_tool(
            "contacts__update", {"id": created["id"], "email": "ada@new.example"}
        )
    )
    assert replaced["email"] == "ada@new.example"
    assert (
        replaced["first_name"] == "Ada"
    )  # as over REST: PUT leaves omitted optional fields
    assert structured(mcp.call_tool("contacts__destroy", {"id": created["id"]})) == {
        "deleted": True
    }
    assert not Contact.objects.filter(pk=created["id"]).exists()


def test_result_has_text_content_with_the_same_json(mcp: MCPTestClient) -> None:
    import json

    result = mcp.call_tool("contacts__create", {"email": "grace@example.com"})
    assert result["content"][0]["type"] == "text"
    assert json.loads(result["content"][0]["text"]) == result["structuredContent"]


def test_missing_object_is_not_found_tool_error(mcp: MCPTestClient) -> None:
    result = mcp.call_tool(
        "contacts__retrieve", {"id": "00000000-0000-4000-8000-000000000000"}
    )
    assert result["isError"] is True
    error = tool_error(result)
    assert error["code"] == "not_found"
    assert error["recoverable"] is True
    assert error["tool"] == "contacts__retrieve"
    assert "00000000" not in result["content"][0]["text"]


@pytest.mark.parametrize(
    ("tool_name", "key", "template"),
    [
        ("contacts__retrieve", "id", "../dcim/sites/{pk}"),
        ("testapp__books-by-title__retrieve", "title", "x/../../../dcim/sites/{pk}"),
        ("dcim__sites__retrieve", "id", 10**12),
    ],
)
def test_lookup_value_that_escapes_the_url_pattern_is_not_found(
    mcp: MCPTestClient, demo_data: None, tool_name: str, key: str, template: Any
) -> None:
    # Spliced into the path unescaped, the value would lead to this site.
    site = Site.objects.first()
    assert site is not None
    value = template.format(pk=site.pk) if isinstance(template, str) else template
    result = mcp.call_tool(tool_name, {key: value})
    assert result["isError"] is True, result
    assert tool_error(result)["code"] == "not_found"
    assert site.name not in result["content"][0]["text"]


def test_schema_violation_reports_every_field_without_values(
    mcp: MCPTestClient, demo_data: None
) -> None:
    before = Device.objects.count()
    with pytest.raises(MCPError) as info:
        mcp.call_tool(
            "dcim__devices__create",
            {"name": 12345, "status": "SENTINEL-bogus", "serial": "x" * 60},
        )
    error = info.value
    assert error.code == -32602
    assert error.data["code"] == "invalid_argument"
    assert error.data["tool"] == "dcim__devices__create"
    by_field = {f["field"]: f for f in error.data["fields"]}
    assert by_field["name"]["code"] == "invalid_type"
    assert by_field["status"]["code"] == "invalid_choice"
    assert "active" in by_field["status"]["message"]
    assert by_field["serial"]["code"] == "max_length"
    assert by_field["site"]["code"] == "required"
    text = error.response.content.decode()
    assert "SENTINEL" not in text
    assert "12345" not in text
    assert "xxxxxxxxxx" not in text
    assert Device.objects.count() == before


def test_serializer_rejection_is_validation_failed_with_drf_codes(
    mcp: MCPTestClient, demo_data: None
) -> None:
    before = Contact.objects.count()
    with pytest.raises(MCPError) as info:
        mcp.call_tool("contacts__create", {"email": "SENTINEL-not-an-email"})
    error = info.value
    assert error.code == -32602
    assert error.data["code"] == "validation_failed"
    assert error.data["fields"] == [
        {"field": "email", "code": "invalid", "message": "Enter a valid email address."}
    ]
    assert "SENTINEL" not in error.response.content.decode()
    assert Contact.objects.count() == before


def test_drf_messages_that_quote_input_are_replaced(
    mcp: MCPTestClient, demo_data: None
) -> None:
    with pytest.raises(MCPError) as info:
        mcp.call_tool("dcim__devices__create", {"name": "d1", "site": 987654321})
    fields = info.value.data["fields"]
    assert fields[0]["field"] == "site"
    assert fields[0]["code"] == "does_not_exist"
    assert "987654321" not in info.value.response.content.decode()


def test_unique_rule_checked_by_the_serializer_is_validation_failed(
    mcp: MCPTestClient, demo_data: None
) -> None:
    site = Site.objects.get(slug="hq-1")
    taken = Device.objects.filter(site=site).first()
    assert taken is not None
    before = Device.objects.count()
    with pytest.raises(MCPError) as info:
        mcp.call_tool("dcim__devices__create", {"site": site.pk, "name": taken.name})
    assert info.value.data["fields"][0]["code"] == "unique"
    assert Device.objects.count() == before


def test_integrity_error_from_the_database_is_a_conflict_result(
    mcp: MCPTestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.testapp.views import PublisherViewSet

    Publisher.objects.create(name="Ace")

    def create_duplicate(self: Any, serializer: Any) -> None:
        Publisher.objects.create(name="Tor")
        Publisher.objects.create(name="Ace")

    monkeypatch.setattr(PublisherViewSet, "perform_create", create_duplicate)
    result = mcp.call_tool("testapp__publishers__create", {"name": "Tor"})
    assert result["isError"] is True
    assert tool_error(result)["code"] == "conflict"
    assert list(Publisher.objects.values_list("name", flat=True)) == ["Ace"]


def test_protected_delete_is_a_conflict_result(
    mcp: MCPTestClient, demo_data: None
) -> None:
    site = Site.objects.get(slug="hq-1")
    result = mcp.call_tool("dcim__sites__destroy", {"id": site.pk})
    assert result["isError"] is True
    assert tool_error(result)["code"] == "conflict"
    assert Site.objects.filter(pk=site.pk).exists()


def test_list_pages_and_counts(mcp: MCPTestClient, demo_data: None) -> None:
    page = structured(mcp.call_tool("contacts__list", {"page_size": 10}))
    assert page["count"] == Contact.objects.count()
    assert len(page["results"]) == 10
    assert page["page"] == 1
    assert page["page_size"] == 10
    assert page["has_more"] is True
    last = structured(mcp.call_tool("contacts__list", {"page_size": 10, "page": 3}))
    assert len(last["results"]) == Contact.objects.count() - 20
    assert last["has_more"] is False
    ids = {r["id"] for r in page["results"]} | {r["id"] for r in last["results"]}
    assert len(ids) == 10 + len(last["results"])


def test_list_default_page_size_comes_from_settings(
    mcp: MCPTestClient, demo_data: None
) -> None:
    with override_settings(
        FRISIAN_MCP={"REQUIRE_AUTHENTICATION": False, "PAGE_SIZE": 4}
    ):
        page = structured(mcp.call_tool("contacts__list", {}))
    assert len(page["results"]) == 4


def test_page_size_above_the_maximum_is_rejected(
    mcp: MCPTestClient, demo_data: None
) -> None:
    with pytest.raises(MCPError) as info:
        mcp.call_tool("contacts__list", {"page_size": 201})
    assert info.value.data["fields"][0] == {
        "field": "page_size",
        "code": "max_value",
        "message": "must be at most 200",
    }


def test_list_filters_go_through_the_viewsets_backends(
    mcp: MCPTestClient, demo_data: None
) -> None:
    site = Site.objects.get(slug="ams-dc1")
    page = structured(
        mcp.call_tool(
            "dcim__devices__list", {"filters": {"site": site.pk, "status": "active"}}
        )
    )
    expected = Device.objects.filter(site=site, status="active").count()
    assert page["count"] == expected
    assert all(
        row["site"] == site.pk and row["status"] == "active" for row in page["results"]
    )
    searched = structured(
        mcp.call_tool("contacts__list", {"filters": {"search": "Hopper"}})
    )
    assert [r["last_name"] for r in searched["results"]] == ["Hopper"]
    ordered = structured(
        mcp.call_tool("dcim__sites__list", {"filters": {"ordering": "-name"}})
    )
    names = [r["name"] for r in ordered["results"]]
    assert names == sorted(names, reverse=True)


def test_list_filter_with_many_values(mcp: MCPTestClient, demo_data: None) -> None:
    from demo_project.dcim.models import Tag

    core, edge = Tag.objects.get(slug="core"), Tag.objects.get(slug="edge")
    page = structured(
        mcp.call_tool(
            "dcim__devices__list",
            {"filters": {"tags": [core.pk, edge.pk]}, "page_size": 200},
        )
    )
    assert (
        page["count"] == Device.objects.filter(tags__in=[core, edge]).distinct().count()
    )


def test_undeclared_filter_key_is_rejected(mcp: MCPTestClient, demo_data: None) -> None:
    with pytest.raises(MCPError) as info:
        mcp.call_tool("contacts__list", {"filters": {"notes__icontains": "x"}})
    assert info.value.data["fields"][0]["code"] == "unknown_key"
    assert "search" in info.value.data["fields"][0]["message"]


def test_custom_detail_action_runs(mcp: MCPTestClient) -> None:
    book = Book.objects.create(title="Dune", isbn="9780441013593")
    result = structured(mcp.call_tool("testapp__books__retire", {"id": book.pk}))
    assert result["in_print"] is False
    book.refresh_from_db()
    assert book.in_print is False


def test_custom_list_action_result_is_wrapped_in_an_object(mcp: MCPTestClient) -> None:
    Book.objects.create(title="Dune", isbn="9780441013593")
    assert structured(mcp.call_tool("testapp__books__in_print", {})) == {
        "titles": ["Dune"]
    }


def test_generic_view_without_viewset_is_a_tool(mcp: MCPTestClient) -> None:
    Publisher.objects.create(name="Ace")
    assert structured(mcp.call_tool("testapp__stats__get", {})) == {
        "books": 0,
        "publishers": 1,
    }


def test_values_json_has_no_type_for_are_encoded_as_drf_would(
    mcp: MCPTestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A view's data goes out as it is when JSON has a type for every value;
    decimals, dates, lazy texts and non-text keys are made plain first."""

    def get(self: Any, request: Any) -> Response:
        return Response(
            {
                "books": Decimal("2"),
                "price": Decimal("2.50"),
                "day": datetime.date(2026, 11, 26),
                "label": gettext_lazy("Books"),
                "ids": (1, 2),
                "by_id": {3: "three"},
            }
        )

    monkeypatch.setattr(StatsView, "get", get)
    result = mcp.call_tool("testapp__stats__get", {})
    expected = {
        "books": 2,
        "price": 2.5,
        "day": "2026-11-26",
        "label": "Books",
        "ids": [1, 2],
        "by_id": {"3": "three"},
    }
    assert structured(result) == expected
    assert json.loads(result["content"][0]["text"]) == expected


def test_generic_view_with_custom_lookup_field(mcp: MCPTestClient) -> None:
    Book.objects.create(title="Dune", isbn="9780441013593")
    result = structured(
        mcp.call_tool("testapp__books-by-title__retrieve", {"title": "Dune"})
    )
    assert result["isbn"] == "9780441013593"


def test_decimal_and_date_values_round_trip(mcp: MCPTestClient) -> None:
    created = structured(
        mcp.call_tool(
            "testapp__books__create",
            {
                "title": "T",
                "isbn": "1",
                "price": "12.50",
                "published": "2020-02-29",
                "metadata": {"a": [1, 2]},
            },
        )
    )
    assert created["price"] == "12.50"
    assert created["published"] == "2020-02-29"
    assert created["metadata"] == {"a": [1, 2]}


# -- one view set-up per call (ADR 0007) --------------------------------------


@pytest.fixture
def view_setups(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every DRF ``Request`` a view builds for itself (one per view set-up)."""
    from rest_framework.views import APIView

    from frisian_mcp.views import MCPView

    built: list[str] = []
    original = APIView.initialize_request

    def counting(self: APIView, request: Any, *args: Any, **kwargs: Any) -> Any:
        if not isinstance(self, MCPView):  # the endpoint's own, not a view's
            built.append(type(self).__name__)
        return original(self, request, *args, **kwargs)

    monkeypatch.setattr(APIView, "initialize_request", counting)
    return built


@pytest.mark.parametrize(
    ("tool", "arguments", "is_error"),
    [
        ("contacts__create", {"email": "one@example.com"}, False),
        ("contacts__retrieve", {"id": "{pk}"}, False),
        ("contacts__partial_update", {"id": "{pk}", "last_name": "B"}, False),
        ("contacts__list", {"filters": {"email": "a@example.com"}}, False),
        ("contacts__destroy", {"id": "{pk}"}, False),
        ("contacts__retrieve", {"id": 999_999}, True),
        # An argument error is reported after the view found the object.
        ("contacts__partial_update", {"id": "{pk}", "email": "not-an-email"}, True),
        ("contacts__create", {"email": "one@example.com", "mode": "validate"}, False),
    ],
)
def test_a_call_sets_up_the_view_once(
    mcp: MCPTestClient,
    view_setups: list[str],
    tool: str,
    arguments: dict[str, Any],
    is_error: bool,
) -> None:
    contact = Contact.objects.create(email="a@example.com")
    arguments = {k: str(contact.pk) if v == "{pk}" else v for k, v in arguments.items()}
    mcp.list_tools()  # schemas are built once per process, not per call
    view_setups.clear()
    try:
        result = mcp.call_tool(tool, arguments)
        assert result["isError"] is is_error
    except MCPError:
        assert is_error
    assert view_setups == ["ContactViewSet"]
