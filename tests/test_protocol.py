"""Protocol arguments through the wire: help, mode, paging, tokens, projection."""

from __future__ import annotations

import time
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.core import signing
from django.test import Client, override_settings
from jsonschema import Draft202012Validator

from demo_project.contacts.models import Contact
from demo_project.dcim.models import Device, Site, Tag
from frisian_mcp import tokens
from frisian_mcp.contrib.testing import MCPError, MCPTestClient, tool_error
from frisian_mcp.registry import get_registry

pytestmark = pytest.mark.django_db


def ok(result: dict[str, Any]) -> dict[str, Any]:
    assert result["isError"] is False, result
    data: dict[str, Any] = result["structuredContent"]
    return data


def rejected(mcp: MCPTestClient, name: str, arguments: Any) -> MCPError:
    with pytest.raises(MCPError) as info:
        mcp.call_tool(name, arguments)
    assert info.value.code == -32602
    return info.value


# -- help -----------------------------------------------------------------------


def test_help_documents_the_tool_and_runs_nothing(
    mcp: MCPTestClient, demo_data: None
) -> None:
    before = Device.objects.count()
    doc = ok(mcp.call_tool("dcim__devices__create", {"help": True}))["help"]
    assert doc["tool"] == "dcim__devices__create"
    assert doc["kind"] == "create"
    arguments = {a["name"]: a for a in doc["arguments"]}
    assert arguments["name"]["required"] is True
    assert arguments["status"]["enum"] == [
        "active",
        "planned",
        "offline",
        "decommissioning",
    ]
    assert arguments["site"]["lookup_keys"] == [["id"], ["name"], ["slug"]]
    assert set(doc["protocol_arguments"]) == {"help", "mode"}
    assert "objects" in doc["bulk"]
    assert Device.objects.count() == before


def test_help_wins_over_invalid_arguments(mcp: MCPTestClient) -> None:
    doc = ok(
        mcp.call_tool("contacts__create", {"help": True, "data": {"x": 1}, "emial": 3})
    )["help"]
    assert doc["tool"] == "contacts__create"
    assert Contact.objects.count() == 0


def test_help_false_runs_the_tool(mcp: MCPTestClient) -> None:
    ok(mcp.call_tool("contacts__create", {"help": False, "email": "a@example.com"}))
    assert Contact.objects.count() == 1


def test_help_on_a_list_tool_lists_filters_and_fields(mcp: MCPTestClient) -> None:
    doc = ok(mcp.call_tool("dcim__devices__list", {"help": True}))["help"]
    assert set(doc["filters"]) == {"ordering", "search", "site", "status", "tags"}
    assert sorted(doc["filters"]["status"]["enum"]) == [
        "active",
        "decommissioning",
        "offline",
        "planned",
    ]
    assert doc["record_fields"] == ["id", "name", "site", "status", "serial", "tags"]
    assert set(doc["protocol_arguments"]) == {
        "help",
        "filters",
        "page",
        "page_size",
        "continuation_token",
        "filter_keys",
    }


def test_every_help_example_is_a_valid_call(
    mcp: MCPTestClient, demo_data: None
) -> None:
    tools = mcp.list_tools()
    assert len(tools) > 50
    refused: dict[str, Any] = {}
    for tool in tools:
        doc = ok(mcp.call_tool(tool["name"], {"help": True}))["help"]
        example = doc["example"]
        assert example["name"] == tool["name"]
        Draft202012Validator(tool["inputSchema"]).validate(example["arguments"])
        arguments = dict(example["arguments"])
        if "mode" in doc["protocol_arguments"]:
            arguments["mode"] = "validate"
        try:
            mcp.call_tool(tool["name"], arguments)  # isError (not found) is fine
        except MCPError as error:
            # The placeholder id of a reference may name no row here; any
            # other refusal means the example is no valid call.
            fields = error.data.get("fields", []) if error.code == -32602 else []
            if {field["code"] for field in fields} != {"does_not_exist"}:
                refused[tool["name"]] = (error.code, error.data)
    assert refused == {}


# -- mode: validate -------------------------------------------------------------------


