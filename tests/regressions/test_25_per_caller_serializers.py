"""Issue 25 item 2: a view that picks its serializer per caller, per caller.

The accounts host's ``UserViewSet`` gives user managers (staff, or
``auth.change_user``) ``FullUserSerializer``, with ``email``, and everyone
else ``BasicUserSerializer``. Schemas were built once per tool on an
anonymous mock request, so a manager was listed the basic schema and
refused ``email``, a field REST takes from them. Now each caller is listed,
and checked against, the schema of the class the view gives them; schemas
are built once per serializer class, not per caller (ADR 0031).
"""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from django.contrib.auth.models import Permission, User
from django.test import Client, override_settings

from frisian_mcp.contrib.fleet import cache as fleet
from frisian_mcp.contrib.testing import MCPError, MCPTestClient
from frisian_mcp.registry import get_registry, reset_registry
from frisian_mcp.spectacular import caller_serializer
from tests.hosts.accounts.views import UserViewSet

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.hosts.accounts.urls")]

FLEET = "frisian_mcp.contrib.fleet.store.FleetStore"


def person(name: str, *, manager: bool) -> Client:
    user = User.objects.create_user(name, password="pw")
    if manager:
        user.user_permissions.add(Permission.objects.get(codename="change_user"))
    client = Client()
    client.force_login(user)
    return client


def mcp_of(client: Client) -> MCPTestClient:
    mcp = MCPTestClient(client)
    mcp.initialize()
    return mcp


def listed(mcp: MCPTestClient) -> dict[str, dict[str, Any]]:
    return {tool["name"]: tool for tool in mcp.list_tools()}


def fields(tool: dict[str, Any]) -> set[str]:
    return set(tool["inputSchema"]["properties"])


def names(doc: dict[str, Any]) -> set[str]:
    """The argument names a ``help`` document lists."""
    return {argument["name"] for argument in doc["arguments"]}


def rest(client: Client, method: str, path: str, body: dict[str, Any]) -> Any:
    return getattr(client, method)(
        path, data=json.dumps(body), content_type="application/json"
    )


def test_each_caller_is_listed_the_schema_of_its_own_serializer() -> None:
    manager, basic = (
        listed(mcp_of(person("m", manager=True))),
        listed(mcp_of(person("b", manager=False))),
    )
    for name in ("users__create", "users__update", "users__partial_update"):
        assert {"email", "is_active"} <= fields(manager[name]), name
        assert not {"email", "is_active"} & fields(basic[name]), name
    # The records they are shown differ the same way (help: the full record).
    assert manager["users__retrieve"] != basic["users__retrieve"]


def test_a_manager_sets_email_through_mcp_as_over_rest() -> None:
    client = person("m", manager=True)
    result = mcp_of(client).call_tool(
        "users__create", {"username": "ann", "email": "ann@example.org"}
    )
    over_rest = rest(
        client, "post", "/api/users/", {"username": "bob", "email": "b@x.org"}
    )
    assert over_rest.status_code == 201
    assert result["structuredContent"]["email"] == "ann@example.org"
    assert User.objects.get(username="ann").email == "ann@example.org"
    assert User.objects.get(username="bob").email == "b@x.org"
    ann = User.objects.get(username="ann")
    mcp_of(client).call_tool(
        "users__partial_update", {"id": ann.pk, "email": "a@y.org"}
    )
    rest(client, "patch", f"/api/users/{ann.pk}/", {"first_name": "Ann"})
    ann.refresh_from_db()
    assert (ann.email, ann.first_name) == ("a@y.org", "Ann")


def test_a_basic_caller_sending_email_is_refused_and_nothing_is_written() -> None:
    client = person("b", manager=False)
    with pytest.raises(MCPError) as refused:
        mcp_of(client).call_tool(
            "users__create", {"username": "eve", "email": "eve@example.org"}
        )
    assert refused.value.code == -32602
    assert refused.value.data["code"] == "unknown_argument"
    assert "eve@example.org" not in json.dumps(refused.value.data)
    assert not User.objects.filter(username="eve").exists()
    # REST drops the field the caller's serializer lacks, silently.
    over_rest = rest(client, "post", "/api/users/", {"username": "eve", "email": "e@x"})
    assert over_rest.status_code == 201
    assert User.objects.get(username="eve").email == ""


def test_a_basic_caller_creates_through_mcp_as_over_rest() -> None:
    client = person("b", manager=False)
    result = mcp_of(client).call_tool("users__create", {"username": "sam"})
    over_rest = rest(client, "post", "/api/users/", {"username": "tom"})
    assert over_rest.status_code == 201
    assert set(result["structuredContent"]) == set(over_rest.json())
    assert "email" not in over_rest.json()


