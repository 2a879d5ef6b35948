"""The frisian_mcp_tools management command."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import override_settings

from frisian_mcp.contrib.testing import MCPTestClient

DEMO = override_settings(ROOT_URLCONF="demo_project.urls")


def run(*args: str) -> str:
    out = StringIO()
    call_command("frisian_mcp_tools", *args, stdout=out, stderr=StringIO())
    return out.getvalue()


@DEMO
def test_table_lists_every_tool() -> None:
    text = run()
    line = next(
        line for line in text.splitlines() if line.startswith("contacts__create ")
    )
    assert line.split() == [
        "contacts__create",
        "POST",
        "/api/contacts/",
        "Create",
        "contact",
    ]
    assert text.strip().endswith("31 tools.")


@DEMO
@pytest.mark.django_db
def test_json_equals_tools_list() -> None:
    mcp = MCPTestClient()
    mcp.initialize()
    assert json.loads(run("--format", "json")) == mcp.list_tools()


@DEMO
def test_json_is_deterministic() -> None:
    assert run("--format", "json") == run("--format", "json")


@DEMO
def test_one_tool() -> None:
    tool = json.loads(run("--tool", "dcim__devices__create"))
    assert tool["name"] == "dcim__devices__create"
    assert "site" in tool["inputSchema"]["properties"]
    dispatcher = json.loads(run("--tool", "dcim", "--layout", "dispatcher"))
    assert dispatcher["inputSchema"]["properties"]["resource"]["enum"] == [
        "devices",
        "sites",
        "tags",
    ]


@DEMO
def test_dispatcher_layout_table() -> None:
    text = run("--layout", "dispatcher")
    assert "dcim  (dispatcher: 3 resources)" in text
    assert "  sites: create, destroy, list, partial_update, retrieve, update" in text


@DEMO
def test_unknown_tool_is_an_error() -> None:
    with pytest.raises(CommandError, match="No tool is named"):
        run("--tool", "nope")


@override_settings(
    FRISIAN_MCP={
        "REQUIRE_AUTHENTICATION": False,
        "DISCOVERY_BACKEND": "tests.test_checks.BrokenBackend",
    }
)
def test_discovery_failure_is_an_error() -> None:
    with pytest.raises(CommandError, match="Discovery failed"):
        run()


@DEMO
def test_verbose_reports_timing() -> None:
    err = StringIO()
    call_command("frisian_mcp_tools", verbosity=2, stdout=StringIO(), stderr=err)
    assert "Built 31 tools in" in err.getvalue()
