"""The zoo: real-world DRF patterns, each tool called over MCP and over REST.

``tests.zoo`` stands in for the large DRF projects of issue 11 (a network
inventory, a localization platform): Accept-header, URL-path and namespace
versioning, an API root left out of the schema, plain views with a
``serializer_class``, actions declaring their body as a serializer class, a
spectacular extension on the base serializer, brief nested serializers for
FKs, per-instance filters, the project's own permission class, nested
namespaces, protected deletes with the host's 409, hyperlinks, string path
ids, canonical-host middleware and a ``q`` read in ``get_queryset``.

Every tool must list and be callable; each call is compared with the REST
request of the same payload, run on the same starting data (in a savepoint
rolled back before the MCP call): the verdict, what is returned and the rows
stored afterwards. Where frisian_mcp does not yet do what issue 11 asks, the
test asserts the required behaviour and is marked ``xfail(strict=True)``
with the item it belongs to: the marker goes once the item is fixed.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from io import StringIO
from typing import Any

import pytest
from django.apps import apps
from django.conf import settings
from django.contrib.auth.models import Group, Permission, User
from django.core import checks
from django.core.management import call_command
from django.core.management.color import no_style
from django.db import connection, models, transaction
from django.test import Client, override_settings
from jsonschema import Draft202012Validator

from frisian_mcp.contrib.testing import MCPError, MCPTestClient
from frisian_mcp.registry import ToolRegistry
from tests.test_parity import INPUT_ERROR_CODES
from tests.zoo.models import (
    CustomField,
    Device,
    DeviceType,
    Interface,
    InventoryItem,
    Manufacturer,
    Tag,
)
from tests.zoo.permissions import READERS_GROUP

pytestmark = pytest.mark.django_db

CANONICAL = "https://zoo.example.net"
API = "/api/zoo"

#: Every zoo model; the rows of all of them are compared after each call.
MODELS: tuple[type[models.Model], ...] = (
    Manufacturer,
    DeviceType,
    Tag,
    CustomField,
    Device,
    Device.tags.through,
    Interface,
    InventoryItem,
)

CRUD = ("create", "destroy", "list", "partial_update", "retrieve", "update")
EXPECTED_TOOLS = frozenset(
    [f"dcim__{r}__{a}" for r in ("manufacturers", "device-types") for a in CRUD]
    + [f"dcim__devices__{a}" for a in (*CRUD, "rename")]
    + [f"dcim__interfaces__{a}" for a in CRUD]
    + [f"{v}__extras__tags__{a}" for v in ("v1", "v2") for a in CRUD]
    + [f"legacy__{v}__custom-fields__{a}" for v in ("v1", "v2") for a in CRUD]
    + [f"plugins__inventory__items__{a}" for a in CRUD]
    + ["reports__create", "reports__list", "status__get"]
)

EXECUTION_VERDICTS = {
    "not_authenticated": "denied",
    "permission_denied": "denied",
    "not_found": "not_found",
    "conflict": "conflict",
}


@pytest.fixture(autouse=True)
def _zoo_settings() -> Iterator[None]:
    """The zoo's URLconf, its canonical-host middleware, a flat listing."""
    with override_settings(
        ROOT_URLCONF="tests.urls_zoo",
        MIDDLEWARE=[
            "tests.zoo.middleware.CanonicalHostMiddleware",
            *settings.MIDDLEWARE,
        ],
        ALLOWED_HOSTS=[*settings.ALLOWED_HOSTS, "zoo.example.net"],
        ZOO_CANONICAL_URL=CANONICAL,
        FRISIAN_MCP={"REQUIRE_AUTHENTICATION": False, "TOOL_LAYOUT": "flat"},
    ):
        yield


# --- the starting data -------------------------------------------------------


@pytest.fixture
def world() -> dict[str, Any]:
    """Two manufacturers, a device type, a device with an interface, and so on."""
    # Ids that appear in no message: a caller's id is redacted from the
    # host's reasons wherever it occurs, even inside "core-1".
    acme = Manufacturer.objects.create(pk=7001, name="Acme Networks", slug="acme")
    Manufacturer.objects.create(name="Unused Corp", slug="unused")
    switch = DeviceType.objects.create(
        pk=7002, manufacturer=acme, model="X1", slug="x1"
    )
    prod = Tag.objects.create(name="Production", slug="prod")
    CustomField.objects.create(name="rack", label="Rack")
    core = Device.objects.create(
        name="core-1", device_type=switch, custom_fields={"rack": "r1"}
    )
    core.tags.set([prod])
    edge = Device.objects.create(
        name="edge-1", device_type=switch, custom_fields={"rack": "r2"}
    )
    vault = Device.objects.create(name="vault-1", device_type=switch, locked=True)
    eth0 = Interface.objects.create(device=core, name="eth0", mtu=1500)
    item = InventoryItem.objects.create(device=core, name="psu", serial="SN-1")
    return {
        "acme": acme,
        "switch": switch,
        "prod": prod,
        "core": core,
        "edge": edge,
        "vault": vault,
        "eth0": eth0,
        "item": item,
    }


def _user(name: str, *, reader: bool, perms: tuple[str, ...] = ()) -> User:
    user = User.objects.create_user(name, password="pw")
    if reader:
        group, _ = Group.objects.get_or_create(name=READERS_GROUP)
        user.groups.add(group)
    for codename in perms:
        user.user_permissions.add(
            Permission.objects.get(content_type__app_label="zoo", codename=codename)
        )
    return user


