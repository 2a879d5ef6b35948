"""Dispatcher tools, per-viewset options and include/exclude globs."""

from __future__ import annotations

import difflib
import json
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.test import override_settings

from demo_project.contacts.models import Contact
from demo_project.contacts.views import ContactViewSet
from demo_project.dcim.models import Device, Site
from frisian_mcp import hooks
from frisian_mcp.contrib.dispatchers.layout import DispatcherLayout
from frisian_mcp.contrib.testing import MCPError, MCPTestClient
from frisian_mcp.exceptions import ConfigurationError
from frisian_mcp.registry import ToolRegistry, reset_registry

pytestmark = pytest.mark.django_db

DISPATCHED = override_settings(
    ROOT_URLCONF="demo_project.urls",
    FRISIAN_MCP={"REQUIRE_AUTHENTICATION": False, "TOOL_LAYOUT": "dispatcher"},
)
GOLDEN = Path(__file__).parent / "golden" / "demo_tools_list_dispatcher.json"


@pytest.fixture
def dmcp() -> Any:
    with DISPATCHED:
        reset_registry()
        client = MCPTestClient()
        client.initialize()
        yield client


def dispatchers_of(registry: ToolRegistry) -> dict[str, Any]:
    layout = registry.arranged("dispatcher")
    assert isinstance(layout, DispatcherLayout)
    return layout.dispatchers


def rejected(mcp: MCPTestClient, name: str, arguments: Any) -> MCPError:
    with pytest.raises(MCPError) as info:
        mcp.call_tool(name, arguments)
    assert info.value.code == -32602
    return info.value


def test_dispatcher_layout_lists_one_tool_per_app(dmcp: MCPTestClient) -> None:
    tools = dmcp.list_tools()
    assert [t["name"] for t in tools] == ["contacts", "dcim"]
    dcim = tools[1]
    assert dcim["inputSchema"]["properties"]["resource"]["enum"] == [
        "devices",
        "sites",
        "tags",
    ]
    assert "partial_update" in dcim["inputSchema"]["properties"]["action"]["enum"]
    assert dcim["annotations"]["openWorldHint"] is False


def test_dispatcher_tools_list_matches_golden_file(dmcp: MCPTestClient) -> None:
    actual = json.dumps(dmcp.list_tools(), indent=2, sort_keys=True) + "\n"
    out = GOLDEN.with_name(GOLDEN.stem + "_out.json")
    expected = GOLDEN.read_text() if GOLDEN.exists() else ""
    if actual != expected:
        out.write_text(actual)
        diff = "".join(
            difflib.unified_diff(
                expected.splitlines(True), actual.splitlines(True), n=2
            )
        )
        pytest.fail(f"dispatcher tools/list changed; review {out.name}.\n{diff[:4000]}")
    out.unlink(missing_ok=True)


def test_dispatcher_routes_to_the_flat_tool(
    dmcp: MCPTestClient, demo_data: None
) -> None:
    created = dmcp.call_tool(
        "contacts",
        {"resource": "contacts", "action": "create", "email": "a@example.com"},
    )
    assert created["structuredContent"]["email"] == "a@example.com"
    site = Site.objects.get(slug="hq-1")
    device = dmcp.call_tool(
        "dcim",
        {
            "resource": "devices",
            "action": "create",
            "name": "d-1",
            "site": {"slug": "hq-1"},
        },
    )
    assert device["structuredContent"]["site"] == site.pk
    page = dmcp.call_tool(
        "dcim",
        {
            "resource": "devices",
            "action": "list",
            "filters": {"site": site.pk},
            "page_size": 2,
        },
    )
    assert (
        page["structuredContent"]["count"] == Device.objects.filter(site=site).count()
    )


def test_dispatcher_forwards_the_wrapper_to_the_guards(dmcp: MCPTestClient) -> None:
    error = rejected(
        dmcp,
        "contacts",
        {
            "action": "create",
            "resource": "contacts",
            "data": {"email": "a@example.com"},
        },
    )
    assert error.data["code"] == "nested_wrapper"
    assert error.data["tool"] == "contacts__create"
    assert Contact.objects.count() == 0


