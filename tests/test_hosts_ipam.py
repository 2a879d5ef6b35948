"""FK forms under field-level extensions, and allocators (issue 18 item 12).

The network-inventory host (``tests.hosts.ipam``) documents its brief nested
serializers with a drf-spectacular *field* extension ("allow pk": an integer
or the brief object) and its ASN range link with another. The tools still
take every form docs/extending.md promises: an id, a numeric string, an
object of any unique key and, for the link, a URL, as the host does.
Allocators declare the model's full serializer as their body; their tools
require none of the values the host allocates, and REST's own body
(``{"prefix_length": 24}``) goes through.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import transaction
from django.test import Client, override_settings

from frisian_mcp.contrib.testing import MCPError, MCPTestClient
from tests.hosts.ipam.models import ASN, VLAN, ASNRange, Prefix, Tenant, VLANGroup

pytestmark = pytest.mark.django_db

MARKER = "zz-marker-42"


@pytest.fixture(autouse=True)
def _urls() -> Iterator[None]:
    with override_settings(
        ROOT_URLCONF="tests.hosts.ipam.urls",
        FRISIAN_MCP={"REQUIRE_AUTHENTICATION": False, "TOOL_LAYOUT": "flat"},
    ):
        yield


@pytest.fixture
def tenant() -> Tenant:
    Tenant.objects.create(name="Other", slug="other")
    return Tenant.objects.create(name="Acme Corp", slug="acme")


@pytest.fixture
def tools(mcp: MCPTestClient) -> dict[str, dict[str, Any]]:
    return {tool["name"]: tool for tool in mcp.list_tools()}


def rest_then_rollback(url: str, body: Any) -> tuple[int, Any]:
    """REST's answer to ``body``, with whatever it wrote rolled back."""
    with transaction.atomic():
        response = Client().post(url, body, content_type="application/json")
        transaction.set_rollback(True)
    return response.status_code, json.loads(response.content)


def tenant_forms(tenant: Tenant) -> list[Any]:
    return [
        tenant.pk,
        str(tenant.pk),
        {"slug": tenant.slug},
        {"name": tenant.name},
        {"id": tenant.pk},
    ]


@pytest.mark.parametrize("form", range(5))
def test_a_field_extended_nested_fk_takes_every_form_the_host_takes(
    mcp: MCPTestClient, tenant: Tenant, form: int
) -> None:
    value = tenant_forms(tenant)[form]
    status, over_rest = rest_then_rollback(
        "/api/prefixes/", {"prefix": "10.9.0.0/16", "tenant": value}
    )
    assert status == 201, over_rest
    created = mcp.call_tool(
        "prefixes__create", {"prefix": "10.9.0.0/16", "tenant": value}
    )
    assert created["isError"] is False, created
    assert created["structuredContent"]["tenant"] == over_rest["tenant"]
    assert Prefix.objects.get(prefix="10.9.0.0/16").tenant == tenant


def test_a_field_extended_nested_fk_updates_from_what_retrieve_shows(
    mcp: MCPTestClient, tenant: Tenant
) -> None:
    """Retrieve shows the brief object; it goes back as a lookup object."""
    prefix = Prefix.objects.create(prefix="10.1.0.0/16", tenant=tenant)
    record = mcp.call_tool("prefixes__retrieve", {"id": prefix.pk})["structuredContent"]
    assert record["tenant"] == {"id": tenant.pk, "name": "Acme Corp", "slug": "acme"}
    updated = mcp.call_tool("prefixes__update", record)
    assert updated["isError"] is False, updated
    prefix.refresh_from_db()
    assert prefix.tenant == tenant


def test_a_field_extended_nested_fk_refuses_a_miss_without_writing(
    mcp: MCPTestClient, tenant: Tenant
) -> None:
    """The host's own field answers the miss; its message quoting the value
    is redacted."""
    with pytest.raises(MCPError) as info:
        mcp.call_tool(
            "prefixes__create", {"prefix": "10.2.0.0/16", "tenant": {"slug": MARKER}}
        )
    assert info.value.code == -32602
    assert info.value.data["code"] == "validation_failed", info.value.data
    assert MARKER not in json.dumps(info.value.data)
    assert not Prefix.objects.exists()


@pytest.mark.parametrize("form", ["url", "id", "numeric", "slug", "name"])
def test_a_field_extended_hyperlink_takes_every_form(
    mcp: MCPTestClient, form: str
) -> None:
    asn_range = ASNRange.objects.create(
        name="Private", slug="private", start=64512, end=64520
    )
    value = {
        "url": f"http://testserver/api/asn-ranges/{asn_range.pk}/",
        "id": asn_range.pk,
        "numeric": str(asn_range.pk),
        "slug": {"slug": "private"},
        "name": {"name": "Private"},
    }[form]
    created = mcp.call_tool("asns__create", {"asn": 64600, "range": value})
    assert created["isError"] is False, created
    assert ASN.objects.get(asn=64600).range == asn_range


def test_a_field_extended_hyperlink_refuses_a_miss_as_a_reference_error(
    mcp: MCPTestClient,
) -> None:
    with pytest.raises(MCPError) as info:
        mcp.call_tool("asns__create", {"asn": 64600, "range": {"slug": MARKER}})
    assert info.value.data["code"] == "invalid_reference", info.value.data
    assert info.value.data["fields"][0]["lookup_fields"] == ["id", "name", "slug"]
    assert MARKER not in json.dumps(info.value.data)
    assert not ASN.objects.exists()