@pytest.fixture
def client() -> Client:
    """A reader who may add, change and delete devices (not a superuser)."""
    user = _user(
        "operator",
        reader=True,
        perms=("add_device", "change_device", "delete_device"),
    )
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def mcp(client: Client) -> MCPTestClient:
    """An MCP client signed in as the same operator."""
    session = MCPTestClient(client)
    session.initialize()
    return session


@pytest.fixture
def zoo(client: Client, mcp: MCPTestClient) -> Parity:
    """REST and MCP as the operator."""
    return Parity(client, mcp)


# --- running one request both ways ------------------------------------------

#: The REST body is the tool's arguments less the path id (the default).
SAME: Any = object()


def rows() -> dict[str, list[dict[str, Any]]]:
    """Every zoo row, by model, as plain values."""
    return {
        model._meta.label: list(model._default_manager.order_by("pk").values())
        for model in MODELS
    }


@dataclass
class Outcome:
    """What one REST request or MCP call came to."""

    verdict: str
    body: Any
    stored: dict[str, list[dict[str, Any]]]
    detail: Any = None


REST_VERDICTS = {400: "invalid", 401: "denied", 403: "denied", 404: "not_found"}
REST_VERDICTS[409] = "conflict"


def rest(client: Client, request: str, body: Any, query: Any) -> Outcome:
    """Send ``"METHOD /path/"`` under the zoo API; verdict, answer, rows."""
    method, path = request.split(" ", 1)
    send = getattr(client, method.lower())
    if method == "GET":
        response = send(API + path, data=query or {})
    else:
        payload = None if body is None else json.dumps(body)
        response = send(API + path, data=payload, content_type="application/json")
    status = response.status_code
    answer = json.loads(response.content) if response.content else None
    verdict = "allowed" if status < 300 else REST_VERDICTS.get(status, str(status))
    detail = answer.get("detail") if isinstance(answer, dict) else None
    return Outcome(verdict, answer, rows(), detail)


def call(mcp: MCPTestClient, tool: str, arguments: Mapping[str, Any]) -> Outcome:
    """Call one tool; the verdict, the structured result and the rows."""
    try:
        result = mcp.call_tool(tool, dict(arguments))
    except MCPError as exc:
        code = exc.data.get("code") if isinstance(exc.data, dict) else None
        verdict = f"error {exc.code} {code}"
        if exc.code == -32602 and code in INPUT_ERROR_CODES:
            verdict = "invalid"
        elif exc.code == -32602 and code == "unknown_tool":
            verdict = "denied"  # hidden from this caller
        return Outcome(verdict, exc.data, rows(), exc.message)
    content = result.get("structuredContent")
    if result.get("isError"):
        error = (content or {}).get("error", {})
        verdict = EXECUTION_VERDICTS.get(error.get("code"), f"error {error}")
        return Outcome(verdict, content, rows(), error.get("detail"))
    return Outcome("allowed", content, rows())


def _rewind_sequences() -> None:
    """Give MCP the ids REST had: PostgreSQL keeps sequences past a rollback."""
    if connection.vendor != "postgresql":
        return
    models = list(apps.get_app_config("zoo").get_models(include_auto_created=True))
    with connection.cursor() as cursor:
        for statement in connection.ops.sequence_reset_sql(no_style(), models):
            cursor.execute(statement)


@dataclass
class Parity:
    """One caller, over REST and over MCP."""

    client: Client
    mcp: MCPTestClient

    def same(
        self,
        request: str,
        tool: str,
        arguments: Mapping[str, Any],
        *,
        body: Any = SAME,
        query: Mapping[str, Any] | None = None,
        verdict: str = "allowed",
    ) -> tuple[Outcome, Outcome]:
        """Run the REST request (rolled back), then the MCP call; compare.

        Both must reach ``verdict`` and leave the same rows; a success must
        return the same representation (a REST page's ``results`` and
        ``count``).
        """
        if body is SAME:
            body = {k: v for k, v in arguments.items() if k != "id"} or None
        _rewind_sequences()
        savepoint = transaction.savepoint()
        over_rest = rest(self.client, request, body, query)
        transaction.savepoint_rollback(savepoint)
        _rewind_sequences()
        over_mcp = call(self.mcp, tool, arguments)
        assert over_mcp.verdict == over_rest.verdict == verdict, (over_rest, over_mcp)
        assert over_mcp.stored == over_rest.stored
        answer = over_rest.body
        if verdict != "allowed" or answer is None:
            return over_rest, over_mcp
        if isinstance(answer, dict) and {"next", "results"} <= answer.keys():
            assert over_mcp.body["results"] == answer["results"]
            assert over_mcp.body["count"] == answer["count"]
        elif isinstance(answer, list):
            assert over_mcp.body["results"] == answer
        else:
            assert over_mcp.body == answer
        return over_rest, over_mcp


def tool_schema(mcp: MCPTestClient, name: str) -> dict[str, Any]:
    return next(t["inputSchema"] for t in mcp.list_tools() if t["name"] == name)


# --- listing and checks ------------------------------------------------------


@override_settings(
    FRISIAN_MCP={
        "REQUIRE_AUTHENTICATION": False,
        "TOOL_LAYOUT": "flat",
        "TOOLS_LIST_PAGE_SIZE": 7,
    }
)
def test_every_zoo_tool_is_listed_on_some_page(mcp: MCPTestClient) -> None:
    names = [tool["name"] for tool in mcp.list_tools()]
    assert len(names) == len(set(names))
    assert set(names) == EXPECTED_TOOLS