def test_dispatcher_never_drops_an_argument(dmcp: MCPTestClient) -> None:
    error = rejected(
        dmcp,
        "contacts",
        {
            "resource": "contacts",
            "action": "create",
            "email": "a@example.com",
            "emial": "b",
        },
    )
    assert error.data["code"] == "unknown_argument"
    assert Contact.objects.count() == 0


@pytest.mark.parametrize(
    ("arguments", "field"),
    [
        ({"action": "create", "email": "a@example.com"}, "resource"),
        ({"resource": "SENTINEL-res", "action": "create"}, "resource"),
        ({"resource": "devices"}, "action"),
        ({"resource": "devices", "action": "explode"}, "action"),
        ({"resource": ["devices"], "action": "list"}, "resource"),
    ],
)
def test_bad_routing_lists_the_allowed_values(
    dmcp: MCPTestClient, arguments: dict[str, Any], field: str
) -> None:
    error = rejected(dmcp, "dcim", arguments)
    assert error.data["code"] == "invalid_argument"
    assert error.data["field"] == field
    assert "SENTINEL" not in error.response.content.decode()
    allowed = "devices, sites, tags" if field == "resource" else "create, destroy, list"
    assert allowed in error.message


def test_dispatcher_help_at_every_level(dmcp: MCPTestClient) -> None:
    group = dmcp.call_tool("dcim", {"help": True})["structuredContent"]["help"]
    assert group["resources"]["sites"] == [
        "create",
        "destroy",
        "list",
        "partial_update",
        "retrieve",
        "update",
    ]
    resource = dmcp.call_tool("dcim", {"help": True, "resource": "sites"})[
        "structuredContent"
    ]["help"]
    assert resource["actions"] == group["resources"]["sites"]
    action = dmcp.call_tool(
        "dcim", {"help": True, "resource": "sites", "action": "create"}
    )["structuredContent"]["help"]
    assert action["tool"] == "dcim__sites__create"
    assert {a["name"] for a in action["arguments"]} == {"name", "slug", "description"}


def test_flat_names_stay_callable_in_dispatcher_layout(dmcp: MCPTestClient) -> None:
    assert (
        dmcp.call_tool("contacts__create", {"email": "a@example.com"})["isError"]
        is False
    )


def test_auto_layout_switches_above_the_threshold() -> None:
    with override_settings(ROOT_URLCONF="demo_project.urls"):
        assert ToolRegistry.from_settings().layout == "flat"
    with override_settings(
        ROOT_URLCONF="demo_project.urls",
        FRISIAN_MCP={"REQUIRE_AUTHENTICATION": False, "DISPATCHER_THRESHOLD": 10},
    ):
        assert ToolRegistry.from_settings().layout == "dispatcher"


@pytest.mark.parametrize(
    ("group_by", "groups"),
    [
        ("app", ["contacts", "dcim", "testapp"]),
        ("path", ["contacts", "dcim", "testapp"]),
    ],
)
def test_group_by(group_by: str, groups: list[str]) -> None:
    with override_settings(
        FRISIAN_MCP={"REQUIRE_AUTHENTICATION": False, "DISPATCHER_GROUP_BY": group_by}
    ):
        assert list(dispatchers_of(ToolRegistry.from_settings())) == groups


def test_group_by_namespace_falls_back_to_the_path() -> None:
    with override_settings(
        ROOT_URLCONF="tests.urls_versioned",
        FRISIAN_MCP={
            "REQUIRE_AUTHENTICATION": False,
            "DISPATCHER_GROUP_BY": "namespace",
        },
    ):
        assert set(dispatchers_of(ToolRegistry.from_settings())) == {"api", "v1", "v2"}


def test_mcp_group_attribute(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ContactViewSet, "mcp_group", "crm", raising=False)
    dispatchers = dispatchers_of(ToolRegistry.from_settings())
    assert "crm" in dispatchers
    assert dispatchers["crm"].routes["contacts"]["create"] == "contacts__create"