def test_validate_create_reports_without_writing(
    mcp: MCPTestClient, demo_data: None
) -> None:
    before = Device.objects.count()
    site = Site.objects.get(slug="hq-1")
    report = ok(
        mcp.call_tool(
            "dcim__devices__create",
            {
                "mode": "validate",
                "name": "v1",
                "site": {"slug": "hq-1"},
                "tags": [{"slug": "core"}],
            },
        )
    )
    validation = report["validation"]
    assert validation["valid"] is True
    assert validation["action"] == "create"
    assert validation["written"] is False
    assert validation["data"]["site"] == site.pk
    assert validation["data"]["tags"] == [Tag.objects.get(slug="core").pk]
    assert Device.objects.count() == before


def test_validate_reports_the_same_errors_as_execute(mcp: MCPTestClient) -> None:
    error = rejected(
        mcp, "contacts__create", {"mode": "validate", "email": "not-an-email"}
    )
    assert error.data["code"] == "validation_failed"
    error = rejected(
        mcp,
        "contacts__create",
        {"mode": "validate", "data": {"email": "a@example.com"}},
    )
    assert error.data["code"] == "nested_wrapper"
    assert Contact.objects.count() == 0


def test_validate_update_lists_the_changes(mcp: MCPTestClient, demo_data: None) -> None:
    device = Device.objects.filter(status="active").first()
    assert device is not None
    report = ok(
        mcp.call_tool(
            "dcim__devices__partial_update",
            {
                "id": device.pk,
                "mode": "validate",
                "status": "offline",
                "name": device.name,
            },
        )
    )
    validation = report["validation"]
    assert validation["action"] == "update"
    assert validation["id"] == device.pk
    assert validation["changed_fields"] == ["status"]
    device.refresh_from_db()
    assert device.status == "active"
    full = ok(
        mcp.call_tool(
            "dcim__devices__update",
            {
                "id": device.pk,
                "mode": "validate",
                "name": "renamed",
                "site": device.site_id,
            },
        )
    )
    assert "name" in full["validation"]["changed_fields"]
    assert Device.objects.get(pk=device.pk).name == device.name


def test_validate_update_of_a_missing_object_is_not_found(mcp: MCPTestClient) -> None:
    result = mcp.call_tool(
        "dcim__sites__partial_update", {"id": 999999, "mode": "validate", "name": "x"}
    )
    assert tool_error(result)["code"] == "not_found"


def test_validate_bulk_writes_nothing(mcp: MCPTestClient) -> None:
    report = ok(
        mcp.call_tool(
            "contacts__create",
            {
                "mode": "validate",
                "objects": [{"email": "a@example.com"}, {"email": "b@example.com"}],
            },
        )
    )
    assert report == {"validation": {"valid": True, "action": "create", "count": 2}}
    assert Contact.objects.count() == 0
    error = rejected(
        mcp,
        "contacts__create",
        {"mode": "validate", "objects": [{"email": "a@example.com"}, {"email": "bad"}]},
    )
    assert error.data["fields"][0]["index"] == 1


def test_validate_bulk_on_a_custom_create_view_writes_nothing(
    mcp: MCPTestClient,
) -> None:
    from tests.testapp.models import Publisher

    report = ok(
        mcp.call_tool(
            "testapp__audited-publishers__create",
            {"mode": "validate", "objects": [{"name": "A"}]},
        )
    )
    assert report["validation"]["count"] == 1
    assert Publisher.objects.count() == 0


@pytest.mark.parametrize("mode", ["dry-run", "VALIDATE", True])
def test_unknown_modes_are_rejected(mcp: MCPTestClient, mode: Any) -> None:
    error = rejected(mcp, "contacts__create", {"mode": mode, "email": "a@example.com"})
    assert error.data["fields"][0]["field"] == "mode"
    assert Contact.objects.count() == 0


def test_mode_does_not_apply_to_reads(mcp: MCPTestClient) -> None:
    error = rejected(mcp, "contacts__list", {"mode": "validate"})
    assert error.data["code"] == "unknown_argument"


# -- paging and continuation tokens ----------------------------------------------------


@pytest.mark.parametrize(
    ("arguments", "field"),
    [
        ({"page": 0}, "page"),
        ({"page_size": 0}, "page_size"),
        ({"page_size": 500}, "page_size"),
        ({"page": "2"}, "page"),
    ],
)
def test_out_of_range_paging_is_rejected(
    mcp: MCPTestClient, arguments: dict[str, Any], field: str
) -> None:
    error = rejected(mcp, "contacts__list", arguments)
    assert error.data["fields"][0]["field"] == field