def test_the_excluded_api_root_is_no_tool_and_adds_no_prefix(
    mcp: MCPTestClient,
) -> None:
    names = {tool["name"] for tool in mcp.list_tools()}
    assert not any(name.startswith(("api__", "zoo__")) for name in names)
    assert "get" not in names


@override_settings(
    FRISIAN_MCP={"REQUIRE_AUTHENTICATION": False, "DISPATCHER_GROUP_BY": "path"}
)
def test_dispatchers_carry_no_mount_prefix() -> None:
    registry = ToolRegistry.from_settings()
    groups = {d["name"] for d in registry.definitions("dispatcher")}
    assert groups == {name.split("__")[0] for name in EXPECTED_TOOLS}


def test_manage_py_check_says_nothing_about_the_zoo() -> None:
    out, err = StringIO(), StringIO()
    call_command("check", stdout=out, stderr=err)
    assert "frisian_mcp" not in out.getvalue() + err.getvalue()
    assert not [
        m
        for m in checks.run_checks()
        if m.id is not None and m.id.startswith("frisian_mcp.")
    ]


def test_the_tools_command_lists_every_zoo_tool() -> None:
    out = StringIO()
    call_command("frisian_mcp_tools", "--format", "json", stdout=out, stderr=StringIO())
    assert {tool["name"] for tool in json.loads(out.getvalue())} == EXPECTED_TOOLS


def test_every_detail_tool_takes_the_path_id_first(mcp: MCPTestClient) -> None:
    for tool in mcp.list_tools():
        action = tool["name"].rsplit("__", 1)[1]
        if action in ("retrieve", "update", "partial_update", "destroy", "rename"):
            assert tool["inputSchema"]["required"][0] == "id", tool["name"]


# --- manufacturers: Accept-header versioning, protected delete -----------------


def test_manufacturer_list_with_a_filter(world: Any, zoo: Parity) -> None:
    _, over_mcp = zoo.same(
        "GET /dcim/manufacturers/",
        "dcim__manufacturers__list",
        {"filters": {"slug": "acme"}},
        query={"slug": "acme"},
    )
    assert [m["api_version"] for m in over_mcp.body["results"]] == ["1.0"]


def test_manufacturer_create_retrieve_update(world: Any, zoo: Parity) -> None:
    pk = world["acme"].pk
    created = {"name": "Globex", "slug": "globex", "description": "Routers"}
    zoo.same("POST /dcim/manufacturers/", "dcim__manufacturers__create", created)
    zoo.same(
        f"GET /dcim/manufacturers/{pk}/", "dcim__manufacturers__retrieve", {"id": pk}
    )
    change = {"id": pk, "name": "Acme", "slug": "acme", "description": "New"}
    zoo.same(f"PUT /dcim/manufacturers/{pk}/", "dcim__manufacturers__update", change)
    zoo.same(
        f"PATCH /dcim/manufacturers/{pk}/",
        "dcim__manufacturers__partial_update",
        {"id": pk, "description": ""},
    )


#: The zoo's settings with the Accept-header API version pinned.
VERSION_2 = {
    "REQUIRE_AUTHENTICATION": False,
    "TOOL_LAYOUT": "flat",
    "API_VERSION": "2.0",
}


def operator_at_version_2() -> Client:
    """The operator over REST, asking for version 2.0 in its Accept header."""
    versioned = Client(headers={"accept": "application/json; version=2.0"})
    versioned.force_login(User.objects.get(username="operator"))
    return versioned


def test_api_version_reaches_accept_header_versioned_views(
    world: Any, client: Client
) -> None:
    """With API_VERSION, calls ask for it as a REST client's Accept header does."""
    versioned = operator_at_version_2()
    with override_settings(FRISIAN_MCP=VERSION_2):
        mcp = MCPTestClient(client)
        mcp.initialize()
        pk = world["acme"].pk
        zoo = Parity(versioned, mcp)
        _, listed = zoo.same(
            "GET /dcim/manufacturers/",
            "dcim__manufacturers__list",
            {"filters": {"slug": "acme"}},
            query={"slug": "acme"},
        )
        assert [m["api_version"] for m in listed.body["results"]] == ["2.0"]
        created = {"name": "Globex", "slug": "globex", "description": "Routers"}
        _, made = zoo.same(
            "POST /dcim/manufacturers/", "dcim__manufacturers__create", created
        )
        assert made.body["api_version"] == "2.0"
        zoo.same(
            f"GET /dcim/manufacturers/{pk}/",
            "dcim__manufacturers__retrieve",
            {"id": pk},
        )


def test_api_version_chooses_the_listed_and_called_serializer(
    world: Any, client: Client
) -> None:
    """2.0 requires a description: its schema says so, and a call without one
    is refused as REST refuses it, writing nothing."""
    versioned = operator_at_version_2()
    create = "dcim__manufacturers__create"
    with override_settings(FRISIAN_MCP=VERSION_2):
        mcp = MCPTestClient(client)
        mcp.initialize()
        assert "description" in tool_schema(mcp, create)["required"]
        Parity(versioned, mcp).same(
            "POST /dcim/manufacturers/",
            create,
            {"name": "Globex", "slug": "globex"},
            verdict="invalid",
        )
    mcp = MCPTestClient(client)
    mcp.initialize()
    assert "description" not in tool_schema(mcp, create).get("required", [])


def test_an_api_version_a_view_refuses_is_a_check_warning(world: Any) -> None:
    with override_settings(FRISIAN_MCP={**VERSION_2, "API_VERSION": "9.9"}):
        found = [m for m in checks.run_checks() if m.id == "frisian_mcp.W007"]
        assert [m.obj for m in found] == ["tests.zoo.views.ManufacturerViewSet"]
        assert "9.9" not in found[0].msg  # the setting is named, not its value
    with override_settings(FRISIAN_MCP=VERSION_2):
        assert not [m for m in checks.run_checks() if m.id == "frisian_mcp.W007"]


