"""Path arguments: one name per URL variable on every tool of a resource.

A path argument is named as drf-spectacular names the URL variable, on
every tool; a body field of the same name is ``body_<name>``, and a full
update (PUT) that leaves it out keeps the row's value (docs/listing.md). A
mistaken path-argument name is the argument error it is, with a "did you
mean", never "not found" (issue 18 item 9).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client, override_settings

from frisian_mcp.contrib.testing import MCPError, MCPTestClient
from frisian_mcp.registry import get_registry
from tests.hosts.guarded.models import Component, Language, Project
from tests.mounted import mounted, urlconfs

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("urlconf", urlconfs())
def test_every_tool_of_a_resource_names_a_url_variable_alike(urlconf: str) -> None:
    with mounted(urlconf, {"REQUIRE_AUTHENTICATION": False, "TOOL_LAYOUT": "flat"}):
        names: dict[tuple[type[Any], str], set[str]] = defaultdict(set)
        for tool in get_registry():
            schema = tool.schema
            if schema is None:
                continue
            for argument, variable in schema.path_arguments.items():
                names[(tool.endpoint.view_class, variable)].add(argument)
                assert argument in schema.input_schema["required"], tool.name
            for argument, field in schema.body_fields.items():
                beside = field in schema.path_arguments
                assert argument == (f"body_{field}" if beside else field)
    # Every test app has detail routes but a single APIView and a list.
    assert names or urlconf in (
        "tests.regressions.test_inner_request_headers",
        "tests.urls_completion_none",
    )
    assert {key: found for key, found in names.items() if len(found) > 1} == {}


@pytest.fixture
def mcp() -> Iterator[MCPTestClient]:
    with override_settings(
        ROOT_URLCONF="tests.hosts.guarded.urls",
        FRISIAN_MCP={"REQUIRE_AUTHENTICATION": False, "TOOL_LAYOUT": "flat"},
    ):
        alpha = Project.objects.create(slug="alpha", name="Alpha")
        Component.objects.create(project=alpha, slug="core", name="Core")
        Language.objects.create(code="nl", name="Dutch")
        client = Client()
        client.force_login(User.objects.create_superuser("root", password="pw"))
        session = MCPTestClient(client)
        session.initialize()
        yield session


def arguments_of(mcp: MCPTestClient, name: str) -> set[str]:
    (tool,) = (t for t in mcp.list_tools() if t["name"] == name)
    return set(tool["inputSchema"]["properties"])


def test_every_tool_of_languages_takes_the_code(mcp: MCPTestClient) -> None:
    for action in ("retrieve", "update", "partial_update", "destroy"):
        assert "code" in arguments_of(mcp, f"languages__{action}"), action
        assert "lookup_code" not in arguments_of(mcp, f"languages__{action}")
    assert {"code", "body_code", "name"} <= arguments_of(mcp, "languages__update")
    assert "body_code" not in arguments_of(mcp, "languages__create")


def test_what_retrieve_returns_updates_unchanged(mcp: MCPTestClient) -> None:
    record = mcp.call_tool("languages__retrieve", {"code": "nl"})["structuredContent"]
    updated = mcp.call_tool("languages__update", {**record, "name": "Nederlands"})
    assert updated["structuredContent"] == {"code": "nl", "name": "Nederlands"}
    assert list(Language.objects.values("code", "name")) == [
        {"code": "nl", "name": "Nederlands"}
    ]


@pytest.mark.parametrize("action", ["update", "partial_update"])
def test_the_body_field_beside_a_path_argument_renames(
    mcp: MCPTestClient, action: str
) -> None:
    arguments = {"code": "nl", "body_code": "nl-NL", "name": "Dutch"}
    result = mcp.call_tool(f"languages__{action}", arguments)
    assert result["structuredContent"]["code"] == "nl-NL"
    assert list(Language.objects.values_list("code", flat=True)) == ["nl-NL"]


def rejected(mcp: MCPTestClient, name: str, arguments: dict[str, Any]) -> Any:
    with pytest.raises(MCPError) as info:
        mcp.call_tool(name, arguments)
    assert info.value.code == -32602
    return info.value.data


@pytest.mark.parametrize(
    ("name", "arguments", "wrong", "meant"),
    [
        ("languages__retrieve", {"id": "nl"}, "id", "code"),
        ("languages__partial_update", {"pk": "nl", "name": "X"}, "pk", "code"),
        ("languages__destroy", {"language": "nl"}, "language", "code"),
        (
            "projects__components__retrieve",
            {"project_slug": "alpha", "id": "core"},
            "id",
            "slug",
        ),
        (
            "projects__components__update",
            {"project": "alpha", "slug": "core", "name": "X"},
            "project",
            "project_slug",
        ),
    ],
)
def test_a_mistaken_path_argument_name_is_an_argument_error(
    mcp: MCPTestClient, name: str, arguments: dict[str, Any], wrong: str, meant: str
) -> None:
    before = (list(Language.objects.values()), list(Component.objects.values()))
    data = rejected(mcp, name, arguments)
    assert data["code"] == "unknown_argument"
    (entry,) = (f for f in data["fields"] if f["field"] == wrong)
    assert entry["did_you_mean"] == meant
    assert data["suggestions"] == {wrong: meant}
    assert (list(Language.objects.values()), list(Component.objects.values())) == (
        before
    )


def test_two_mistaken_names_each_get_their_own_suggestion(mcp: MCPTestClient) -> None:
    data = rejected(mcp, "projects__components__retrieve", {"id": 1, "project": 2})
    assert data["suggestions"] == {"id": "slug", "project": "project_slug"}


@pytest.mark.parametrize(
    ("name", "arguments", "suggestions"),
    [
        (
            "projects__components__list",
            {"project_slug": "alpha", "pgae": 2},
            {"pgae": "page"},
        ),
        (
            "projects__components__create",
            {"project_slug": "alpha", "slug": "api", "name": "API", "nmae": "x"},
            {"nmae": "name"},
        ),
    ],
)
def test_an_argument_error_on_a_nested_list_or_create_is_reported(
    mcp: MCPTestClient,
    name: str,
    arguments: dict[str, Any],
    suggestions: dict[str, str],
) -> None:
    """A nested route has path arguments but no row to find first."""
    data = rejected(mcp, name, arguments)
    assert data["code"] == "unknown_argument"
    assert data["suggestions"] == suggestions
    assert not Component.objects.filter(slug="api").exists()


@override_settings(
    ROOT_URLCONF="tests.hosts.guarded.urls",
    FRISIAN_MCP={"REQUIRE_AUTHENTICATION": False, "TOOL_LAYOUT": "flat"},
)
def test_a_hidden_tool_with_a_mistaken_name_stays_unknown() -> None:
    Language.objects.create(code="nl", name="Dutch")
    client = Client()
    client.force_login(User.objects.create_user("nobody", password="pw"))
    mcp = MCPTestClient(client)
    mcp.initialize()
    assert "languages__update" not in {t["name"] for t in mcp.list_tools()}
    data = rejected(mcp, "languages__update", {"id": "nl", "name": "X"})
    assert data["code"] == "unknown_tool"
    assert "languages__update" not in data["suggestions"]
    assert Language.objects.get().name == "Dutch"
