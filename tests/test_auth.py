"""Authentication at the endpoint and per-caller tool lists (DESIGN.md §9).

The test settings switch ``REQUIRE_AUTHENTICATION`` off for the rest of the
suite; the tests here switch it back on where they need it.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client, override_settings
from rest_framework.authtoken.models import Token

from demo_project.contacts.models import Contact
from frisian_mcp.contrib.testing import MCPError, MCPTestClient, tool_error
from tests.testapp.models import Shelf

TOKEN_AUTH = ["rest_framework.authentication.TokenAuthentication"]
REQUIRED = {"REQUIRE_AUTHENTICATION": True, "AUTHENTICATION_CLASSES": TOKEN_AUTH}
PRIVATE = "testapp__private-shelves__create"

pytestmark = pytest.mark.django_db


def raw_call(client: Client, body: dict[str, Any], **headers: str) -> Any:
    return client.post(
        "/mcp",
        data=json.dumps(body),
        content_type="application/json",
        headers={"Accept": "application/json, text/event-stream", **headers},
    )


CREATE = {
    "jsonrpc": "2.0",
    "id": 7,
    "method": "tools/call",
    "params": {"name": "contacts__create", "arguments": {"email": "a@example.com"}},
}


@pytest.fixture
def token() -> str:
    user = User.objects.create_user("agent", password="pw")
    key: str = Token.objects.create(user=user).key
    return key


@override_settings(FRISIAN_MCP=REQUIRED)
def test_anonymous_call_gets_401_with_challenge_and_writes_nothing(
    client: Client,
) -> None:
    response = raw_call(client, CREATE)
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"
    body = response.json()
    assert body["jsonrpc"] == "2.0"
    assert body["id"] is None
    assert body["error"]["code"] == -32600
    assert body["error"]["data"] == {"code": "not_authenticated"}
    assert not Contact.objects.exists()


@override_settings(FRISIAN_MCP=REQUIRED)
def test_every_method_needs_authentication(client: Client) -> None:
    for method in ("initialize", "ping", "tools/list"):
        body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": {}}
        assert raw_call(client, body).status_code == 401


@override_settings(FRISIAN_MCP=REQUIRED)
def test_valid_token_is_accepted(client: Client, token: str) -> None:
    mcp = MCPTestClient(client, headers={"Authorization": f"Token {token}"})
    mcp.initialize()
    result = mcp.call_tool("contacts__create", {"email": "a@example.com"})
    assert result["isError"] is False
    assert Contact.objects.get().email == "a@example.com"


@override_settings(FRISIAN_MCP=REQUIRED)
def test_wrong_token_gets_401_and_no_echo(client: Client, token: str) -> None:
    response = raw_call(client, CREATE, Authorization="Token not-a-real-key-ZQX")
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"
    assert response.json()["error"]["data"]["code"] == "not_authenticated"
    assert b"ZQX" not in response.content
    assert not Contact.objects.exists()


@override_settings(FRISIAN_MCP=REQUIRED)
def test_inactive_users_token_is_refused(client: Client, token: str) -> None:
    User.objects.filter(username="agent").update(is_active=False)
    response = raw_call(client, CREATE, Authorization=f"Token {token}")
    assert response.status_code == 401
    assert not Contact.objects.exists()


@pytest.mark.parametrize("parameter", ["access_token", "token", "api_key", "Token"])
@override_settings(FRISIAN_MCP=REQUIRED)
def test_credentials_in_the_query_string_are_refused(
    client: Client, token: str, parameter: str
) -> None:
    response = client.post(
        f"/mcp?{parameter}={token}",
        data=json.dumps(CREATE),
        content_type="application/json",
        headers={"Accept": "application/json, text/event-stream"},
    )
    assert response.status_code == 400
    body = response.json()
    assert body["error"]["code"] == -32600
    assert "Authorization header" in body["error"]["message"]
    assert token not in response.content.decode()
    assert not Contact.objects.exists()


@override_settings(
    FRISIAN_MCP={
        "REQUIRE_AUTHENTICATION": True,
        "AUTHENTICATION_CLASSES": [
            "rest_framework.authentication.SessionAuthentication"
        ],
    }
)
def test_without_a_challenge_the_refusal_is_403(client: Client) -> None:
    # DRF's rule: no WWW-Authenticate header to offer means 403, not 401.
    response = raw_call(client, CREATE)
    assert response.status_code == 403
    assert "WWW-Authenticate" not in response
    assert response.json()["error"]["data"]["code"] == "not_authenticated"


@override_settings(
    FRISIAN_MCP={
        "REQUIRE_AUTHENTICATION": True,
        "AUTHENTICATION_CLASSES": [
            "rest_framework.authentication.SessionAuthentication"
        ],
    }
)
def test_session_login_is_accepted(client: Client) -> None:
    client.force_login(User.objects.create_user("agent", password="pw"))
    mcp = MCPTestClient(client)
    mcp.initialize()
    assert (
        mcp.call_tool("contacts__create", {"email": "b@example.com"})["isError"]
        is False
    )


def test_anonymous_calls_pass_when_authentication_is_not_required(
    mcp: MCPTestClient,
) -> None:
    result = mcp.call_tool("contacts__create", {"email": "c@example.com"})
    assert result["isError"] is False


def test_default_settings_require_authentication() -> None:
    from frisian_mcp.conf import DEFAULTS

    assert DEFAULTS["REQUIRE_AUTHENTICATION"] is True
    assert DEFAULTS["FILTER_TOOLS_BY_PERMISSION"] is True


# --- tools/list per caller ------------------------------------------------


def names(mcp: MCPTestClient) -> set[str]:
    return {tool["name"] for tool in mcp.list_tools()}


def test_tools_the_caller_may_not_use_are_not_listed(client: Client) -> None:
    # PrivateShelfViewSet has IsAuthenticated; the caller is anonymous.
    anonymous = MCPTestClient(client)
    anonymous.initialize()
    listed = names(anonymous)
    assert "testapp__shelves__create" in listed
    assert not {n for n in listed if n.startswith("testapp__private-shelves__")}

    client.force_login(User.objects.create_user("reader", password="pw"))
    assert PRIVATE in names(anonymous)


def test_a_hidden_tool_is_as_unknown_as_a_missing_one(client: Client) -> None:
    mcp = MCPTestClient(client)
    mcp.initialize()
    arguments = {"room": "X", "number": 1}
    with pytest.raises(MCPError) as hidden:
        mcp.call_tool(PRIVATE, arguments)
    with pytest.raises(MCPError) as missing:
        mcp.call_tool("testapp__secret-shelves__create", arguments)
    assert hidden.value.code == missing.value.code == -32602
    assert hidden.value.data["code"] == missing.value.data["code"] == "unknown_tool"
    assert hidden.value.message.split(".")[0] == missing.value.message.split(".")[0]
    # Suggestions never point at a hidden tool either.
    assert "private-shelves" not in hidden.value.message
    assert "private-shelves" not in missing.value.message
    assert not Shelf.objects.exists()


@override_settings(
    FRISIAN_MCP={"REQUIRE_AUTHENTICATION": False, "FILTER_TOOLS_BY_PERMISSION": False}
)
def test_filtering_can_be_switched_off(client: Client) -> None:
    mcp = MCPTestClient(client)
    mcp.initialize()
    assert PRIVATE in names(mcp)
    # The call itself is still checked in full by the viewset.
    result = mcp.call_tool(PRIVATE, {"room": "X", "number": 1})
    assert result["isError"] is True
    assert tool_error(result)["code"] in (
        "not_authenticated",
        "permission_denied",
    )
    assert not Shelf.objects.exists()


@override_settings(
    FRISIAN_MCP={"REQUIRE_AUTHENTICATION": False, "TOOL_LAYOUT": "dispatcher"}
)
def test_dispatchers_route_only_to_permitted_tools(client: Client) -> None:
    mcp = MCPTestClient(client)
    mcp.initialize()
    testapp = next(t for t in mcp.list_tools() if t["name"] == "testapp")
    resources = testapp["inputSchema"]["properties"]["resource"]["enum"]
    assert "shelves" in resources
    assert "private-shelves" not in resources
    with pytest.raises(MCPError) as denied:
        mcp.call_tool(
            "testapp",
            {
                "resource": "private-shelves",
                "action": "create",
                "room": "X",
                "number": 1,
            },
        )
    assert denied.value.code == -32602
    assert not Shelf.objects.exists()

    client.force_login(User.objects.create_user("reader", password="pw"))
    testapp = next(t for t in mcp.list_tools() if t["name"] == "testapp")
    assert "private-shelves" in testapp["inputSchema"]["properties"]["resource"]["enum"]
    result = mcp.call_tool(
        "testapp",
        {"resource": "private-shelves", "action": "create", "room": "X", "number": 1},
    )
    assert result["isError"] is False
    assert Shelf.objects.filter(room="X").count() == 1


def test_seed_demo_creates_the_documented_users_and_tokens(demo_data: None) -> None:
    from demo_project.management.commands.seed_demo import DEMO_TOKEN, STAFF_TOKEN

    demo = User.objects.get(username="demo")
    staff = User.objects.get(username="staff")
    assert Token.objects.get(user=demo).key == DEMO_TOKEN
    assert Token.objects.get(user=staff).key == STAFF_TOKEN
    assert demo.has_perm("contacts.add_contact")
    assert demo.has_perm("dcim.change_site")
    assert not demo.has_perm("dcim.delete_site")
    assert not demo.is_staff
    assert staff.is_superuser


#: With these excluded, the hidden private-shelves tools come last.
HIDDEN_LAST = [
    "testapp__publishers__*",
    "testapp__shelf-labels__*",
    "testapp__shelves__*",
    "testapp__stats__*",
]


@pytest.mark.parametrize(
    ("size", "exclude"), [(5, []), (3, HIDDEN_LAST)], ids=["between", "last"]
)
def test_filtered_pages_are_full_and_end_with_the_last_visible_tool(
    client: Client, size: int, exclude: list[str]
) -> None:
    # Pages probe only the tools they walk past; hidden tools between them
    # must neither shorten a page nor, when they come last, leave a
    # trailing empty one.
    options = {
        "REQUIRE_AUTHENTICATION": False,
        "TOOLS_LIST_PAGE_SIZE": size,
        "EXCLUDE": exclude,
    }
    mcp = MCPTestClient(client)
    with override_settings(FRISIAN_MCP=options):
        mcp.initialize()
        pages = []
        cursor = None
        while True:
            params: dict[str, Any] = {"cursor": cursor} if cursor else {}
            result = mcp.request("tools/list", params)
            pages.append([tool["name"] for tool in result["tools"]])
            cursor = result.get("nextCursor")
            if cursor is None:
                break
        with override_settings(
            FRISIAN_MCP={**options, "FILTER_TOOLS_BY_PERMISSION": False}
        ):
            everything = [tool["name"] for tool in mcp.list_tools()]
    listed = [name for page in pages for name in page]
    assert all(len(page) == size for page in pages[:-1])
    assert 1 <= len(pages[-1]) <= size
    assert len(listed) == len(set(listed))
    assert not [n for n in listed if "private-shelves" in n]
    assert set(listed) == {n for n in everything if "private-shelves" not in n}
    if exclude:
        assert everything[-1].startswith("testapp__private-shelves__")


def test_permissions_decided_per_action_are_probed_per_action(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    # get_permissions() overrides (and @action permission_classes) are not
    # the class attribute: such views must not share stock probe answers.
    from rest_framework.permissions import AllowAny, IsAdminUser

    from tests.testapp.views import ShelfViewSet

    def get_permissions(self: Any) -> list[Any]:
        return [IsAdminUser()] if self.action == "destroy" else [AllowAny()]

    monkeypatch.setattr(ShelfViewSet, "get_permissions", get_permissions)
    mcp = MCPTestClient(client)
    mcp.initialize()
    listed = names(mcp)
    assert "testapp__shelves__destroy" not in listed
    assert {"testapp__shelves__list", "testapp__publishers__destroy"} <= listed