@pytest.mark.parametrize("bad", [2, ""])
def test_api_version_must_be_a_non_empty_string(bad: Any) -> None:
    with override_settings(FRISIAN_MCP={**VERSION_2, "API_VERSION": bad}):
        errors = [m for m in checks.run_checks() if m.id == "frisian_mcp.E007"]
    assert any("API_VERSION" in m.msg for m in errors)


def test_unprotected_manufacturer_is_deleted(world: Any, zoo: Parity) -> None:
    pk = Manufacturer.objects.get(slug="unused").pk
    zoo.same(
        f"DELETE /dcim/manufacturers/{pk}/", "dcim__manufacturers__destroy", {"id": pk}
    )
    assert not Manufacturer.objects.filter(pk=pk).exists()


def test_protected_delete_answers_the_hosts_409_message(
    world: Any, zoo: Parity
) -> None:
    pk = world["acme"].pk
    over_rest, over_mcp = zoo.same(
        f"DELETE /dcim/manufacturers/{pk}/",
        "dcim__manufacturers__destroy",
        {"id": pk},
        verdict="conflict",
    )
    assert over_rest.detail == (
        "Unable to delete manufacturer: 1 dependent objects were found: X1"
    )
    assert over_mcp.detail == over_rest.detail


def test_protected_delete_of_a_device_type_in_use(world: Any, zoo: Parity) -> None:
    pk = world["switch"].pk
    over_rest, over_mcp = zoo.same(
        f"DELETE /dcim/device-types/{pk}/",
        "dcim__device-types__destroy",
        {"id": pk},
        verdict="conflict",
    )
    assert over_mcp.detail == over_rest.detail
    assert "3 dependent objects were found: core-1, edge-1" in over_mcp.detail


# --- brief nested FKs: an id, a numeric string, any unique field ----------------

ITEM_2 = "issue 11 item 2: "
MANUFACTURER_FORMS = [
    pytest.param(lambda m: m.pk, id="id"),
    pytest.param(lambda m: str(m.pk), id="numeric-string"),
    pytest.param(lambda m: {"slug": m.slug}, id="slug"),
    pytest.param(lambda m: {"name": m.name}, id="name"),
]


@pytest.mark.parametrize("form", MANUFACTURER_FORMS)
def test_device_type_create_names_its_manufacturer_as_the_host_accepts(
    world: Any, zoo: Parity, form: Any
) -> None:
    created = {"manufacturer": form(world["acme"]), "model": "X2", "slug": "x2"}
    zoo.same("POST /dcim/device-types/", "dcim__device-types__create", created)
    assert DeviceType.objects.get(slug="x2").manufacturer == world["acme"]


def test_device_type_reads_and_writes(world: Any, zoo: Parity) -> None:
    pk, acme = world["switch"].pk, world["acme"].pk
    zoo.same(
        "GET /dcim/device-types/",
        "dcim__device-types__list",
        {"filters": {"slug": "x1"}},
        query={"slug": "x1"},
    )
    zoo.same(
        f"GET /dcim/device-types/{pk}/", "dcim__device-types__retrieve", {"id": pk}
    )
    change = {"id": pk, "manufacturer": acme, "model": "X1b", "slug": "x1"}
    zoo.same(f"PUT /dcim/device-types/{pk}/", "dcim__device-types__update", change)
    zoo.same(
        f"PATCH /dcim/device-types/{pk}/",
        "dcim__device-types__partial_update",
        {"id": pk, "u_height": 2},
    )


def test_an_unknown_manufacturer_is_invalid_both_ways_and_not_echoed(
    world: Any, zoo: Parity
) -> None:
    created = {"manufacturer": 987654, "model": "X9", "slug": "x9"}
    over_rest, over_mcp = zoo.same(
        "POST /dcim/device-types/",
        "dcim__device-types__create",
        created,
        verdict="invalid",
    )
    assert "987654" in json.dumps(over_rest.body)
    assert "987654" not in json.dumps(over_mcp.body) + str(over_mcp.detail)


# --- devices: the project's permission class, dynamic filters, q, an action -----


def test_device_list_plain_and_filtered(world: Any, zoo: Parity) -> None:
    zoo.same("GET /dcim/devices/", "dcim__devices__list", {})
    _, over_mcp = zoo.same(
        "GET /dcim/devices/",
        "dcim__devices__list",
        {"filters": {"manufacturer": "acme", "locked": True}},
        query={"manufacturer": "acme", "locked": "true"},
    )
    assert [d["name"] for d in over_mcp.body["results"]] == ["vault-1"]


def test_a_query_parameter_read_in_get_queryset(world: Any, zoo: Parity) -> None:
    _, over_mcp = zoo.same(
        "GET /dcim/devices/",
        "dcim__devices__list",
        {"filters": {"q": "edge"}},
        query={"q": "edge"},
    )
    assert [d["name"] for d in over_mcp.body["results"]] == ["edge-1"]


def test_format_is_not_offered_as_a_filter(mcp: MCPTestClient) -> None:
    for tool in mcp.list_tools():
        filters = tool["inputSchema"]["properties"].get("filters", {})
        assert "format" not in filters.get("properties", {}), tool["name"]


