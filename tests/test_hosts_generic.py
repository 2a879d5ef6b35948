"""A content-type field takes REST's ``app_label.model`` (issue 25 item 0).

The interface-assignment host (``tests.hosts.generic``) names what an IP
address is assigned to by a content type, ``"generic.interface"``, through
a related field over ``ContentType`` that reads that text itself. Issue 18's
FK work took it for a foreign key taking an id or a lookup object and
refused REST's own form. Each variant of the field (a ``RelatedField`` or
a ``SlugRelatedField`` subclass, with and without a declared string schema)
now takes what REST takes, with the same status and stored row.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.contenttypes.models import ContentType
from django.test import override_settings

from frisian_mcp.contrib.testing import MCPTestClient
from tests.hosts.generic.models import Interface, IPAddress, VMInterface
from tests.side_by_side import MARKER, over_mcp, same, sent_nothing_of

pytestmark = pytest.mark.django_db

ROUTES = {
    "ip-addresses": "a RelatedField declared as a string (the host's)",
    "untyped-ip-addresses": "a RelatedField with no declared schema",
    "slug-ip-addresses": "a SlugRelatedField subclass declared as a string",
    "untyped-slug-ip-addresses": "a SlugRelatedField subclass, undeclared",
}
TABLES = [IPAddress]


@pytest.fixture(autouse=True)
def _urls() -> Iterator[None]:
    with override_settings(
        ROOT_URLCONF="tests.hosts.generic.urls",
        FRISIAN_MCP={"REQUIRE_AUTHENTICATION": False, "TOOL_LAYOUT": "flat"},
    ):
        yield


@pytest.fixture
def eth0() -> Interface:
    VMInterface.objects.create(name="vm-eth0")
    return Interface.objects.create(name="eth0")


def assignment(target: Any, kind: Any = None) -> dict[str, Any]:
    model = type(target)._meta.model_name
    return {
        "address": "192.0.2.1/24",
        "assigned_object_type": f"generic.{model}" if kind is None else kind,
        "assigned_object_id": target.pk,
    }


@pytest.mark.parametrize("route", sorted(ROUTES))
@pytest.mark.parametrize("model", [Interface, VMInterface])
def test_rests_app_label_dot_model_assigns_the_address(
    mcp: MCPTestClient, route: str, model: type[Any], eth0: Interface
) -> None:
    target = model.objects.order_by("pk").first()
    rest, _ = same(
        mcp, f"POST /api/{route}/", f"{route}__create", assignment(target), TABLES
    )
    assert rest.verdict == "ok", rest
    assert IPAddress.objects.get().assigned_object == target


@pytest.mark.parametrize("route", sorted(ROUTES))
def test_an_address_is_unassigned_with_null_as_over_rest(
    mcp: MCPTestClient, route: str
) -> None:
    arguments = {
        "address": "192.0.2.9/24",
        "assigned_object_type": None,
        "assigned_object_id": None,
    }
    rest, _ = same(mcp, f"POST /api/{route}/", f"{route}__create", arguments, TABLES)
    assert rest.verdict == "ok", rest


@pytest.mark.parametrize("route", sorted(ROUTES))
def test_an_unknown_content_type_is_the_hosts_refusal(
    mcp: MCPTestClient, route: str, eth0: Interface
) -> None:
    """The host's message quotes the value; it comes back without it."""
    arguments = assignment(eth0, kind=f"{MARKER}.interface")
    rest, over = same(mcp, f"POST /api/{route}/", f"{route}__create", arguments, TABLES)
    assert rest.verdict == "invalid"
    assert over.body["code"] == "validation_failed", over.body
    assert over.body["fields"][0]["field"] == "assigned_object_type"
    assert sent_nothing_of(over, MARKER)
    assert not IPAddress.objects.exists()