def test_page_past_the_end_is_empty(mcp: MCPTestClient, demo_data: None) -> None:
    page = ok(mcp.call_tool("contacts__list", {"page": 99}))
    assert page["results"] == []
    assert page["has_more"] is False
    assert "next_token" not in page


def test_tokens_walk_every_row_exactly_once(
    mcp: MCPTestClient, demo_data: None
) -> None:
    seen: list[str] = []
    page = ok(
        mcp.call_tool(
            "contacts__list", {"page_size": 7, "filters": {"ordering": "email"}}
        )
    )
    seen += [r["email"] for r in page["results"]]
    while "next_token" in page:
        page = ok(
            mcp.call_tool("contacts__list", {"continuation_token": page["next_token"]})
        )
        assert page["page_size"] == 7
        seen += [r["email"] for r in page["results"]]
    assert seen == sorted(Contact.objects.values_list("email", flat=True))


def test_tokens_of_the_earlier_form_still_page(
    mcp: MCPTestClient, demo_data: None
) -> None:
    """Tokens made by ``signing.dumps(compress=True)`` before the HMAC form
    (issue 21 item 5) are read until they expire, a rotated key's too."""
    first = ok(mcp.call_tool("contacts__list", {"page_size": 3}))
    token = first["next_token"]
    assert ":" not in token
    assert token.count(".") == 2
    payload = tokens.unsign("continuation_token", token)
    legacy = signing.dumps(
        payload, salt="frisian_mcp.continuation_token", compress=True
    )
    expected = ok(mcp.call_tool("contacts__list", {"continuation_token": token}))
    for sent in (legacy, token):
        with override_settings(
            SECRET_KEY="rotated-" + "k" * 50,
            SECRET_KEY_FALLBACKS=[settings.SECRET_KEY],
        ):
            again = ok(mcp.call_tool("contacts__list", {"continuation_token": sent}))
        assert again == {**expected, "next_token": again["next_token"]}
    with override_settings(SECRET_KEY="rotated-" + "k" * 50, SECRET_KEY_FALLBACKS=[]):
        for sent in (legacy, token):
            error = rejected(mcp, "contacts__list", {"continuation_token": sent})
            assert error.data["code"] == "invalid_token"


def test_token_keeps_the_filters_and_projection(
    mcp: MCPTestClient, demo_data: None
) -> None:
    first = ok(
        mcp.call_tool(
            "dcim__devices__list",
            {"page_size": 2, "filters": {"status": "active"}, "filter_keys": ["name"]},
        )
    )
    second = ok(
        mcp.call_tool(
            "dcim__devices__list", {"continuation_token": first["next_token"]}
        )
    )
    assert all(set(row) == {"name"} for row in second["results"])
    assert second["count"] == Device.objects.filter(status="active").count()
    same = ok(
        mcp.call_tool(
            "dcim__devices__list",
            {
                "continuation_token": first["next_token"],
                "filters": {"status": "active"},
            },
        )
    )
    assert same["results"] == second["results"]


def test_token_for_other_filters_is_invalid(
    mcp: MCPTestClient, demo_data: None
) -> None:
    first = ok(
        mcp.call_tool(
            "dcim__devices__list", {"page_size": 2, "filters": {"status": "active"}}
        )
    )
    error = rejected(
        mcp,
        "dcim__devices__list",
        {"continuation_token": first["next_token"], "filters": {"status": "offline"}},
    )
    assert error.data["code"] == "invalid_token"
    error = rejected(
        mcp,
        "dcim__devices__list",
        {"continuation_token": first["next_token"], "page_size": 3},
    )
    assert error.data["code"] == "invalid_token"


def test_token_and_page_together_are_rejected(
    mcp: MCPTestClient, demo_data: None
) -> None:
    first = ok(mcp.call_tool("contacts__list", {"page_size": 2}))
    error = rejected(
        mcp, "contacts__list", {"continuation_token": first["next_token"], "page": 2}
    )
    assert error.data["field"] == "page"