def test_schemas_are_built_once_per_serializer_class(builds: list[str]) -> None:
    callers = [person(f"m{i}", manager=True) for i in range(2)]
    callers += [person(f"b{i}", manager=False) for i in range(2)]
    for client in callers * 2:
        listed(mcp_of(client))
    # list and create: the basic (the mock request's) and the full class.
    assert builds.count("/api/users/") == 4
    # retrieve, update, partial_update twice; destroy reads no serializer.
    assert builds.count("/api/users/{pk}/") == 7


def test_only_views_that_choose_their_serializer_are_asked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    asked: list[str] = []

    def counted(endpoint: Any, user: Any, auth: Any) -> Any:
        asked.append(f"{endpoint.method} {endpoint.path}")
        return caller_serializer(endpoint, user, auth)

    monkeypatch.setattr("frisian_mcp.tools.caller_serializer", counted)
    listed(mcp_of(person("m", manager=True)))
    # Not profile__list (no get_serializer_class), nor users__destroy.
    assert sorted(asked) == [
        "GET /api/users/",
        "GET /api/users/{pk}/",
        "PATCH /api/users/{pk}/",
        "POST /api/users/",
        "PUT /api/users/{pk}/",
    ]


def test_help_and_the_dispatcher_give_the_callers_schema() -> None:
    # The dispatcher of User's app, auth, routes to the flat tools.
    client = person("m", manager=True)
    mcp = mcp_of(client)
    doc = mcp.call_tool("users__create", {"help": True})["structuredContent"]["help"]
    assert "email" in names(doc)
    with override_settings(FRISIAN_MCP={"TOOL_LAYOUT": "dispatcher"}):
        routed = mcp_of(client).call_tool(
            "auth", {"resource": "users", "action": "create", "help": True}
        )
        assert "email" in names(routed["structuredContent"]["help"])
        mcp_of(client).call_tool(
            "auth",
            {
                "resource": "users",
                "action": "create",
                "username": "d",
                "email": "d@x.org",
            },
        )
    assert User.objects.get(username="d").email == "d@x.org"


def test_the_explorer_shows_the_persons_own_fields() -> None:
    explorer = {"BROWSER_VIEW_CLASS": "frisian_mcp.contrib.explorer.views.ExplorerView"}
    query = "/mcp?tool=users__create&part=detail"
    with override_settings(FRISIAN_MCP=explorer):
        pages = [
            person(name, manager=manager).get(query, headers={"Accept": "text/html"})
            for name, manager in (("m", True), ("b", False))
        ]
    assert 'data-name="email"' in pages[0].content.decode()
    assert 'data-name="email"' not in pages[1].content.decode()


def test_a_new_worker_takes_the_callers_schemas_from_the_fleet(
    builds: list[str],
) -> None:
    with override_settings(FRISIAN_MCP={"STORE_BACKEND": FLEET}):
        client = person("m", manager=True)
        first = listed(mcp_of(client))
        built = len(builds)
        reset_registry()  # as a freshly started worker sharing the cache
        assert listed(mcp_of(client)) == first
        assert len(builds) == built


def test_a_failing_choice_keeps_the_built_schema_and_warns_once(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    choose = UserViewSet.get_serializer_class

    def picky(self: UserViewSet) -> Any:
        if self.request.user.is_authenticated:
            raise LookupError("no tenant for this user")
        return choose(self)

    monkeypatch.setattr(UserViewSet, "get_serializer_class", picky)
    client = person("m", manager=True)
    with caplog.at_level(logging.WARNING, logger="frisian_mcp"):
        listed(mcp_of(client))
        tools = listed(mcp_of(client))
    assert "email" not in fields(tools["users__create"])
    warned = [r.getMessage() for r in caplog.records if "LookupError" in r.message]
    assert len(warned) == 5  # once per tool whose schema reads the serializer
    problems = [p for p in get_registry().problems if p.error == "LookupError"]
    assert {p.action for p in problems} == {
        "list",
        "create",
        "retrieve",
        "update",
        "partial_update",
    }
    assert not any(p.fatal for p in problems)


def test_a_variant_whose_class_changed_is_built_again(builds: list[str]) -> None:
    with override_settings(FRISIAN_MCP={"STORE_BACKEND": FLEET}):
        client = person("m", manager=True)
        listed(mcp_of(client))
        store = get_registry().store
        assert store is not None
        key = f"frisian_mcp:schemas:{store.fingerprint}"  # type: ignore[attr-defined]
        schemas, problems = fleet.load(key, rights=False)
        # As another deploy's workers stored them: the class's code differs.
        aged = {
            (k[0], k[1], "0" * 32) if isinstance(k, tuple) else k: v
            for k, v in schemas.items()
        }
        assert aged != schemas
        fleet.store(key, (aged, problems), None, rights=False)
        built = len(builds)
        reset_registry()
        listed(mcp_of(client))
        assert len(builds) - built == 5  # the full class's five, not the rest