def test_a_filter_added_in_the_filter_sets_init(world: Any, zoo: Parity) -> None:
    _, over_mcp = zoo.same(
        "GET /dcim/devices/",
        "dcim__devices__list",
        {"filters": {"cf_rack": "r2"}},
        query={"cf_rack": "r2"},
    )
    assert [d["name"] for d in over_mcp.body["results"]] == ["edge-1"]


def test_help_shows_the_dynamic_filters(world: Any, mcp: MCPTestClient) -> None:
    result = mcp.call_tool("dcim__devices__list", {"help": True})
    assert "cf_rack" in result["structuredContent"]["help"]["filters"]


def _refused(mcp: MCPTestClient, tool: str, arguments: dict[str, Any]) -> Any:
    """The -32602 error data of a call that must be refused and write nothing."""
    before = rows()
    with pytest.raises(MCPError) as info:
        mcp.call_tool(tool, arguments)
    assert info.value.code == -32602
    assert rows() == before
    return info.value.data


def test_the_listing_leaves_per_instance_filters_to_help(mcp: MCPTestClient) -> None:
    tools = {tool["name"]: tool for tool in mcp.list_tools()}
    growing = tools["dcim__devices__list"]["inputSchema"]["properties"]["filters"]
    assert growing["additionalProperties"] is not False
    assert "help" in growing["description"]
    fixed = tools["dcim__interfaces__list"]["inputSchema"]["properties"]["filters"]
    assert fixed["additionalProperties"] is False


def test_an_unknown_key_of_a_growing_filter_set_is_refused(
    world: Any, mcp: MCPTestClient
) -> None:
    data = _refused(
        mcp, "dcim__devices__list", {"filters": {"cf_shelf": "SECRET-zz-9"}}
    )
    assert data["code"] == "invalid_argument"
    (entry,) = data["fields"]
    assert (entry["field"], entry["code"]) == ("filters", "unknown_key")
    assert "cf_shelf" in entry["message"]
    assert "allowed keys: cf_rack, device_type" in entry["message"]
    assert "SECRET-zz-9" not in json.dumps(data)


def test_a_per_instance_filter_keeps_its_type(world: Any, mcp: MCPTestClient) -> None:
    data = _refused(mcp, "dcim__devices__list", {"filters": {"cf_rack": 424242}})
    assert data["code"] == "invalid_argument"
    (entry,) = data["fields"]
    assert (entry["field"], entry["code"]) == ("filters.cf_rack", "invalid_type")
    assert "424242" not in json.dumps(data)


def test_filters_follow_custom_fields_changed_after_the_listing(
    world: Any, mcp: MCPTestClient
) -> None:
    mcp.list_tools()  # the schemas are built
    CustomField.objects.create(name="row", label="Row")
    Device.objects.filter(name="vault-1").update(custom_fields={"row": "7"})
    CustomField.objects.filter(name="rack").delete()
    page = mcp.call_tool("dcim__devices__list", {"filters": {"cf_row": "7"}})
    assert [d["name"] for d in page["structuredContent"]["results"]] == ["vault-1"]
    documented = mcp.call_tool("dcim__devices__list", {"help": True})
    keys = documented["structuredContent"]["help"]["filters"]
    assert "cf_row" in keys
    assert "cf_rack" not in keys
    data = _refused(mcp, "dcim__devices__list", {"filters": {"cf_rack": "r1"}})
    assert (data["fields"][0]["field"], data["fields"][0]["code"]) == (
        "filters",
        "unknown_key",
    )


@pytest.mark.parametrize(
    ("tool", "key"),
    [
        ("dcim__device-types__list", "manufacturer"),
        ("dcim__interfaces__list", "device"),
    ],
)
def test_a_filter_backends_error_names_the_filters_key(
    world: Any, mcp: MCPTestClient, tool: str, key: str
) -> None:
    # The schema takes any integer; django-filter refuses an id it cannot find.
    data = _refused(mcp, tool, {"filters": {key: 987654}})
    assert data["code"] == "validation_failed"
    (entry,) = data["fields"]
    assert (entry["field"], entry["code"]) == (f"filters.{key}", "invalid_choice")
    assert "987654" not in json.dumps(data)


def test_device_retrieve_gives_the_canonical_absolute_url(
    world: Any, zoo: Parity
) -> None:
    pk = world["core"].pk
    _, over_mcp = zoo.same(
        f"GET /dcim/devices/{pk}/", "dcim__devices__retrieve", {"id": pk}
    )
    assert over_mcp.body["url"] == f"{CANONICAL}{API}/dcim/devices/{pk}/"


DEVICE_TYPE_FORMS = [
    pytest.param(lambda t: t.pk, id="id"),
    pytest.param(lambda t: str(t.pk), id="numeric-string"),
    pytest.param(lambda t: {"slug": t.slug}, id="slug"),
]


@pytest.mark.parametrize("form", DEVICE_TYPE_FORMS)
def test_device_create_with_type_and_tags_as_the_host_accepts(
    world: Any, zoo: Parity, form: Any
) -> None:
    created = {
        "name": "access-1",
        "device_type": form(world["switch"]),
        "tags": [world["prod"].pk],
        "custom_fields": {"rack": "r9"},
    }
    _, over_mcp = zoo.same("POST /dcim/devices/", "dcim__devices__create", created)
    assert over_mcp.body["url"].startswith(CANONICAL)


def test_device_tags_by_name(world: Any, zoo: Parity) -> None:
    created = {
        "name": "access-2",
        "device_type": world["switch"].pk,
        "tags": [{"name": "Production"}],
    }
    zoo.same("POST /dcim/devices/", "dcim__devices__create", created)


