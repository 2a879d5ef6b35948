"""The argument guards (ADR 0002), through the wire: every rule and exemption.

Each rejection asserts the JSON-RPC code, ``error.data.code``, the fields the
message names, and that no row was written.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client, override_settings

from demo_project.contacts.models import Contact
from demo_project.dcim.models import Device, Site, Tag
from frisian_mcp.contrib.testing import MCPError, MCPTestClient, tool_error
from tests.testapp.models import Book, Publisher, Shelf

pytestmark = pytest.mark.django_db

DECLARED_CONTACT_FIELDS = ["email", "first_name", "last_name", "notes", "phone"]


def rejected(mcp: MCPTestClient, name: str, arguments: Any) -> MCPError:
    with pytest.raises(MCPError) as info:
        mcp.call_tool(name, arguments)
    assert info.value.code == -32602
    return info.value


# -- ADR 007 validation cases ---------------------------------------------------


def test_flat_create_works_and_the_guard_stays_quiet(mcp: MCPTestClient) -> None:
    result = mcp.call_tool(
        "contacts__create", {"email": "agent@example.com", "first_name": "Agent"}
    )
    assert result["isError"] is False
    assert (
        Contact.objects.filter(email="agent@example.com", first_name="Agent").count()
        == 1
    )


def test_rest_style_data_wrapper_is_rejected_and_writes_nothing(
    mcp: MCPTestClient,
) -> None:
    error = rejected(
        mcp,
        "contacts__create",
        {"data": {"email": "agent@example.com", "first_name": "Agent"}},
    )
    assert error.data["code"] == "nested_wrapper"
    assert error.data["tool"] == "contacts__create"
    assert error.data["field"] == "data"
    assert error.data["wrapped_fields"] == ["email", "first_name"]
    assert error.data["declared_fields"] == DECLARED_CONTACT_FIELDS
    assert "'data'" in error.message
    assert "email, first_name" in error.message
    assert "last_name" in error.message
    assert "agent@example.com" not in error.response.content.decode()
    assert Contact.objects.count() == 0


def test_wrapper_next_to_flat_fields_is_rejected(mcp: MCPTestClient) -> None:
    error = rejected(
        mcp,
        "contacts__create",
        {
            "email": "agent@example.com",
            "first_name": "Agent",
            "data": {"notes": "nested"},
        },
    )
    assert error.data["code"] == "nested_wrapper"
    assert error.data["wrapped_fields"] == ["notes"]
    assert Contact.objects.count() == 0


def test_wrapper_under_any_name_is_rejected(mcp: MCPTestClient) -> None:
    error = rejected(mcp, "contacts__create", {"payload": {"email": "a@example.com"}})
    assert error.data["code"] == "nested_wrapper"
    assert error.data["field"] == "payload"
    assert Contact.objects.count() == 0


def test_wrapper_sent_as_json_text_is_rejected(mcp: MCPTestClient) -> None:
    error = rejected(
        mcp, "contacts__create", {"data": json.dumps({"email": "a@example.com"})}
    )
    assert error.data["code"] == "nested_wrapper"
    assert Contact.objects.count() == 0


def test_wrapper_on_update_tools_too(mcp: MCPTestClient) -> None:
    contact = Contact.objects.create(email="a@example.com")
    error = rejected(
        mcp,
        "contacts__partial_update",
        {"id": str(contact.pk), "data": {"email": "b@example.com"}},
    )
    assert error.data["code"] == "nested_wrapper"
    contact.refresh_from_db()
    assert contact.email == "a@example.com"


def test_wrapped_required_fields_are_not_reported_missing(
    mcp: MCPTestClient, demo_data: None
) -> None:
    site = Site.objects.first()
    assert site is not None
    error = rejected(
        mcp, "dcim__devices__create", {"data": {"name": "x", "site": site.pk}}
    )
    assert error.data["code"] == "nested_wrapper"
    assert {f["field"] for f in error.data["fields"]} == {"data"}


def test_bulk_objects_body_creates_every_row(mcp: MCPTestClient) -> None:
    items = [{"email": f"user{i}@example.com", "first_name": f"U{i}"} for i in range(3)]
    result = mcp.call_tool("contacts__create", {"objects": items})
    assert result["isError"] is False
    created = result["structuredContent"]
    assert created["created"] == 3
    assert [row["email"] for row in created["results"]] == [i["email"] for i in items]
    assert Contact.objects.count() == 3


def test_declared_fk_lookup_object_passes_the_guard(
    mcp: MCPTestClient, demo_data: None
) -> None:
    result = mcp.call_tool(
        "dcim__devices__create", {"name": "hq-new-01", "site": {"name": "hq-1"}}
    )
    assert result["isError"] is False
    device = Device.objects.get(name="hq-new-01")
    assert device.site.name == "hq-1"


# -- unknown keys ---------------------------------------------------------------


def test_typo_gets_did_you_mean_and_writes_nothing(mcp: MCPTestClient) -> None:
    error = rejected(
        mcp, "contacts__create", {"emial": "a@example.com", "first_name": "A"}
    )
    assert error.data["code"] == "unknown_argument"
    assert error.data["suggestions"] == {"emial": "email"}
    assert error.data["fields"][0] == {
        "field": "emial",
        "code": "unknown_argument",
        "message": "is not a declared argument; did you mean 'email'?",
        "did_you_mean": "email",
    }
    assert "did you mean 'email'" in error.message.lower()
    assert Contact.objects.count() == 0


def test_unknown_key_with_unusual_name_is_not_echoed(mcp: MCPTestClient) -> None:
    key = "SENTINEL<script>" + "x" * 80
    error = rejected(mcp, "contacts__create", {key: 1, "email": "a@example.com"})
    assert error.data["code"] == "unknown_argument"
    assert "SENTINEL" not in error.response.content.decode()
    assert error.data["fields"][0]["field"] == "<key>"


def test_unknown_array_argument_is_rejected(mcp: MCPTestClient) -> None:
    error = rejected(
        mcp, "contacts__create", {"email": "a@example.com", "aliases": ["x"]}
    )
    assert error.data["code"] == "unknown_argument"
    assert Contact.objects.count() == 0


def test_protocol_argument_on_the_wrong_tool_is_unknown(mcp: MCPTestClient) -> None:
    error = rejected(mcp, "contacts__create", {"email": "a@example.com", "page": 2})
    assert error.data["code"] == "unknown_argument"
    assert "protocol arguments" in error.message


# -- JSON strings (seed 003) -------------------------------------------------------


def test_json_array_string_is_parsed_where_an_array_is_declared(
    mcp: MCPTestClient, demo_data: None
) -> None:
    site, tags = (
        Site.objects.first(),
        list(Tag.objects.values_list("pk", flat=True)[:2]),
    )
    assert site is not None
    result = mcp.call_tool(
        "dcim__devices__create",
        {"name": "json-tags", "site": site.pk, "tags": json.dumps(tags)},
    )
    assert result["isError"] is False
    assert sorted(result["structuredContent"]["tags"]) == sorted(tags)


def test_json_object_string_is_parsed_for_filters_and_lookups(
    mcp: MCPTestClient, demo_data: None
) -> None:
    page = mcp.call_tool(
        "contacts__list", {"filters": json.dumps({"search": "Hopper"})}
    )
    assert page["structuredContent"]["count"] == 1
    result = mcp.call_tool(
        "dcim__devices__create", {"name": "json-site", "site": '{"slug": "hq-1"}'}
    )
    assert result["isError"] is False


def test_invalid_json_text_stays_an_error_naming_the_property(
    mcp: MCPTestClient, demo_data: None
) -> None:
    site = Site.objects.first()
    assert site is not None
    before = Device.objects.count()
    error = rejected(
        mcp, "dcim__devices__create", {"name": "bad", "site": site.pk, "tags": "[1, 2"}
    )
    assert error.data["fields"][0]["field"] == "tags"
    error = rejected(
        mcp,
        "dcim__devices__create",
        {"name": "bad", "site": site.pk, "tags": '{"a": 1}'},
    )
    assert error.data["fields"][0]["field"] == "tags"
    assert Device.objects.count() == before


def test_numeric_string_id_is_not_parsed(mcp: MCPTestClient, demo_data: None) -> None:
    site = Site.objects.first()
    assert site is not None
    result = mcp.call_tool(
        "dcim__devices__create", {"name": "str-id", "site": str(site.pk)}
    )
    assert result["structuredContent"]["site"] == site.pk


# -- empty writes -----------------------------------------------------------------


@pytest.mark.parametrize(
    "arguments",
    [
        {"first_name": " "},
        {"email": "", "notes": "\n"},
        {"phone": "", "last_name": "  "},
    ],
)
def test_create_with_only_blank_values_is_an_empty_write(
    mcp: MCPTestClient, arguments: dict[str, Any]
) -> None:
    error = rejected(mcp, "contacts__create", arguments)
    assert error.data["code"] == "empty_write"
    assert "Every field sent" in error.message
    assert Contact.objects.count() == 0


def test_create_without_any_field_is_an_empty_write(mcp: MCPTestClient) -> None:
    error = rejected(mcp, "contacts__create", {})
    assert error.data["code"] == "empty_write"
    assert error.data["declared_fields"] == [
        "email",
        "first_name",
        "last_name",
        "phone",
        "notes",
    ]
    assert Contact.objects.count() == 0


# -- bulk bodies ------------------------------------------------------------------


@pytest.mark.parametrize("key", ["objects", "data", "items", "_items", "body"])
def test_every_bulk_key_works(mcp: MCPTestClient, key: str) -> None:
    result = mcp.call_tool(
        "contacts__create",
        {key: [{"email": "a@example.com"}, {"email": "b@example.com"}]},
    )
    assert result["structuredContent"]["created"] == 2
    assert Contact.objects.count() == 2


def test_bulk_body_as_json_text(mcp: MCPTestClient) -> None:
    result = mcp.call_tool(
        "contacts__create", {"objects": json.dumps([{"email": "a@example.com"}])}
    )
    assert result["structuredContent"]["created"] == 1


def test_one_bad_item_writes_nothing_and_names_the_index(mcp: MCPTestClient) -> None:
    items = [
        {"email": "ok@example.com"},
        {"data": {"email": "x@example.com"}},
        {"emial": "y@example.com"},
    ]
    error = rejected(mcp, "contacts__create", {"objects": items})
    assert error.data["failed_items"] == [1, 2]
    by_index = {f["index"]: f for f in error.data["fields"]}
    assert by_index[1]["code"] == "nested_wrapper"
    assert by_index[2]["code"] == "unknown_argument"
    assert Contact.objects.count() == 0


def test_serializer_rejection_of_one_item_rolls_back_all(mcp: MCPTestClient) -> None:
    items = [
        {"email": "ok@example.com"},
        {"email": "ok2@example.com"},
        {"email": "SENTINEL-not-an-email"},
    ]
    error = rejected(mcp, "contacts__create", {"objects": items})
    assert error.data["code"] == "validation_failed"
    assert error.data["fields"] == [
        {
            "index": 2,
            "field": "email",
            "code": "invalid",
            "message": "Enter a valid email address.",
        }
    ]
    assert "SENTINEL" not in error.response.content.decode()
    assert Contact.objects.count() == 0


def test_empty_item_in_bulk_is_an_empty_write(mcp: MCPTestClient) -> None:
    error = rejected(
        mcp, "contacts__create", {"objects": [{"email": "a@example.com"}, {}]}
    )
    assert error.data["code"] == "empty_write"
    assert error.data["fields"][0]["index"] == 1
    assert Contact.objects.count() == 0


@pytest.mark.parametrize(
    ("arguments", "fragment"),
    [
        ({"objects": []}, "empty"),
        ({"objects": [1, 2]}, "must be an object"),
        ({"objects": [{"email": "a@example.com"}, "x"]}, "must be an object"),
        (
            {"objects": [{"email": "a@example.com"}], "email": "b@example.com"},
            "only argument",
        ),
    ],
)
def test_invalid_bulk_bodies(
    mcp: MCPTestClient, arguments: dict[str, Any], fragment: str
) -> None:
    error = rejected(mcp, "contacts__create", arguments)
    assert error.data["code"] == "invalid_bulk_body"
    assert fragment in error.message
    assert Contact.objects.count() == 0


def test_bulk_body_on_a_non_create_tool_is_rejected(mcp: MCPTestClient) -> None:
    contact = Contact.objects.create(email="a@example.com")
    error = rejected(
        mcp,
        "contacts__update",
        {"objects": [{"id": str(contact.pk), "email": "b@example.com"}]},
    )
    assert error.data["code"] == "invalid_bulk_body"
    error = rejected(mcp, "contacts__list", {"items": [{"a": 1}]})
    assert error.data["code"] == "invalid_bulk_body"
    contact.refresh_from_db()
    assert contact.email == "a@example.com"


def test_large_bulk_returns_ids_in_input_order(mcp: MCPTestClient) -> None:
    items = [{"email": f"u{i:03d}@example.com"} for i in range(120)]
    created = mcp.call_tool("contacts__create", {"objects": items})["structuredContent"]
    assert created["created"] == 120
    assert "results" not in created
    emails = dict(Contact.objects.values_list("pk", "email"))
    assert [emails[__import__("uuid").UUID(i)] for i in created["ids"]] == [
        i["email"] for i in items
    ]


def test_bulk_with_lookup_objects_per_item(mcp: MCPTestClient, demo_data: None) -> None:
    items = [
        {"name": "bulk-1", "site": {"slug": "hq-1"}, "tags": [{"slug": "core"}]},
        {"name": "bulk-2", "site": {"name": "London Edge"}},
    ]
    result = mcp.call_tool("dcim__devices__create", {"objects": items})
    assert result["structuredContent"]["created"] == 2
    assert Device.objects.get(name="bulk-1").site.slug == "hq-1"
    assert list(
        Device.objects.get(name="bulk-1").tags.values_list("slug", flat=True)
    ) == ["core"]


def test_bulk_lookup_failure_names_the_item(
    mcp: MCPTestClient, demo_data: None
) -> None:
    before = Device.objects.count()
    items = [
        {"name": "bulk-1", "site": {"slug": "hq-1"}},
        {"name": "bulk-2", "site": {"slug": "SENTINEL-nope"}},
    ]
    error = rejected(mcp, "dcim__devices__create", {"objects": items})
    assert error.data["code"] == "invalid_reference"
    assert error.data["fields"][0]["index"] == 1
    assert "SENTINEL" not in error.response.content.decode()
    assert Device.objects.count() == before


def test_bulk_unique_clash_inside_the_batch_rolls_back(mcp: MCPTestClient) -> None:
    result_or_error: Any
    try:
        result_or_error = mcp.call_tool(
            "testapp__publishers__create",
            {"objects": [{"name": "Ace"}, {"name": "Ace"}]},
        )
    except MCPError as exc:
        result_or_error = exc
    if isinstance(result_or_error, MCPError):
        assert result_or_error.data["code"] == "validation_failed"
    else:
        assert tool_error(result_or_error)["code"] == "conflict"
    assert Publisher.objects.count() == 0


def test_bulk_on_a_view_with_custom_create_goes_item_by_item(
    mcp: MCPTestClient,
) -> None:
    result = mcp.call_tool(
        "testapp__audited-publishers__create",
        {"objects": [{"name": "A"}, {"name": "B"}]},
    )
    assert [row["audited"] for row in result["structuredContent"]["results"]] == [
        True,
        True,
    ]
    error = rejected(
        mcp,
        "testapp__audited-publishers__create",
        {"objects": [{"name": "C"}, {"name": "A"}]},
    )
    assert error.data["fields"][0]["index"] == 1
    assert error.data["fields"][0]["code"] == "unique"
    assert sorted(Publisher.objects.values_list("name", flat=True)) == ["A", "B"]


# -- foreign keys -----------------------------------------------------------------


def test_lookup_by_each_unique_field(mcp: MCPTestClient, demo_data: None) -> None:
    site = Site.objects.get(slug="hq-1")
    for lookup in (
        {"id": site.pk},
        {"name": "hq-1"},
        {"slug": "hq-1"},
        {"name": "hq-1", "slug": "hq-1"},
    ):
        result = mcp.call_tool(
            "dcim__devices__create",
            {"name": f"fk-{len(lookup)}-{next(iter(lookup))}", "site": lookup},
        )
        assert result["structuredContent"]["site"] == site.pk


def test_many_to_many_mixes_ids_and_lookups(
    mcp: MCPTestClient, demo_data: None
) -> None:
    core, edge = Tag.objects.get(slug="core"), Tag.objects.get(slug="edge")
    result = mcp.call_tool(
        "dcim__devices__create",
        {"name": "m2m", "site": {"slug": "hq-1"}, "tags": [core.pk, {"name": "edge"}]},
    )
    assert sorted(result["structuredContent"]["tags"]) == sorted([core.pk, edge.pk])


def test_lookup_on_partial_update(mcp: MCPTestClient, demo_data: None) -> None:
    device = Device.objects.exclude(site__slug="hq-1").first()
    assert device is not None
    mcp.call_tool(
        "dcim__devices__partial_update", {"id": device.pk, "site": {"slug": "hq-1"}}
    )
    device.refresh_from_db()
    assert device.site.slug == "hq-1"


@pytest.mark.parametrize(
    "lookup",
    [
        {"description": "Headquarters lab"},
        {"name__startswith": "hq"},
        {"name": "hq-1", "pk__gt": 0},
        {},
    ],
)
def test_lookup_on_non_unique_field_or_with_operators_is_refused(
    mcp: MCPTestClient, demo_data: None, lookup: dict[str, Any]
) -> None:
    before = Device.objects.count()
    error = rejected(mcp, "dcim__devices__create", {"name": "nope", "site": lookup})
    assert error.data["code"] == "invalid_reference"
    (entry,) = error.data["fields"]
    assert entry["field"] == "site"
    assert entry["lookup_fields"] == ["id", "name", "slug"]
    assert "Headquarters" not in error.response.content.decode()
    assert Device.objects.count() == before


def test_lookup_without_a_match_is_refused_without_echo(
    mcp: MCPTestClient, demo_data: None
) -> None:
    before = Device.objects.count()
    error = rejected(
        mcp,
        "dcim__devices__create",
        {"name": "nope", "site": {"name": "SENTINEL-site"}},
    )
    assert error.data["code"] == "invalid_reference"
    assert "matches no site" in error.message
    assert "SENTINEL" not in error.response.content.decode()
    assert Device.objects.count() == before


def test_lookup_matching_several_rows_is_refused(mcp: MCPTestClient) -> None:
    Publisher.objects.create(name="A")
    Publisher.objects.create(name="B")
    error = rejected(
        mcp,
        "testapp__books__create",
        {"title": "T", "isbn": "1", "publisher": {"code": None}},
    )
    assert error.data["code"] == "invalid_reference"
    assert "several publishers" in error.message
    assert Book.objects.count() == 0


def test_lookup_values_of_the_wrong_type(mcp: MCPTestClient, demo_data: None) -> None:
    error = rejected(
        mcp, "dcim__devices__create", {"name": "nope", "site": {"id": "abc"}}
    )
    assert error.data["code"] == "invalid_reference"


def test_unique_together_lookup_needs_the_whole_set(mcp: MCPTestClient) -> None:
    Shelf.objects.create(room="A", number=1)
    shelf = Shelf.objects.create(room="A", number=2)
    error = rejected(
        mcp, "testapp__shelf-labels__create", {"text": "x", "shelf": {"room": "A"}}
    )
    assert error.data["code"] == "invalid_reference"
    assert "(room + number)" in error.data["fields"][0]["message"]
    result = mcp.call_tool(
        "testapp__shelf-labels__create",
        {"text": "x", "shelf": {"room": "A", "number": 2}},
    )
    assert result["structuredContent"]["shelf"] == shelf.pk


def test_slug_related_field_gets_the_slug(mcp: MCPTestClient) -> None:
    book = Book.objects.create(title="T", isbn="1")
    result = mcp.call_tool(
        "testapp__shelves__create",
        {"room": "B", "number": 1, "books": [{"id": book.pk}]},
    )
    assert result["structuredContent"]["books"] == ["1"]
    assert Shelf.objects.get(room="B").books.get() == book


def test_lookup_goes_through_the_fields_own_queryset(mcp: MCPTestClient) -> None:
    Book.objects.create(title="Gone", isbn="999", in_print=False)
    error = rejected(
        mcp,
        "testapp__shelves__create",
        {"room": "C", "number": 1, "books": [{"isbn": "999"}]},
    )
    assert error.data["code"] == "invalid_reference"
    assert error.data["fields"][0]["field"] == "books[0]"
    assert not Shelf.objects.filter(room="C").exists()


@override_settings(
    FRISIAN_MCP={"REQUIRE_AUTHENTICATION": False, "FILTER_TOOLS_BY_PERMISSION": False}
)
def test_lookup_is_not_resolved_before_permissions_pass(client: Client) -> None:
    # With tool filtering off the hidden tool is callable, and the viewset's
    # permission check must still run before any related object is looked up.
    Book.objects.create(title="T", isbn="1")
    mcp = MCPTestClient(client)
    mcp.initialize()
    result = mcp.call_tool(
        "testapp__private-shelves__create",
        {"room": "X", "number": 1, "books": [{"isbn": "NOPE"}]},
    )
    assert result["isError"] is True
    assert tool_error(result)["code"] in (
        "not_authenticated",
        "permission_denied",
    )
    user = User.objects.create_user("reader", password="pw")
    client.force_login(user)
    error = rejected(
        mcp,
        "testapp__private-shelves__create",
        {"room": "X", "number": 1, "books": [{"isbn": "NOPE"}]},
    )
    assert error.data["code"] == "invalid_reference"


def test_native_lookup_field_receives_the_object_untouched(
    mcp: MCPTestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.testapp import serializers as app_serializers
    from tests.testapp.views import BookViewSet

    publisher = Publisher.objects.create(name="Ace", country="US")
    monkeypatch.setattr(
        BookViewSet, "serializer_class", app_serializers.NativeBookSerializer
    )
    from frisian_mcp.registry import reset_registry

    reset_registry()
    result = mcp.call_tool(
        "testapp__books__create",
        {"title": "T", "isbn": "1", "publisher": {"country": "US"}},
    )
    assert result["isError"] is False
    assert Book.objects.get().publisher == publisher


@pytest.mark.parametrize(
    ("lookup", "problem"),
    [
        ({"name": "Ace"}, None),
        ({"name": "SENTINEL"}, "matches no publisher you can see"),
        ({"country": "US"}, "lookup keys: id, name, code"),
    ],
)
def test_subclass_of_a_pk_field_gets_lookups_resolved_to_its_id(
    mcp: MCPTestClient,
    monkeypatch: pytest.MonkeyPatch,
    lookup: dict[str, Any],
    problem: str | None,
) -> None:
    # Overriding to_internal_value keeps the field's id form: the lookup
    # object is resolved here, never handed to a field that wants an id.
    from frisian_mcp.registry import reset_registry
    from tests.testapp import serializers as app_serializers
    from tests.testapp.views import BookViewSet

    publisher = Publisher.objects.create(name="Ace", country="US")
    monkeypatch.setattr(
        BookViewSet, "serializer_class", app_serializers.CheckedBookSerializer
    )
    reset_registry()
    arguments = {"title": "T", "isbn": "1", "publisher": lookup}
    if problem is None:
        result = mcp.call_tool("testapp__books__create", arguments)
        assert result["structuredContent"]["publisher"] == publisher.pk
        return
    error = rejected(mcp, "testapp__books__create", arguments)
    assert error.data["code"] == "invalid_reference"
    assert problem in error.data["fields"][0]["message"]
    assert "SENTINEL" not in error.response.content.decode()
    assert not Book.objects.exists()


# -- DRF messages and the error style ----------------------------------------------


def test_custom_validator_message_quoting_the_value_is_redacted(
    mcp: MCPTestClient,
) -> None:
    error = rejected(mcp, "testapp__publishers__create", {"name": "P", "country": "zz"})
    (entry,) = error.data["fields"]
    assert entry["field"] == "country"
    assert "zz" not in error.response.content.decode()
    assert entry["message"] == "<value> is not an upper-case country code."


@override_settings(
    FRISIAN_MCP={"REQUIRE_AUTHENTICATION": False, "INPUT_ERROR_STYLE": "tool_result"}
)
def test_tool_result_error_style_carries_the_same_payload() -> None:
    mcp = MCPTestClient()
    mcp.initialize()
    result = mcp.call_tool("contacts__create", {"data": {"email": "a@example.com"}})
    assert result["isError"] is True
    error = tool_error(result)
    assert error["code"] == "nested_wrapper"
    assert error["tool"] == "contacts__create"
    assert error["field"] == "data"
    assert error["recoverable"] is True
    assert "REST-style wrapper" in error["message"]
    assert json.loads(result["content"][0]["text"]) == result["structuredContent"]
    assert Contact.objects.count() == 0


SENTINEL = "SENTINEL9d2f"
SENTINEL_CALLS = [
    ("contacts__create", {"first_name": SENTINEL * 10}),
    ("contacts__create", {"data": {"email": SENTINEL}}),
    ("contacts__create", {"emial": SENTINEL}),
    ("contacts__create", {"email": SENTINEL}),
    (
        "contacts__create",
        {"objects": [{"email": "a@example.com"}, {"email": SENTINEL}]},
    ),
    # Key names are echoed only when they are plain identifiers (DESIGN §8).
    ("contacts__create", {"objects": [{"notes": SENTINEL}, {SENTINEL + "!": 1}]}),
    ("dcim__devices__create", {"name": "n", "site": {"name": SENTINEL}}),
    (
        "dcim__devices__create",
        {"name": "n", "site": {"slug": "hq-1"}, "status": SENTINEL},
    ),
    ("dcim__devices__create", {"name": "n", "site": 1, "tags": [SENTINEL]}),
    ("testapp__publishers__create", {"name": "P", "country": "zq"}),
    ("contacts__retrieve", {"id": SENTINEL}),
    ("contacts__list", {"filters": {"search": 5, SENTINEL + "-x": 1}}),
]


@pytest.mark.parametrize("style", ["jsonrpc", "tool_result"])
@pytest.mark.parametrize(("name", "arguments"), SENTINEL_CALLS)
def test_no_error_path_echoes_a_caller_value(
    demo_data: None, style: str, name: str, arguments: dict[str, Any]
) -> None:
    with override_settings(
        FRISIAN_MCP={"REQUIRE_AUTHENTICATION": False, "INPUT_ERROR_STYLE": style}
    ):
        mcp = MCPTestClient()
        mcp.initialize()
        before = (
            Contact.objects.count(),
            Device.objects.count(),
            Publisher.objects.count(),
        )
        response = mcp.post(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {"name": name, "arguments": arguments},
            }
        )
    text = response.content.decode()
    body = json.loads(text)
    assert "error" in body or body["result"]["isError"] is True
    assert SENTINEL not in text
    assert "zq" not in text
    assert (
        Contact.objects.count(),
        Device.objects.count(),
        Publisher.objects.count(),
    ) == before