def test_mcp_actions_attribute(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        ContactViewSet, "mcp_actions", ["list", "retrieve"], raising=False
    )
    names = [
        t.name for t in ToolRegistry.from_settings() if t.name.startswith("contacts__")
    ]
    assert names == ["contacts__list", "contacts__retrieve"]


def test_mcp_name_attribute(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ContactViewSet, "mcp_name", "people", raising=False)
    names = {t.name for t in ToolRegistry.from_settings()}
    assert "people__create" in names
    assert "contacts__create" not in names


def test_mcp_exclude_attribute(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ContactViewSet, "mcp_exclude", True, raising=False)
    assert not any(
        t.name.startswith("contacts__") for t in ToolRegistry.from_settings()
    )


def test_viewset_options_setting() -> None:
    options = {
        "demo_project.contacts.views.ContactViewSet": {
            "actions": ["list"],
            "name": "people",
        },
        "demo_project.dcim.views.TagViewSet": {"exclude": True},
    }
    with override_settings(
        FRISIAN_MCP={"REQUIRE_AUTHENTICATION": False, "VIEWSET_OPTIONS": options}
    ):
        names = {t.name for t in ToolRegistry.from_settings()}
    assert "people__list" in names
    assert "people__create" not in names
    assert not any(n.startswith("dcim__tags__") for n in names)


def test_include_and_exclude_globs() -> None:
    with override_settings(
        FRISIAN_MCP={
            "REQUIRE_AUTHENTICATION": False,
            "INCLUDE": ["contacts__*", "dcim__*"],
            "EXCLUDE": ["*__destroy"],
        }
    ):
        names = {t.name for t in ToolRegistry.from_settings()}
    assert "contacts__create" in names
    assert "contacts__destroy" not in names
    assert not any(n.startswith("testapp__") for n in names)


def test_excluded_tool_cannot_be_called() -> None:
    with override_settings(
        FRISIAN_MCP={"REQUIRE_AUTHENTICATION": False, "EXCLUDE": ["*__destroy"]}
    ):
        mcp = MCPTestClient()
        mcp.initialize()
        error = rejected(
            mcp, "contacts__destroy", {"id": "00000000-0000-4000-8000-000000000000"}
        )
    assert error.data["code"] == "unknown_tool"


# -- the layout hook (ADR 0028) ----------------------------------------------


def test_a_layout_no_installed_app_offers_is_e016(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(hooks, "_LAYOUTS", {})
    with override_settings(FRISIAN_MCP={"TOOL_LAYOUT": "dispatcher"}):
        assert [m.id for m in hooks.check_layout()] == ["frisian_mcp.E016"]
        with pytest.raises(ConfigurationError, match="no installed app offers"):
            ToolRegistry.from_settings().definitions()
    with override_settings(FRISIAN_MCP={"TOOL_LAYOUT": "flat"}):
        assert hooks.check_layout() == []


def test_auto_stays_flat_without_the_dispatchers_app(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(hooks, "_LAYOUTS", {})
    with override_settings(
        ROOT_URLCONF="demo_project.urls",
        FRISIAN_MCP={"REQUIRE_AUTHENTICATION": False, "DISPATCHER_THRESHOLD": 10},
    ):
        reset_registry()
        assert hooks.check_layout() == []
        registry = ToolRegistry.from_settings()
        assert registry.layout == "flat"
        mcp = MCPTestClient()
        mcp.initialize()
        names = {tool["name"] for tool in mcp.list_tools()}
        assert "contacts__create" in names
        assert "crm" not in names


def test_the_tools_command_names_the_missing_layout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(hooks, "_LAYOUTS", {})
    with (
        override_settings(ROOT_URLCONF="demo_project.urls"),
        pytest.raises(CommandError, match="no installed app offers that layout"),
    ):
        call_command("frisian_mcp_tools", "--layout", "dispatcher", stdout=StringIO())
