"""The core's hooks for extras, used by a host with no extra (docs/extending.md).

A credential's grant (``ToolGrant`` on ``request.auth``) narrows the listing
and refuses calls with its own status and challenge, carried by the reply;
a 401 offers every authenticator's challenge; ``STORE_BACKEND`` keeps
schemas and visible sets where its ``BaseStore`` says (issue 21 item 1).
"""

from __future__ import annotations

import json

import pytest
from django.apps import apps
from django.test import Client, override_settings

from demo_project.contacts.models import Contact
from frisian_mcp.contrib.fleet.store import APP, FleetStore
from frisian_mcp.contrib.testing import MCPError, MCPTestClient
from frisian_mcp.exceptions import ConfigurationError
from frisian_mcp.registry import get_registry, reset_registry
from tests.hosts.hooks import stores

pytestmark = pytest.mark.django_db

HOOKS = "tests.hosts.hooks"
KEYS = {
    "REQUIRE_AUTHENTICATION": True,
    "AUTHENTICATION_CLASSES": [f"{HOOKS}.authentication.KeyAuthentication"],
}


def key_client(key: str) -> MCPTestClient:
    mcp = MCPTestClient(Client(), headers={"Authorization": f"Key {key}"})
    mcp.initialize()
    return mcp


def names(mcp: MCPTestClient) -> set[str]:
    return {tool["name"] for tool in mcp.list_tools()}


@override_settings(FRISIAN_MCP=KEYS)
def test_a_grant_lists_only_the_tools_it_reaches() -> None:
    assert names(key_client("reader")) == {"contacts__list"}
    reach = names(key_client("contacts"))
    assert "contacts__create" in reach
    assert all(name.startswith("contacts__") for name in reach)


@override_settings(FRISIAN_MCP=KEYS)
def test_a_call_outside_the_grant_is_its_403_and_writes_nothing() -> None:
    mcp = key_client("reader")
    with pytest.raises(MCPError) as refused:
        mcp.call_tool("contacts__create", {"email": "x@example.com"})
    response = refused.value.response
    assert response.status_code == 403
    assert response["WWW-Authenticate"] == 'Key realm="tools", key="reader"'
    assert refused.value.code == -32600
    assert refused.value.data == {"code": "permission_denied"}
    assert "x@example.com" not in response.content.decode()
    assert not Contact.objects.exists()


@override_settings(FRISIAN_MCP=KEYS)
def test_a_call_within_the_grant_runs() -> None:
    created = key_client("contacts").call_tool(
        "contacts__create", {"email": "y@example.com"}
    )
    assert created["isError"] is False
    assert Contact.objects.filter(email="y@example.com").exists()


@override_settings(
    FRISIAN_MCP={
        "REQUIRE_AUTHENTICATION": True,
        "AUTHENTICATION_CLASSES": [
            "rest_framework.authentication.BasicAuthentication",
            "rest_framework.authentication.TokenAuthentication",
            f"{HOOKS}.authentication.KeyAuthentication",
            f"{HOOKS}.authentication.RealmBearerAuthentication",
        ],
    }
)
def test_a_401_offers_every_challenge_bearer_first() -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    response = Client().post(
        "/mcp", data=json.dumps(body), content_type="application/json"
    )
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == (
        'Bearer realm="api", Basic realm="api", Token, Key realm="tools"'
    )


@override_settings(
    FRISIAN_MCP={
        "REQUIRE_AUTHENTICATION": False,
        "STORE_BACKEND": f"{HOOKS}.stores.ProcessStore",
    }
)
def test_a_store_keeps_schemas_and_visible_sets(builds: list[str]) -> None:
    stores.KEPT.clear()
    stores.ASKED.clear()
    mcp = MCPTestClient()
    mcp.initialize()
    listed = mcp.list_tools()
    assert len(builds) == len(listed)
    assert stores.ASKED == ["anonymous"]
    reset_registry()  # a new registry, as after a setting change
    again = MCPTestClient()
    again.initialize()
    assert again.list_tools() == listed
    assert len(builds) == len(listed)  # every schema adopted from the store


@override_settings(FRISIAN_MCP={"REQUIRE_AUTHENTICATION": False, "STORE_BACKEND": None})
def test_without_a_store_a_new_registry_builds_again(builds: list[str]) -> None:
    mcp = MCPTestClient()
    mcp.initialize()
    listed = mcp.list_tools()
    reset_registry()
    mcp.list_tools()
    assert len(builds) == 2 * len(listed)


@override_settings(
    FRISIAN_MCP={"STORE_BACKEND": f"{HOOKS}.stores.NotAStore"},
)
def test_store_backend_must_name_a_base_store() -> None:
    with pytest.raises(ConfigurationError, match="BaseStore"):
        get_registry().store  # noqa: B018


def test_the_fleet_store_needs_its_app(monkeypatch: pytest.MonkeyPatch) -> None:
    installed = apps.is_installed
    monkeypatch.setattr(
        apps, "is_installed", lambda name: name != APP and installed(name)
    )
    with pytest.raises(ConfigurationError, match="INSTALLED_APPS"):
        FleetStore(get_registry())