def test_validate_mode_runs_the_hosts_checks_and_writes_nothing(
    world: Any, mcp: MCPTestClient
) -> None:
    before = rows()
    created = {"name": "access-3", "device_type": str(world["switch"].pk)}
    result = mcp.call_tool("dcim__devices__create", {**created, "mode": "validate"})
    assert result["isError"] is False
    assert "validation" in result["structuredContent"]
    with pytest.raises(MCPError) as info:
        mcp.call_tool(
            "dcim__devices__create",
            {**created, "custom_fields": {"shelf": "s1"}, "mode": "validate"},
        )
    assert info.value.data["fields"][0]["field"] == "custom_fields"
    assert rows() == before


def test_device_update_partial_update_and_delete(world: Any, zoo: Parity) -> None:
    pk, switch = world["edge"].pk, world["switch"].pk
    change = {"id": pk, "name": "edge-2", "device_type": switch, "status": "planned"}
    zoo.same(f"PUT /dcim/devices/{pk}/", "dcim__devices__update", change)
    zoo.same(
        f"PATCH /dcim/devices/{pk}/",
        "dcim__devices__partial_update",
        {"id": pk, "custom_fields": {"rack": "r3"}},
    )
    zoo.same(f"DELETE /dcim/devices/{pk}/", "dcim__devices__destroy", {"id": pk})


def test_an_unknown_custom_field_is_invalid_both_ways(world: Any, zoo: Parity) -> None:
    pk = world["edge"].pk
    zoo.same(
        f"PATCH /dcim/devices/{pk}/",
        "dcim__devices__partial_update",
        {"id": pk, "custom_fields": {"shelf": "s1"}},
        verdict="invalid",
    )


def test_action_with_a_serializer_class_as_its_request(
    world: Any, zoo: Parity, mcp: MCPTestClient
) -> None:
    pk = world["edge"].pk
    _, over_mcp = zoo.same(
        f"POST /dcim/devices/{pk}/rename/",
        "dcim__devices__rename",
        {"id": pk, "name": "edge-9"},
    )
    assert over_mcp.body["name"] == "edge-9"
    assert tool_schema(mcp, "dcim__devices__rename")["required"] == ["id", "name"]
    zoo.same(
        f"POST /dcim/devices/{pk}/rename/",
        "dcim__devices__rename",
        {"id": pk, "name": "x" * 65},
        verdict="invalid",
    )


def test_object_permission_refuses_a_locked_device_both_ways(
    world: Any, zoo: Parity
) -> None:
    pk = world["vault"].pk
    over_rest, over_mcp = zoo.same(
        f"PATCH /dcim/devices/{pk}/",
        "dcim__devices__partial_update",
        {"id": pk, "status": "offline"},
        verdict="denied",
    )
    assert over_rest.detail == "This device is locked; only superusers may change it."
    assert over_mcp.detail == over_rest.detail


def _signed_in(user: User) -> Parity:
    client = Client()
    client.force_login(user)
    mcp = MCPTestClient(client)
    mcp.initialize()
    return Parity(client, mcp)


def test_a_user_outside_the_readers_group_is_refused_both_ways(world: Any) -> None:
    outsider = _signed_in(_user("outsider", reader=False))
    names = {tool["name"] for tool in outsider.mcp.list_tools()}
    assert "dcim__devices__list" not in names
    assert "dcim__manufacturers__list" in names
    outsider.same("GET /dcim/devices/", "dcim__devices__list", {}, verdict="denied")


def test_a_reader_without_the_model_permission_may_not_write(world: Any) -> None:
    reader = _signed_in(_user("reader", reader=True))
    names = {tool["name"] for tool in reader.mcp.list_tools()}
    assert "dcim__devices__list" in names
    assert "dcim__devices__create" not in names
    reader.same(
        "POST /dcim/devices/",
        "dcim__devices__create",
        {"name": "x", "device_type": world["switch"].pk},
        verdict="denied",
    )


# --- interfaces: hyperlinks, a path id declared as a string --------------------


def test_interface_retrieve_with_the_string_id_the_schema_declares(
    world: Any, zoo: Parity
) -> None:
    pk, core = world["eth0"].pk, world["core"].pk
    _, over_mcp = zoo.same(
        f"GET /dcim/interfaces/{pk}/", "dcim__interfaces__retrieve", {"id": str(pk)}
    )
    assert over_mcp.body["url"] == f"{CANONICAL}{API}/dcim/interfaces/{pk}/"
    assert over_mcp.body["device"] == f"{CANONICAL}{API}/dcim/devices/{core}/"


@pytest.mark.parametrize(
    ("method", "action", "change"),
    [
        ("GET", "retrieve", {}),
        ("PATCH", "partial_update", {"mtu": 9000}),
        ("DELETE", "destroy", {}),
    ],
)
def test_a_string_path_id_takes_the_integer_id(
    world: Any, zoo: Parity, method: str, action: str, change: dict[str, Any]
) -> None:
    pk = world["eth0"].pk
    zoo.same(
        f"{method} /dcim/interfaces/{pk}/",
        f"dcim__interfaces__{action}",
        {"id": pk, **change},
    )


