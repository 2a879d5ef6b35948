"""Lean listings: what a model needs for a correct call, the rest in help."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import override_settings

from demo_project.dcim.models import Device
from frisian_mcp.contrib.testing import MCPError, MCPTestClient
from frisian_mcp.registry import get_registry

pytestmark = pytest.mark.django_db


def listed(name: str) -> dict[str, Any]:
    mcp = MCPTestClient()
    mcp.initialize()
    return next(t for t in mcp.list_tools() if t["name"] == name)


def test_restated_choices_and_int64_bounds_are_not_listed() -> None:
    text = json.dumps(listed("dcim__devices__list"))
    assert "* `" not in text
    assert "9223372036854775807" not in text


def test_a_listed_reference_accepts_what_the_full_schema_accepts() -> None:
    # The listing says "an id or a numeric string" in one branch and drops
    # DRF's stock primary-key text; the forms it accepts are unchanged.
    from jsonschema import Draft202012Validator

    mcp = MCPTestClient()
    mcp.initialize()
    tool = next(t for t in mcp.list_tools() if t["name"] == "dcim__devices__create")
    full = next(t for t in get_registry() if t.name == "dcim__devices__create")
    assert full.schema is not None
    site = tool["inputSchema"]["properties"]["site"]
    full_site = full.schema.input_schema["properties"]["site"]
    assert site != full_site
    for value in (5, "5", "-1", {"slug": "x"}, {"id": 5}, "abc", 5.5, [5], {}):
        assert Draft202012Validator(site).is_valid(value) == (
            Draft202012Validator(full_site).is_valid(value)
        ), value
    update = next(t for t in mcp.list_tools() if t["name"] == "dcim__devices__update")
    assert "description" not in update["inputSchema"]["properties"]["id"]


def test_a_large_output_schema_is_left_to_help() -> None:
    assert "outputSchema" not in listed("contacts__create")
    with override_settings(
        FRISIAN_MCP={"REQUIRE_AUTHENTICATION": False, "OUTPUT_SCHEMA_LIMIT": 100_000}
    ):
        assert "outputSchema" in listed("contacts__create")
    assert listed("contacts__destroy")["outputSchema"]["type"] == "object"


@override_settings(
    FRISIAN_MCP={"REQUIRE_AUTHENTICATION": False, "FILTER_LIST_LIMIT": 2}
)
def test_many_filters_are_summarised_and_still_checked(demo_data: None) -> None:
    filters = listed("dcim__devices__list")["inputSchema"]["properties"]["filters"]
    assert set(filters) == {"type", "description"}  # open, keys named
    assert "Call with help: true" in filters["description"]
    mcp = MCPTestClient()
    mcp.initialize()
    documented = mcp.call_tool("dcim__devices__list", {"help": True})
    keys = documented["structuredContent"]["help"]["filters"]
    assert len(keys) > 2
    assert "status" in keys
    named = Device.objects.filter(status="active").count()
    page = mcp.call_tool("dcim__devices__list", {"filters": {"status": "active"}})
    assert page["structuredContent"]["count"] == named
    with pytest.raises(MCPError) as info:
        mcp.call_tool("dcim__devices__list", {"filters": {"stauts": "active"}})
    assert info.value.code == -32602
    (entry,) = info.value.data["fields"]
    assert (entry["field"], entry["code"]) == ("filters", "unknown_key")
    assert "allowed keys: ordering, search, site, status, tags" in entry["message"]


def test_the_default_listing_stays_small() -> None:
    mcp = MCPTestClient()
    mcp.initialize()
    tools = mcp.list_tools()
    sizes = [len(json.dumps(t, separators=(",", ":"))) for t in tools]
    assert max(sizes) < 16_384
    assert sum(sizes) / len(sizes) < 2_048


def test_protocol_arguments_are_one_short_sentence_and_explained_in_help() -> None:
    properties = listed("dcim__devices__list")["inputSchema"]["properties"]
    mcp = MCPTestClient()
    mcp.initialize()
    documented = mcp.call_tool("dcim__devices__list", {"help": True})
    explained = documented["structuredContent"]["help"]["protocol_arguments"]
    assert set(explained) == {
        "help",
        "filters",
        "page",
        "page_size",
        "continuation_token",
        "filter_keys",
    }
    for name, text in explained.items():
        short = properties[name]["description"]
        assert len(short) <= 60, name
        assert short.count(". ") == 0, name
        assert len(text) > len(short), name
    assert "at most 200" in explained["page_size"]


def test_help_gives_the_output_schema_the_listing_left_out() -> None:
    mcp = MCPTestClient()
    mcp.initialize()
    assert "outputSchema" not in listed("contacts__create")
    documented = mcp.call_tool("contacts__create", {"help": True})
    output = documented["structuredContent"]["help"]["output_schema"]
    assert output["type"] == "object"
    assert len(json.dumps(output, separators=(",", ":"))) > 512
    assert "outputSchema" in listed("contacts__destroy")
    documented = mcp.call_tool("contacts__destroy", {"help": True})
    assert "output_schema" not in documented["structuredContent"]["help"]
