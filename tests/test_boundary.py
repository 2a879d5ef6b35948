"""The boundary into host code (issue 18 items 11 and 15, ADR 0015).

``tests.hosts.inventory`` is a network-inventory host: its own schema class
and field extension, plugin views on plain ``ViewSet``\\ s, and plugin views
whose code raises ``RuntimeError`` while their tools are discovered or their
schemas built. What the host's code raises leaves that view's tools out with
one warning; it never takes down ``check``, ``migrate``, a listing or
``help``. What frisian_mcp's own code raises is a bug and fails loudly, never
passing for a host tool left out.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from io import StringIO
from typing import Any

import pytest
from django.conf import settings
from django.core.management import call_command
from django.test import Client, override_settings
from django_filters.rest_framework import DjangoFilterBackend

from frisian_mcp.checks import check_schemas, check_tools
from frisian_mcp.contrib.testing import MCPError, MCPTestClient
from tests.hosts.inventory.schema import CustomFieldsExtension, InventoryAutoSchema
from tests.hosts.inventory.serializers import DeviceSerializer
from tests.zoo.models import Device, DeviceType, Manufacturer

BROKEN = "tests.hosts.inventory.views.BrokenPluginViewSet"
LEGACY = "tests.hosts.inventory.views.LegacyView"
#: The tools of the plain plugin ViewSets (3 of 4 were left out before).
PLUGIN_TOOLS = {
    "plugins__audit__list",
    "plugins__export__retrieve",
    "plugins__export__run",
    "plugins__health__list",
    "plugins__sync__create",
    "plugins__sync__list",
}
CRUD = ("create", "destroy", "list", "partial_update", "retrieve", "update")
#: What the broken plugin's failure leaves out: the tools needing its body.
LEFT_OUT = {
    "plugins__broken__create",
    "plugins__broken__partial_update",
    "plugins__broken__update",
}


def inventory(**mcp: Any) -> Any:
    """The inventory host: its URLconf and its DEFAULT_SCHEMA_CLASS."""
    schema_class = f"{InventoryAutoSchema.__module__}.InventoryAutoSchema"
    return override_settings(
        ROOT_URLCONF="tests.hosts.inventory.urls",
        REST_FRAMEWORK={
            **settings.REST_FRAMEWORK,
            "DEFAULT_SCHEMA_CLASS": schema_class,
        },
        FRISIAN_MCP={"REQUIRE_AUTHENTICATION": False, "TOOL_LAYOUT": "flat", **mcp},
    )


@pytest.fixture(autouse=True)
def _inventory() -> Iterator[None]:
    with inventory():
        yield


@pytest.fixture
def device(db: None) -> Device:
    acme = Manufacturer.objects.create(name="Acme", slug="acme")
    switch = DeviceType.objects.create(manufacturer=acme, model="X1", slug="x1")
    return Device.objects.create(name="core-1", device_type=switch, locked=True)


def client() -> MCPTestClient:
    mcp = MCPTestClient()
    mcp.initialize()
    return mcp


# --- item 11: the host's code fails ---------------------------------------------


@pytest.mark.django_db
def test_a_plugin_raising_runtime_error_leaves_only_its_tools_out() -> None:
    mcp = client()
    names = {tool["name"] for tool in mcp.list_tools()}
    assert names.isdisjoint(LEFT_OUT)
    assert not any(name.startswith("plugins__legacy") for name in names)
    assert PLUGIN_TOOLS | {"dcim__devices__create", "plugins__broken__list"} <= names
    with pytest.raises(MCPError) as info:
        mcp.call_tool("plugins__broken__create", {"name": "x"})
    assert info.value.code == -32602
    assert info.value.data["code"] == "unknown_tool"
    assert not Device.objects.exists()


@pytest.mark.django_db
def test_a_dispatchers_listing_and_help_survive_the_plugin() -> None:
    with inventory(TOOL_LAYOUT="dispatcher"):
        mcp = client()
        names = sorted(tool["name"] for tool in mcp.list_tools())
        overview = mcp.call_tool("zoo", {"help": True})["structuredContent"]["help"]
        broken = mcp.call_tool("zoo", {"help": True, "resource": "plugins__broken"})
        with pytest.raises(MCPError) as info:
            mcp.call_tool("zoo", {"resource": "plugins__broken", "action": "create"})
    assert names == ["plugins", "zoo"]
    assert "plugins__broken" in overview["resources"]
    actions = broken["structuredContent"]["help"]["actions"]
    assert {"list", "retrieve", "destroy"} <= set(actions)
    assert not {"create", "update", "partial_update"} & set(actions)
    assert info.value.data["code"] == "invalid_argument"
    assert info.value.data["field"] == "action"


def test_check_builds_no_schema_and_names_what_discovery_left_out(
    builds: list[str], caplog: pytest.LogCaptureFixture
) -> None:
    out, err = StringIO(), StringIO()
    with caplog.at_level(logging.WARNING, logger="frisian_mcp"):
        call_command("check", stdout=out, stderr=err)
    assert builds == []
    printed = out.getvalue() + err.getvalue()
    assert printed.count("RuntimeError") == 1
    assert (
        f"{LEGACY} raised RuntimeError while its tools were built (the legacy "
        "plugin is disabled); left out: every action"
    ) in printed
    assert [m.obj for m in check_tools()] == [LEGACY]
    assert caplog.records == []


@pytest.mark.django_db
def test_migrate_runs_its_checks_without_building_a_schema(
    builds: list[str],
) -> None:
    call_command(
        "migrate", plan=True, skip_checks=False, stdout=StringIO(), stderr=StringIO()
    )
    assert builds == []


def test_check_deploy_builds_every_schema_and_warns_once_per_failure(
    builds: list[str], caplog: pytest.LogCaptureFixture
) -> None:
    out, err = StringIO(), StringIO()
    with caplog.at_level(logging.WARNING, logger="frisian_mcp"):
        call_command(
            "check", "--deploy", "--tag", "frisian_mcp_schemas", stdout=out, stderr=err
        )
    printed = out.getvalue() + err.getvalue()
    assert len(builds) >= 12
    assert printed.count("RuntimeError") == 1
    assert printed.count("(frisian_mcp.W003)") == 1
    assert (
        f"{BROKEN} raised RuntimeError while its tools were built (the plugin's "
        "backend is not configured); degraded: list, retrieve; left out: create, "
        "partial_update, update"
    ) in printed
    assert caplog.records == []  # the check reports it; nothing logs it as well


def test_the_tools_command_names_each_failure_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    out, err = StringIO(), StringIO()
    with caplog.at_level(logging.WARNING, logger="frisian_mcp"):
        call_command("frisian_mcp_tools", stdout=out, stderr=err)
    assert err.getvalue().count(f"Left out {BROKEN}.") == 3
    assert "dcim__devices__create" in out.getvalue()
    assert caplog.records == []


@pytest.mark.django_db
def test_a_listing_logs_each_failure_once(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="frisian_mcp"):
        client().list_tools()
        client().list_tools()
    logged = [r.getMessage() for r in caplog.records if "BrokenPlugin" in r.message]
    assert len(logged) == 5  # once per tool of the view: 3 left out, 2 degraded
    assert all("RuntimeError" in message for message in logged)


@pytest.mark.django_db
def test_a_host_description_that_fails_degrades_only_the_description(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(self: InventoryAutoSchema) -> str:
        raise RuntimeError("no description without a request")

    monkeypatch.setattr(InventoryAutoSchema, "get_description", broken)
    tools = {tool["name"]: tool for tool in client().list_tools()}
    assert tools["dcim__devices__create"]["description"] == (
        "Create a device. Send its fields flat, as top-level arguments."
    )
    assert "name" in tools["dcim__devices__create"]["inputSchema"]["properties"]
    warnings = [m.msg for m in check_schemas() if "DeviceViewSet" in m.msg]
    assert warnings == [
        "tests.hosts.inventory.views.DeviceViewSet raised RuntimeError while its "
        "tools were built (no description without a request); degraded: create, "
        "destroy, list, partial_update, retrieve, update"
    ]


def _raise(*args: Any, **kwargs: Any) -> Any:
    raise RuntimeError("the host's code failed")


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("host_code", "left_out", "degraded"),
    [
        (
            (DeviceSerializer, "get_fields"),
            {"create", "partial_update", "update"},
            {"list", "retrieve"},
        ),
        (
            (CustomFieldsExtension, "map_serializer_field"),
            {"create", "partial_update", "update"},
            {"list", "retrieve"},
        ),
        ((DjangoFilterBackend, "get_filterset_class"), {"list"}, set()),
    ],
    ids=["serializer", "field-extension", "filter-set"],
)
def test_any_host_code_that_fails_leaves_out_only_the_tools_it_breaks(
    host_code: tuple[type[Any], str],
    left_out: set[str],
    degraded: set[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(*host_code, _raise)
    names = {tool["name"] for tool in client().list_tools()}
    devices = {n.rpartition("__")[2] for n in names if n.startswith("dcim__devices")}
    assert devices == set(CRUD) - left_out
    (warning,) = [m.msg for m in check_schemas() if "DeviceViewSet" in m.msg]
    assert "DeviceViewSet raised RuntimeError" in warning
    assert f"left out: {', '.join(sorted(left_out))}" in warning
    assert ("degraded: " in warning) == bool(degraded)


# --- item 11: frisian_mcp's own code fails --------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    "internal",
    ["frisian_mcp.bodies.argument_schema", "frisian_mcp.spectacular._lighten"],
)
def test_a_bug_in_frisian_mcp_is_no_host_tool_left_out(
    internal: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    def bug(*args: Any, **kwargs: Any) -> Any:
        raise AttributeError("frisian_mcp's own bug")

    monkeypatch.setattr(internal, bug)
    with pytest.raises(MCPError) as info:
        client().list_tools()
    assert info.value.code == -32603  # an internal error, never a shorter list
    with pytest.raises(AttributeError, match="own bug"):
        check_schemas()


# --- item 15: plain ViewSets with a serializer_class ----------------------------


def test_plain_viewsets_are_tools_under_the_hosts_schema_class() -> None:
    assert [m.obj for m in check_schemas()] == [BROKEN]
    tools = {tool["name"]: tool for tool in client().list_tools()}
    assert set(tools) >= PLUGIN_TOOLS
    sync = tools["plugins__sync__create"]["inputSchema"]
    assert sync["required"] == ["source"]
    assert sync["properties"]["source"]["enum"] == ["cmdb", "ipam"]
    assert "devices" not in sync["properties"]  # read-only
    run = tools["plugins__export__run"]["inputSchema"]
    assert run["properties"]["target"]["enum"] == ["csv", "yaml"]
    # The host words a missing docstring from view.get_serializer_class().
    assert tools["plugins__audit__list"]["description"].endswith("Get devices.")


def rest(method: str, path: str, body: Any = None) -> tuple[int, Any]:
    response = (
        getattr(Client(), method)(
            path, json.dumps(body), content_type="application/json"
        )
        if body is not None
        else getattr(Client(), method)(path)
    )
    return response.status_code, response.json()


def test_plain_viewsets_answer_as_rest_does(device: Device) -> None:
    mcp = client()
    status, created = rest("post", "/api/plugins/sync/", {"source": "ipam"})
    assert status == 201
    assert (
        mcp.call_tool("plugins__sync__create", {"source": "ipam"})["structuredContent"]
        == created
        == {"source": "ipam", "dry_run": False, "devices": 1}
    )
    status, ran = rest(
        "post", f"/api/plugins/export/{device.pk}/run/", {"target": "csv"}
    )
    assert status == 200
    called = mcp.call_tool(
        "plugins__export__run", {"id": str(device.pk), "target": "csv"}
    )
    assert called["structuredContent"] == ran
    status, export = rest("get", f"/api/plugins/export/{device.pk}/")
    called = mcp.call_tool("plugins__export__retrieve", {"id": str(device.pk)})
    assert (
        called["structuredContent"] == export == {"name": "core-1", "status": "active"}
    )
    status, audit = rest("get", "/api/plugins/audit/")
    listed = mcp.call_tool("plugins__audit__list", {})["structuredContent"]
    assert (
        listed["results"]
        == audit
        == [{"id": device.pk, "name": "core-1", "locked": True}]
    )


def test_a_plain_viewset_refuses_what_its_serializer_refuses(device: Device) -> None:
    status, _ = rest("post", "/api/plugins/sync/", {"source": "dns"})
    assert status == 400
    with pytest.raises(MCPError) as info:
        client().call_tool("plugins__sync__create", {"source": "dns"})
    assert info.value.code == -32602
    assert info.value.data["code"] == "invalid_argument"
    assert [f["field"] for f in info.value.data["fields"]] == ["source"]
    assert list(Device.objects.values_list("name", flat=True)) == ["core-1"]
