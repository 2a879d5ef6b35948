"""Issue 25 item 11: no tool ends the credentials its own caller came with.

A user with no permission at all was offered
``profile__generate_auth_token``, which deletes and recreates the caller's
token: the agent's MCP client is locked out by its first call. Views that
end or replace the caller's credentials (``ObtainAuthToken`` and its
subclasses, knox's and dj-rest-auth's logouts, a name that says "log out"
or a rotation of a token or key) are no tools unless ``CREDENTIAL_TOOLS``
names them (docs/listing.md, ADR 0031).
"""

from __future__ import annotations

import json
from io import StringIO
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client, override_settings
from rest_framework import serializers, viewsets
from rest_framework.authtoken.models import Token
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from frisian_mcp.contrib.testing import MCPError, MCPTestClient
from frisian_mcp.credentials import ends_credentials
from frisian_mcp.registry import get_registry
from frisian_mcp.types import Endpoint

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.hosts.accounts.urls")]

ENDING = {"profile__generate_auth_token", "token-auth__post", "logout__post"}
TOKENS = {
    "REQUIRE_AUTHENTICATION": True,
    "AUTHENTICATION_CLASSES": ["rest_framework.authentication.TokenAuthentication"],
}


@pytest.fixture
def user() -> User:
    return User.objects.create_user("agent", password="pw")


def signed_in(user: User) -> MCPTestClient:
    client = Client()
    client.force_login(user)
    mcp = MCPTestClient(client)
    mcp.initialize()
    return mcp


def by_token(key: str) -> MCPTestClient:
    mcp = MCPTestClient(headers={"Authorization": f"Token {key}"})
    mcp.initialize()
    return mcp


def names(mcp: MCPTestClient) -> set[str]:
    return {tool["name"] for tool in mcp.list_tools()}


@pytest.mark.parametrize("superuser", [False, True])
def test_tools_that_end_credentials_are_no_tools_by_default(
    user: User, superuser: bool
) -> None:
    user.is_superuser = user.is_staff = superuser
    user.save()
    token = Token.objects.create(user=user)
    mcp = signed_in(user)
    listed = names(mcp)
    assert "profile__list" in listed
    assert not ENDING & listed
    for name in sorted(ENDING):
        with pytest.raises(MCPError) as unknown:
            mcp.call_tool(name, {})
        assert unknown.value.data["code"] == "unknown_tool"
        assert not ENDING & set(unknown.value.data["suggestions"])
    assert Token.objects.get(user=user).key == token.key  # nothing rotated
    assert not ENDING & {tool.name for tool in get_registry()}


def test_the_tools_command_names_what_it_left_out() -> None:
    out, err = StringIO(), StringIO()
    call_command("frisian_mcp_tools", stdout=out, stderr=err)
    assert "profile__list" in out.getvalue()
    assert not any(name in out.getvalue() for name in ENDING)
    for name in ENDING:
        assert f"Left out {name}: it would end its caller's credentials" in (
            err.getvalue()
        )


@pytest.mark.parametrize(
    ("patterns", "served"),
    [
        (["profile__generate_auth_token"], {"profile__generate_auth_token"}),
        (["*auth*"], {"profile__generate_auth_token", "token-auth__post"}),
        (["*"], ENDING),
    ],
)
def test_credential_tools_names_those_served(
    user: User, patterns: list[str], served: set[str]
) -> None:
    with override_settings(FRISIAN_MCP={"CREDENTIAL_TOOLS": patterns}):
        assert ENDING & names(signed_in(user)) == served


