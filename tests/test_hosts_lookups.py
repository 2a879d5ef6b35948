"""A lookup object inside a lookup object reaches the host (issue 25 item 0).

The nested-lookup host (``tests.hosts.lookups``) writes related objects
through nested serializers that read an id or a dictionary of attributes,
turning a nested dictionary into ``manufacturer__slug`` filter parameters.
Issue 18's FK work typed the keys of such a lookup object and refused
``{"manufacturer": {"slug": "acme"}, "model": "AX-1"}``, which REST and the
release before took. A native field's object now reaches the field whole,
and the host's answer, success or refusal, is REST's.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.test import override_settings

from frisian_mcp.contrib.testing import MCPTestClient
from tests.hosts.lookups.models import Device, DeviceType, Manufacturer
from tests.side_by_side import MARKER, over_mcp, same, sent_nothing_of

pytestmark = pytest.mark.django_db

TABLES = [Device, DeviceType]


@pytest.fixture(autouse=True)
def _urls() -> Iterator[None]:
    with override_settings(
        ROOT_URLCONF="tests.hosts.lookups.urls",
        FRISIAN_MCP={"REQUIRE_AUTHENTICATION": False, "TOOL_LAYOUT": "flat"},
    ):
        yield


@pytest.fixture
def ax1() -> DeviceType:
    """Acme's AX-1, beside another maker's AX-1."""
    acme = Manufacturer.objects.create(name="Acme", slug="acme")
    other = Manufacturer.objects.create(name="Other", slug="other")
    DeviceType.objects.create(manufacturer=other, model="AX-1", slug="other-ax-1")
    return DeviceType.objects.create(manufacturer=acme, model="AX-1", slug="ax-1")


FORMS = {
    "lookup-in-lookup": {"manufacturer": {"slug": "acme"}, "model": "AX-1"},
    "lookup-in-lookup-by-name": {"manufacturer": {"name": "Acme"}, "model": "AX-1"},
    "fk-id-in-lookup": "manufacturer-id",
    "filter-keys": {"manufacturer__slug": "acme", "model": "AX-1"},
    "unique-key": {"slug": "ax-1"},
    "text-id-in-lookup": "text-id",
    "id": "id",
    "numeric-string": "numeric",
}


def form_of(name: str, device_type: DeviceType) -> Any:
    value = FORMS[name]
    return (
        {
            "manufacturer-id": {
                "manufacturer": device_type.manufacturer_id,
                "model": "AX-1",
            },
            "text-id": {"id": str(device_type.pk)},
            "id": device_type.pk,
            "numeric": str(device_type.pk),
        }.get(value, value)
        if isinstance(value, str)
        else value
    )


@pytest.mark.parametrize("form", sorted(FORMS))
def test_a_device_names_its_type_in_every_form_rest_takes(
    mcp: MCPTestClient, ax1: DeviceType, form: str
) -> None:
    arguments = {"name": "core-1", "device_type": form_of(form, ax1)}
    rest, _ = same(mcp, "POST /api/devices/", "devices__create", arguments, TABLES)
    assert rest.verdict == "ok", rest
    assert Device.objects.get().device_type == ax1


def test_a_device_type_names_its_manufacturer_by_a_lookup(
    mcp: MCPTestClient, ax1: DeviceType
) -> None:
    arguments = {"manufacturer": {"slug": "acme"}, "model": "AX-2", "slug": "ax-2"}
    rest, _ = same(
        mcp, "POST /api/device-types/", "device-types__create", arguments, TABLES
    )
    assert rest.verdict == "ok", rest


REFUSED = {
    "no-match": {"manufacturer": {"slug": MARKER}, "model": "AX-1"},
    "several": {"model": "AX-1"},
    "unknown-key": {"manufacturer": {"colour": MARKER}, "model": "AX-1"},
    "no-id": MARKER,
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_a_lookup_the_host_refuses_is_refused_as_rest_refuses_it(
    mcp: MCPTestClient, ax1: DeviceType, case: str
) -> None:
    """The host's message quotes the lookup; it comes back without it."""
    arguments = {"name": "core-1", "device_type": REFUSED[case]}
    rest, over = same(mcp, "POST /api/devices/", "devices__create", arguments, TABLES)
    assert rest.verdict == "invalid"
    assert over.body["code"] == "validation_failed", over.body
    assert over.body["fields"][0]["field"] == "device_type"
    assert sent_nothing_of(over, MARKER)
    assert not Device.objects.exists()


def test_an_empty_lookup_object_is_still_refused_here(
    mcp: MCPTestClient, ax1: DeviceType
) -> None:
    """``{}`` names no row; the host would take whichever one row there is."""
    over = over_mcp(
        mcp, "devices__create", {"name": "core-1", "device_type": {}}, TABLES
    )
    assert over.verdict == "invalid"
    assert over.body["code"] == "invalid_reference", over.body
    assert "(manufacturer + model)" in over.body["fields"][0]["message"]
    assert not Device.objects.exists()


def test_what_retrieve_shows_goes_back_to_update(
    mcp: MCPTestClient, ax1: DeviceType
) -> None:
    device = Device.objects.create(name="core-1", device_type=ax1)
    record = mcp.call_tool("devices__retrieve", {"id": device.pk})
    sent = {**record["structuredContent"], "description": "edge"}
    assert sent["device_type"]["manufacturer"] == {
        "id": ax1.manufacturer_id,
        "name": "Acme",
        "slug": "acme",
    }
    body = {k: v for k, v in sent.items() if k != "id"}
    rest, _ = same(
        mcp,
        f"PUT /api/devices/{device.pk}/",
        "devices__update",
        sent,
        TABLES,
        body=body,
    )
    assert rest.verdict == "ok", rest
    assert Device.objects.get().description == "edge"


def test_the_listing_names_the_lookup_keys_and_leaves_their_values_open(
    mcp: MCPTestClient,
) -> None:
    tools = {tool["name"]: tool for tool in mcp.list_tools()}
    schema = tools["devices__create"]["inputSchema"]["properties"]["device_type"]
    # An id, any text (a numeric one is an id), other JSON types, an object.
    assert schema["anyOf"][0] == {
        "type": ["array", "boolean", "integer", "number", "string"]
    }
    lookup = schema["anyOf"][-1]
    assert lookup["properties"] == {
        "id": {},
        "slug": {},
        "manufacturer": {},
        "model": {},
    }
    assert "additionalProperties" not in lookup
    assert (
        "one of these keys: id, slug, (manufacturer + model)" in (schema["description"])
    )