def test_a_scalar_form_a_field_extension_declares_is_kept(
    mcp: MCPTestClient, tenant: Tenant
) -> None:
    """The tenant field takes its slug as a bare string: its extension says so."""
    asn_range = ASNRange.objects.create(name="Private", slug="private", start=1, end=9)
    for asn, value in ((5, "acme"), (6, tenant.pk)):
        arguments = {"asn": asn, "range": asn_range.pk, "tenant": value}
        created = mcp.call_tool("asns__create", arguments)
        assert created["isError"] is False, created
        assert created["structuredContent"]["tenant"] == "acme"
    assert set(ASN.objects.values_list("tenant__slug", flat=True)) == {"acme"}


# -- allocators ------------------------------------------------------------
ALLOCATORS = {
    "prefixes__available-prefixes__post": "prefix",
    "asn-ranges__available-asns__post": "asn",
    "vlan-groups__available-vlans__post": "vid",
}


@pytest.mark.parametrize("tool", sorted(ALLOCATORS))
def test_an_allocator_requires_none_of_the_values_it_allocates(
    tools: dict[str, dict[str, Any]], tool: str
) -> None:
    """Its body is a list of them, or one (issue 25 item 12)."""
    schema = tools[tool]["inputSchema"]
    assert schema["required"] == ["id", "body"]
    listed, one = schema["properties"]["body"]["anyOf"]
    assert listed["items"] == one
    assert ALLOCATORS[tool] in one["properties"]
    assert "required" not in one, one


def test_an_allocator_takes_the_body_rest_takes(
    mcp: MCPTestClient, tenant: Tenant
) -> None:
    parent = Prefix.objects.create(prefix="10.0.0.0/16")
    Prefix.objects.create(prefix="10.0.0.0/24")
    url = f"/api/prefixes/{parent.pk}/available-prefixes/"
    status, over_rest = rest_then_rollback(
        url, [{"prefix_length": 24, "tenant": tenant.pk}]
    )
    assert status == 201, over_rest
    arguments = {"id": parent.pk, "body": [{"prefix_length": 24, "tenant": tenant.pk}]}
    created = mcp.call_tool("prefixes__available-prefixes__post", arguments)
    assert created["isError"] is False, created
    # Ids aside: PostgreSQL's sequences do not roll back.
    unnumbered = [{k: v for k, v in row.items() if k != "id"} for row in over_rest]
    result = created["structuredContent"]["result"]
    assert [{k: v for k, v in row.items() if k != "id"} for row in result] == unnumbered
    assert over_rest[0]["prefix"] == "10.0.1.0/24"
    assert Prefix.objects.get(prefix="10.0.1.0/24").tenant == tenant


def test_allocators_fill_in_what_they_allocate(mcp: MCPTestClient) -> None:
    asn_range = ASNRange.objects.create(
        name="Private", slug="private", start=64512, end=64520
    )
    ASN.objects.create(asn=64512, range=asn_range)
    asns = mcp.call_tool(
        "asn-ranges__available-asns__post",
        {"id": asn_range.pk, "body": [{"description": "edge"}, {}]},
    )
    assert asns["isError"] is False, asns
    assert sorted(ASN.objects.values_list("asn", flat=True)) == [64512, 64513, 64514]
    group = VLANGroup.objects.create(name="Campus", slug="campus", min_vid=100)
    vlans = mcp.call_tool(
        "vlan-groups__available-vlans__post",
        {"id": group.pk, "body": [{"name": "users"}]},
    )
    assert vlans["isError"] is False, vlans
    assert VLAN.objects.get(name="users").vid == 100


def test_an_allocator_refuses_what_the_host_refuses_without_writing(
    mcp: MCPTestClient,
) -> None:
    """The name the host needs is still asked for, by the host's own 400."""
    group = VLANGroup.objects.create(name="Campus", slug="campus")
    with pytest.raises(MCPError) as info:
        mcp.call_tool(
            "vlan-groups__available-vlans__post", {"id": group.pk, "body": [{}]}
        )
    assert info.value.data["code"] == "validation_failed", info.value.data
    assert "name" in json.dumps(info.value.data["fields"])
    with pytest.raises(MCPError) as info:
        mcp.call_tool("vlan-groups__available-vlans__post", {"id": group.pk})
    assert info.value.data["code"] == "invalid_argument", info.value.data
    assert not VLAN.objects.exists()


@pytest.mark.parametrize("form", range(5))
def test_an_allocator_items_fk_takes_every_form_the_host_takes(
    mcp: MCPTestClient, tenant: Tenant, form: int
) -> None:
    """Each item of a list body is a body of its own: its FKs take every form."""
    group = VLANGroup.objects.create(name="Campus", slug="campus")
    item = {"name": "users", "tenant": tenant_forms(tenant)[form]}
    created = mcp.call_tool(
        "vlan-groups__available-vlans__post", {"id": group.pk, "body": [item]}
    )
    assert created["isError"] is False, created
    assert VLAN.objects.get(name="users").tenant == tenant


def test_an_allocator_items_missed_lookup_names_the_item(
    mcp: MCPTestClient, tenant: Tenant
) -> None:
    group = VLANGroup.objects.create(name="Campus", slug="campus")
    body = [{"name": "a"}, {"name": "b", "tenant": {"slug": MARKER}}]
    with pytest.raises(MCPError) as info:
        mcp.call_tool(
            "vlan-groups__available-vlans__post", {"id": group.pk, "body": body}
        )
    assert info.value.code == -32602
    assert MARKER not in json.dumps(info.value.data)
    assert not VLAN.objects.exists()