@override_settings(FRISIAN_MCP={"CREDENTIAL_TOOLS": ["*"]})
def test_a_served_rotation_answers_as_rest_and_locks_the_agent_out(
    user: User,
) -> None:
    old = Token.objects.create(user=user).key
    with override_settings(FRISIAN_MCP={"CREDENTIAL_TOOLS": ["*"], **TOKENS}):
        agent = by_token(old)
        result = agent.call_tool("profile__generate_auth_token", {})
        new = result["structuredContent"]["token"]
        assert Token.objects.get(user=user).key == new != old
        # The reason it is no tool by default: the agent's next request.
        refused = agent.post({"jsonrpc": "2.0", "id": 9, "method": "tools/list"})
        assert refused.status_code == 401
    client = Client()
    client.force_login(user)
    over_rest = client.post("/api/profile/generate_auth_token/")
    assert over_rest.status_code == 201
    assert set(over_rest.json()) == set(result["structuredContent"])
    assert Token.objects.get(user=user).key == over_rest.json()["token"] != new


@override_settings(FRISIAN_MCP={"CREDENTIAL_TOOLS": ["*"]})
def test_a_served_obtain_auth_token_subclass_answers_as_rest(user: User) -> None:
    mcp = signed_in(user)
    result = mcp.call_tool("token-auth__post", {"username": "agent", "password": "pw"})
    over_rest = Client().post(
        "/api/token-auth/",
        data=json.dumps({"username": "agent", "password": "pw"}),
        content_type="application/json",
    )
    assert over_rest.status_code == 200
    assert result["structuredContent"] == over_rest.json()
    assert Token.objects.filter(user=user).count() == 1
    wrong = {"username": "agent", "password": "Zq9-wrong"}
    with pytest.raises(MCPError) as refused:
        mcp.call_tool("token-auth__post", wrong)
    assert refused.value.code == -32602
    assert "Zq9" not in json.dumps(refused.value.data)
    assert Client().post("/api/token-auth/", wrong).status_code == 400


# -- what ends credentials ----------------------------------------------------
class _Profile(viewsets.GenericViewSet[Any]):
    serializer_class = serializers.Serializer

    def destroy(self, request: Request, pk: str) -> Response:
        return Response(status=204)


def _action(name: str) -> Endpoint:
    def handler(self: Any, request: Request) -> Response:
        return Response()

    handler.__name__ = name
    cls: Any = type(f"Own{name}", (_Profile,), {name: action(detail=False)(handler)})
    callback = cls.as_view({"post": name})
    return Endpoint(f"/{name}/", f"^{name}/$", "POST", callback, name)


def _view(name: str, *bases: type[Any], module: str = __name__) -> Endpoint:
    cls: Any = type(name, bases or (APIView,), {"__module__": module})
    cls.__qualname__ = name
    return Endpoint("/x/", "^x/$", "POST", cls.as_view(), "post")


def _stock(name: str) -> Endpoint:
    cls: Any = type(name, (_Profile,), {})
    callback = cls.as_view({"delete": "destroy"})
    return Endpoint("/t/{pk}/", "^t/(?P<pk>[^/.]+)/$", "DELETE", callback, "destroy")


@pytest.mark.parametrize(
    ("endpoint", "ends"),
    [
        (_action("generate_auth_token"), True),
        (_action("regenerate_token"), True),
        (_action("rotate_api_key"), True),
        (_action("revoke_tokens"), True),
        (_action("reset_credentials"), True),
        (_action("auth_token"), True),
        (_action("logout"), True),
        (_action("log_out"), True),
        (_action("sign_out"), True),
        (_view("LogoutView"), True),
        (_view("RotateAPIKeyView"), True),
        (
            _view("KnoxSignOff", _view("LogoutView", module="knox.views").view_class),
            True,
        ),
        (_view("ObtainExpiringAuthToken"), True),
        (_action("rotate"), False),
        (_action("generate_report"), False),
        (_action("reset_counter"), False),
        (_action("tokenize"), False),
        (_action("login"), False),
        (_action("logo_upload"), False),
        (_view("SignOff"), False),
        (_view("KeyListView"), False),
        (_stock("TokenRotateViewSet"), False),
    ],
    ids=lambda v: (
        f"{v.view_class.__name__}.{v.action}" if isinstance(v, Endpoint) else ""
    ),
)
def test_what_ends_credentials(endpoint: Endpoint, ends: bool) -> None:
    assert ends_credentials(endpoint) is ends