@pytest.mark.parametrize(
    ("tool", "arguments", "field"),
    [
        # Only path ids are converted: a body field typed string stays strict.
        ("dcim__interfaces__create", {"device": 0, "name": 5}, "name"),
        # A boolean is no id, even where Python counts it as an integer.
        ("dcim__interfaces__partial_update", {"id": True, "mtu": 9000}, "id"),
        ("dcim__interfaces__destroy", {"id": 1.5}, "id"),
    ],
)
def test_only_an_integer_path_id_becomes_a_string(
    world: Any, mcp: MCPTestClient, tool: str, arguments: dict[str, Any], field: str
) -> None:
    if "device" in arguments:
        arguments["device"] = f"{CANONICAL}{API}/dcim/devices/{world['core'].pk}/"
    before = rows()
    with pytest.raises(MCPError) as info:
        mcp.call_tool(tool, arguments)
    assert info.value.code == -32602
    assert info.value.data["code"] == "invalid_argument"
    assert [f["field"] for f in info.value.data["fields"]] == [field]
    assert info.value.data["fields"][0]["code"] == "invalid_type"
    assert rows() == before


def test_interface_create_with_the_device_url(world: Any, zoo: Parity) -> None:
    device = f"{CANONICAL}{API}/dcim/devices/{world['core'].pk}/"
    created = {"device": device, "name": "eth1", "enabled": False}
    zoo.same("POST /dcim/interfaces/", "dcim__interfaces__create", created)


HYPERLINK_FORMS = [
    pytest.param(lambda d: {"name": d.name}, id="lookup-object"),
    pytest.param(lambda d: d.pk, id="id"),
    pytest.param(lambda d: str(d.pk), id="numeric-string"),
]


@pytest.mark.parametrize("form", HYPERLINK_FORMS)
def test_interface_create_with_the_devices_other_forms(
    world: Any, zoo: Parity, form: Any
) -> None:
    url = f"{CANONICAL}{API}/dcim/devices/{world['core'].pk}/"
    zoo.same(
        "POST /dcim/interfaces/",
        "dcim__interfaces__create",
        {"device": form(world["core"]), "name": "eth1"},
        body={"device": url, "name": "eth1"},
    )


def test_interface_list_update_and_delete(world: Any, zoo: Parity) -> None:
    pk, core = world["eth0"].pk, world["core"].pk
    zoo.same(
        "GET /dcim/interfaces/",
        "dcim__interfaces__list",
        {"filters": {"device": core}},
        query={"device": core},
    )
    device = f"{CANONICAL}{API}/dcim/devices/{core}/"
    change = {"device": device, "name": "eth0", "enabled": True, "mtu": 9000}
    zoo.same(
        f"PUT /dcim/interfaces/{pk}/",
        "dcim__interfaces__update",
        {"id": str(pk), **change},
    )
    zoo.same(
        f"PATCH /dcim/interfaces/{pk}/",
        "dcim__interfaces__partial_update",
        {"id": str(pk), "mtu": 1400},
    )
    zoo.same(
        f"DELETE /dcim/interfaces/{pk}/", "dcim__interfaces__destroy", {"id": str(pk)}
    )


# --- tags (URL path versions), custom fields (namespace versions) ---------------


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_tags_by_url_path_version(world: Any, zoo: Parity, version: str) -> None:
    tool, path, pk = (
        f"{version}__extras__tags__",
        f"/{version}/extras/tags/",
        world["prod"].pk,
    )
    zoo.same(f"POST {path}", tool + "create", {"name": "Lab", "slug": "lab"})
    zoo.same(
        f"GET {path}",
        tool + "list",
        {"filters": {"slug": "prod"}},
        query={"slug": "prod"},
    )
    zoo.same(f"GET {path}{pk}/", tool + "retrieve", {"id": pk})
    zoo.same(
        f"PATCH {path}{pk}/", tool + "partial_update", {"id": pk, "color": "ff0000"}
    )
    zoo.same(
        f"PUT {path}{pk}/", tool + "update", {"id": pk, "name": "Prod", "slug": "prod"}
    )
    zoo.same(f"DELETE {path}{pk}/", tool + "destroy", {"id": pk})


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_custom_fields_by_namespace_version(
    world: Any, zoo: Parity, version: str
) -> None:
    tool, path = (
        f"legacy__{version}__custom-fields__",
        f"/legacy/{version}/custom-fields/",
    )
    pk = CustomField.objects.get(name="rack").pk
    zoo.same(f"POST {path}", tool + "create", {"name": "asset_tag", "label": "Asset"})
    zoo.same(f"GET {path}", tool + "list", {})
    zoo.same(f"GET {path}{pk}/", tool + "retrieve", {"id": pk})
    zoo.same(
        f"PUT {path}{pk}/", tool + "update", {"id": pk, "name": "rack", "label": "R"}
    )
    zoo.same(f"PATCH {path}{pk}/", tool + "partial_update", {"id": pk, "label": "S"})
    zoo.same(f"DELETE {path}{pk}/", tool + "destroy", {"id": pk})


# --- a plugin under nested namespaces, with a custom related field -------------

DEVICE_FORMS = [
    pytest.param(lambda d: d.pk, id="id"),
    pytest.param(lambda d: str(d.pk), id="numeric-string"),
    pytest.param(lambda d: {"name": d.name}, id="name"),
]


@pytest.mark.parametrize("form", DEVICE_FORMS)
def test_plugin_item_create_names_its_device_as_the_host_accepts(
    world: Any, zoo: Parity, form: Any
) -> None:
    created = {"device": form(world["edge"]), "name": "fan", "serial": "SN-2"}
    zoo.same(
        "POST /plugins/inventory/items/", "plugins__inventory__items__create", created
    )
    assert InventoryItem.objects.get(serial="SN-2").device == world["edge"]