@pytest.mark.parametrize(
    "mangle",
    [
        lambda t: t[:-2] + ("AA" if not t.endswith("AA") else "BB"),
        lambda t: "x" + t,
        lambda t: "garbage",
    ],
)
def test_tampered_token_is_invalid(
    mcp: MCPTestClient, demo_data: None, mangle: Any
) -> None:
    first = ok(mcp.call_tool("contacts__list", {"page_size": 2}))
    error = rejected(
        mcp, "contacts__list", {"continuation_token": mangle(first["next_token"])}
    )
    assert error.data["code"] == "invalid_token"
    assert first["next_token"][:12] not in error.response.content.decode()


def test_token_of_another_tool_is_invalid(mcp: MCPTestClient, demo_data: None) -> None:
    first = ok(mcp.call_tool("contacts__list", {"page_size": 2}))
    error = rejected(
        mcp, "dcim__devices__list", {"continuation_token": first["next_token"]}
    )
    assert error.data["code"] == "invalid_token"
    assert "another tool" in error.message


def test_token_of_another_user_is_invalid(client: Client, demo_data: None) -> None:
    alice = User.objects.create_user("alice")
    bob = User.objects.create_user("bob")
    client.force_login(alice)
    mcp = MCPTestClient(client)
    mcp.initialize()
    first = ok(mcp.call_tool("contacts__list", {"page_size": 2}))
    client.force_login(bob)
    error = rejected(mcp, "contacts__list", {"continuation_token": first["next_token"]})
    assert "another caller" in error.message


def test_expired_token_is_invalid(mcp: MCPTestClient, demo_data: None) -> None:
    first = ok(mcp.call_tool("contacts__list", {"page_size": 2}))
    with override_settings(
        FRISIAN_MCP={"REQUIRE_AUTHENTICATION": False, "CONTINUATION_TOKEN_MAX_AGE": 1}
    ):
        time.sleep(2.1)
        error = rejected(
            mcp, "contacts__list", {"continuation_token": first["next_token"]}
        )
    assert "expired" in error.message


# -- filter_keys and output shapes -------------------------------------------------------


def test_filter_keys_project_list_and_retrieve(
    mcp: MCPTestClient, demo_data: None
) -> None:
    page = ok(
        mcp.call_tool(
            "contacts__list", {"filter_keys": ["id", "email"], "page_size": 3}
        )
    )
    assert all(set(row) == {"id", "email"} for row in page["results"])
    one = ok(
        mcp.call_tool(
            "contacts__retrieve",
            {"id": page["results"][0]["id"], "filter_keys": ["email"]},
        )
    )
    assert set(one) == {"email"}


def test_unknown_filter_key_lists_the_fields(mcp: MCPTestClient) -> None:
    error = rejected(mcp, "contacts__list", {"filter_keys": ["email", "emial"]})
    entry = error.data["fields"][0]
    assert entry["field"] == "filter_keys[1]"
    assert "first_name" in entry["message"]


def test_structured_results_conform_to_output_schemas(
    mcp: MCPTestClient, demo_data: None
) -> None:
    # The listing leaves large output schemas to help; results conform to
    # the full schema, and to the listed one where there is one.
    listed = {t["name"]: t.get("outputSchema") for t in mcp.list_tools()}
    full = {tool.name: tool.schema for tool in get_registry()}
    site = Site.objects.get(slug="hq-1")
    calls: list[tuple[str, dict[str, Any]]] = [
        ("dcim__devices__list", {"page_size": 3}),
        ("dcim__devices__list", {"filter_keys": ["name"]}),
        ("dcim__sites__retrieve", {"id": site.pk}),
        ("dcim__devices__create", {"name": "o1", "site": site.pk}),
        ("dcim__devices__create", {"objects": [{"name": "o2", "site": site.pk}]}),
        ("dcim__devices__create", {"mode": "validate", "name": "o3", "site": site.pk}),
        ("dcim__sites__partial_update", {"id": site.pk, "description": "x"}),
        ("dcim__tags__destroy", {"id": Tag.objects.create(name="tmp", slug="tmp").pk}),
        ("contacts__create", {"help": True}),
    ]
    for name, arguments in calls:
        structured = ok(mcp.call_tool(name, arguments))
        schema = full[name]
        assert schema is not None, name
        assert schema.output_schema is not None, name
        Draft202012Validator(schema.output_schema).validate(structured)
        shown = listed[name]
        if shown is not None:
            Draft202012Validator(shown).validate(structured)
    assert any(listed.values())
    assert not all(listed.values())