@pytest.mark.parametrize("route", ["ip-addresses", "untyped-ip-addresses"])
@pytest.mark.parametrize("form", ["id", "lookup"])
def test_a_form_the_host_field_refuses_is_refused_by_the_host(
    mcp: MCPTestClient, route: str, form: str, eth0: Interface
) -> None:
    """An id or a lookup object reaches the field, which refuses it as over REST."""
    kind = ContentType.objects.get_for_model(Interface)
    value = kind.pk if form == "id" else {"app_label": "generic", "model": "interface"}
    arguments = assignment(eth0, kind=value)
    rest, over = same(mcp, f"POST /api/{route}/", f"{route}__create", arguments, TABLES)
    assert rest.verdict == "invalid"
    assert over.body["code"] == "validation_failed", over.body
    assert "app_label" in over.body["fields"][0]["message"]
    assert not IPAddress.objects.exists()


@pytest.mark.parametrize("route", ["slug-ip-addresses", "untyped-slug-ip-addresses"])
@pytest.mark.parametrize("form", ["id", "natural-key"])
def test_a_slug_fields_lookup_object_becomes_the_text_the_field_reads(
    mcp: MCPTestClient, route: str, form: str, eth0: Interface
) -> None:
    """A DRF slug field stays managed: its lookup is resolved here."""
    kind = ContentType.objects.get_for_model(Interface)
    lookup: dict[str, Any] = {"id": kind.pk}
    if form == "natural-key":
        lookup = {"app_label": "generic", "model": "interface"}
    created = mcp.call_tool(f"{route}__create", assignment(eth0, kind=lookup))
    assert created["isError"] is False, created
    assert created["structuredContent"]["assigned_object_type"] == "generic.interface"
    assert IPAddress.objects.get().assigned_object == eth0


@pytest.mark.parametrize("route", sorted(ROUTES))
def test_what_retrieve_shows_goes_back_to_update(
    mcp: MCPTestClient, route: str, eth0: Interface
) -> None:
    address = IPAddress.objects.create(address="192.0.2.5/24", assigned_object=eth0)
    record = mcp.call_tool(f"{route}__retrieve", {"id": address.pk})
    sent = record["structuredContent"]
    assert sent["assigned_object_type"] == "generic.interface"
    vm = VMInterface.objects.get()
    changed = {**sent, "assigned_object_type": "generic.vminterface"}
    changed["assigned_object_id"] = vm.pk
    rest, _ = same(
        mcp,
        f"PUT /api/{route}/{address.pk}/",
        f"{route}__update",
        changed,
        TABLES,
        body={k: v for k, v in changed.items() if k != "id"},
    )
    assert rest.verdict == "ok", rest
    assert IPAddress.objects.get().assigned_object == vm


def test_the_listing_says_what_the_host_declares(mcp: MCPTestClient) -> None:
    tools = {tool["name"]: tool for tool in mcp.list_tools()}
    declared = tools["ip-addresses__create"]["inputSchema"]["properties"]
    kind = declared["assigned_object_type"]
    assert kind["description"].startswith(
        "A content type: a string (the host's schema)."
    )
    assert "its id" not in kind["description"]
    assert "string" in kind.get("type", [])
    guessed = tools["untyped-ip-addresses__create"]["inputSchema"]["properties"]
    # Any JSON value reaches the host's field (issue 25 item 0).
    forms = guessed["assigned_object_type"]["anyOf"]
    assert {"array", "boolean", "integer", "number", "string"} <= {
        kind for form in forms for kind in form.get("type", [])
    }
    slug = tools["slug-ip-addresses__create"]["inputSchema"]["properties"]
    assert (
        "the text retrieve shows for it" in slug["assigned_object_type"]["description"]
    )


def test_a_refused_assignment_writes_nothing_in_validate_mode_either(
    mcp: MCPTestClient, eth0: Interface
) -> None:
    arguments = {**assignment(eth0, kind=True), "mode": "validate"}
    over = over_mcp(mcp, "ip-addresses__create", arguments, TABLES)
    assert over.verdict == "invalid"
    assert over.body["code"] == "validation_failed", over.body
    assert over.rows == []