def test_plugin_item_reads_and_writes(world: Any, zoo: Parity) -> None:
    pk, core = world["item"].pk, world["core"].pk
    tool, path = "plugins__inventory__items__", "/plugins/inventory/items/"
    zoo.same(f"GET {path}", tool + "list", {})
    zoo.same(f"GET {path}{pk}/", tool + "retrieve", {"id": pk})
    zoo.same(
        f"PUT {path}{pk}/",
        tool + "update",
        {"id": pk, "device": core, "name": "psu-2", "serial": "SN-1"},
    )
    zoo.same(f"PATCH {path}{pk}/", tool + "partial_update", {"id": pk, "name": "psu-3"})
    zoo.same(f"DELETE {path}{pk}/", tool + "destroy", {"id": pk})


def test_a_hosts_own_related_field_is_left_untyped_in_the_record(
    world: Any, zoo: Parity
) -> None:
    """drf-spectacular calls a related field it cannot map a string; the
    plugin's answers the device's id, so the record schema types neither
    (issue 26 item 1: the SDK refused the record)."""
    tools = {t["name"]: t for t in zoo.mcp.list_tools()}
    listed = tools["plugins__inventory__items__retrieve"]["outputSchema"]
    assert "type" not in listed["anyOf"][0]["properties"]["device"]
    result = zoo.mcp.call_tool(
        "plugins__inventory__items__retrieve", {"id": world["item"].pk}
    )
    assert result["structuredContent"]["device"] == world["item"].device.pk
    Draft202012Validator(listed).validate(result["structuredContent"])


# --- references refused: a precise error, no value echoed, nothing written -----

MISSING = 987654
REFUSED_REFERENCES = [
    # A native field's lookup object is open, but never empty.
    pytest.param(
        "dcim__device-types__create",
        {"manufacturer": {}, "model": "X9", "slug": "x9"},
        None,
        "invalid_reference",
        "id, name, slug",
        id="native-empty-object",
    ),
    # Keys and misses of a native field are the host's to judge.
    pytest.param(
        "dcim__device-types__create",
        {"manufacturer": {"colour": "SENTINEL"}, "model": "X9", "slug": "x9"},
        None,
        "validation_failed",
        "id, name, pk, slug",
        id="native-unknown-key",
    ),
    pytest.param(
        "dcim__device-types__create",
        {"manufacturer": {"slug": "SENTINEL"}, "model": "X9", "slug": "x9"},
        None,
        "validation_failed",
        "not found",
        id="native-no-match",
    ),
    pytest.param(
        "dcim__devices__create",
        {
            "name": "access-9",
            "device_type": {"slug": "x1"},
            "tags": [{"name": "SENTINEL"}],
        },
        None,
        "validation_failed",
        "not found",
        id="native-many-no-match",
    ),
    pytest.param(
        "plugins__inventory__items__create",
        {"device": {"name": "SENTINEL"}, "name": "fan", "serial": "SN-9"},
        None,
        "validation_failed",
        "not found",
        id="native-related-field-no-match",
    ),
    # A hyperlinked field's ids and lookups are resolved here.
    pytest.param(
        "dcim__interfaces__create",
        {"device": MISSING, "name": "eth9"},
        {"device": f"{CANONICAL}{API}/dcim/devices/{MISSING}/", "name": "eth9"},
        "invalid_reference",
        "matches no device you can see (looked up by id)",
        id="hyperlink-unknown-id",
    ),
    pytest.param(
        "dcim__interfaces__create",
        {"device": str(MISSING), "name": "eth9"},
        {"device": f"{CANONICAL}{API}/dcim/devices/{MISSING}/", "name": "eth9"},
        "invalid_reference",
        "matches no device you can see (looked up by id)",
        id="hyperlink-unknown-numeric-string",
    ),
    pytest.param(
        "dcim__interfaces__create",
        {"device": {"serial": "SENTINEL"}, "name": "eth9"},
        {"device": "SENTINEL", "name": "eth9"},
        "invalid_reference",
        "lookup keys: id, name",
        id="hyperlink-unknown-lookup-key",
    ),
    pytest.param(
        "dcim__interfaces__create",
        {"device": "SENTINEL", "name": "eth9"},
        None,
        "validation_failed",
        "not a link to an object of the right kind",
        id="hyperlink-neither-id-nor-link",
    ),
]


@pytest.mark.parametrize(
    ("tool", "arguments", "body", "code", "named"), REFUSED_REFERENCES
)
def test_a_refused_reference_is_named_and_writes_nothing(
    world: Any,
    zoo: Parity,
    tool: str,
    arguments: dict[str, Any],
    body: Any,
    code: str,
    named: str,
) -> None:
    before = rows()
    path = "/" + tool.rsplit("__", 1)[0].replace("__", "/") + "/"
    _, over_mcp = zoo.same(
        f"POST {path}", tool, arguments, body=body or arguments, verdict="invalid"
    )
    assert over_mcp.body["code"] == code
    assert over_mcp.stored == before
    sent = json.dumps(over_mcp.body) + str(over_mcp.detail)
    assert named in sent
    assert "SENTINEL" not in sent
    assert str(MISSING) not in sent


# --- plain views with a serializer class ---------------------------------------


def test_plain_api_view_with_a_serializer_class(world: Any, zoo: Parity) -> None:
    _, over_mcp = zoo.same("GET /status/", "status__get", {})
    assert over_mcp.body == {"devices": 3, "manufacturers": 2}


def test_plain_viewset_with_a_serializer_class(world: Any, zoo: Parity) -> None:
    zoo.same("GET /reports/", "reports__list", {})
    _, over_mcp = zoo.same("POST /reports/", "reports__create", {"status": "active"})
    assert over_mcp.body == {"status": "active", "count": 3}
    zoo.same("POST /reports/", "reports__create", {"status": "gone"}, verdict="invalid")
