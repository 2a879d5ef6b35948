"""Issue 18 item 3: no dead ends where the host's OpenAPI is wrong or guessed.

``tests.hosts.l10n`` has custom actions that read keys their OpenAPI does not
declare: drf-spectacular guessed their bodies from ``serializer_class``. The
key the action needs reaches it unchecked (ADR 0030, issue 25 item 1), and
W009 names each such action and its fix; ``request_bodies``
(``VIEWSET_OPTIONS`` or ``mcp_request_bodies``) declares the real body and
makes the tool strict, after which each call does what the same REST call
does on the same data; the host's 400 naming a key a strict tool cannot send
says the tool's schema is incomplete; E010 refuses declarations that are not
JSON Schema 2020-12.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core import checks
from django.db import transaction
from django.test import Client, override_settings

from frisian_mcp.checks import check_schemas, check_tools
from frisian_mcp.contrib.testing import MCPError, MCPTestClient
from frisian_mcp.discovery import VIEWSET_OPTION_KEYS
from frisian_mcp.registry import get_registry
from tests.hosts.l10n.models import Label, Language, Project, Role, Team
from tests.hosts.l10n.views import TeamViewSet

pytestmark = pytest.mark.django_db

PROJECTS = "tests.hosts.l10n.views.ProjectViewSet"
TEAMS = "tests.hosts.l10n.views.TeamViewSet"
#: The bodies the guessed actions really read.
BODIES: dict[str, dict[str, Any]] = {
    "languages": {
        "type": "object",
        "properties": {"language_code": {"type": "string", "minLength": 1}},
        "required": ["language_code"],
    },
    "labels": {
        "type": "object",
        "properties": {
            "name": {"type": "string", "maxLength": 50},
            "color": {"type": "string", "pattern": "^#[0-9a-f]{6}$"},
        },
        "required": ["name", "color"],
    },
}
ROLE_BODY = {
    "type": "object",
    "properties": {"role_id": {"type": "integer"}},
    "required": ["role_id"],
}


def settings(**options: Any) -> dict[str, Any]:
    return {"REQUIRE_AUTHENTICATION": False, "TOOL_LAYOUT": "flat", **options}


@pytest.fixture(autouse=True)
def _host() -> Iterator[None]:
    with override_settings(
        ROOT_URLCONF="tests.hosts.l10n.urls", FRISIAN_MCP=settings()
    ):
        yield


@pytest.fixture(autouse=True)
def data() -> None:
    Language.objects.create(code="de", name="German")
    Language.objects.create(code="fr", name="French")
    Project.objects.create(slug="docs", name="Docs")
    Team.objects.create(pk=11, name="core")
    Role.objects.create(pk=7, name="reviewer")


@pytest.fixture
def declared(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Bodies declared in settings for ProjectViewSet, on the class for teams."""
    monkeypatch.setattr(
        TeamViewSet, "mcp_request_bodies", {"roles": ROLE_BODY}, raising=False
    )
    options = {"VIEWSET_OPTIONS": {PROJECTS: {"request_bodies": BODIES}}}
    with override_settings(FRISIAN_MCP=settings(**options)):
        yield


def rows() -> dict[str, list[Any]]:
    """What the actions write: languages, labels and roles."""
    through = Project.languages.through.objects.values_list(
        "project__slug", "language__code"
    )
    return {
        "languages": sorted(through),
        "labels": sorted(Label.objects.values_list("project__slug", "name", "color")),
        "roles": sorted(Team.roles.through.objects.values_list("team_id", "role_id")),
    }


def rest(path: str, body: dict[str, Any]) -> tuple[int, Any, dict[str, list[Any]]]:
    """The REST call's status, answer and rows, then rolled back."""
    with transaction.atomic():
        response = Client().post(path, body, content_type="application/json")
        written = rows()
        transaction.set_rollback(True)
    return response.status_code, json.loads(response.content), written


def guessed(messages: list[checks.CheckMessage]) -> set[str]:
    """The tools W009 names."""
    found = (re.match(r"The tool (\S+) ", m.msg) for m in messages)
    return {m[1] for m in found if m is not None}


def w009(messages: list[checks.CheckMessage]) -> list[checks.CheckMessage]:
    return [m for m in messages if m.id == "frisian_mcp.W009"]


def test_w009_names_each_action_whose_body_was_guessed() -> None:
    warnings = w009(check_schemas())
    # Not rename (declares its body, the viewset's own serializer), nor
    # transfer (its serializer is chosen for the action), nor stock actions.
    assert guessed(warnings) == {
        "projects__labels",
        "projects__languages",
        "teams__roles",
    }
    languages = next(m for m in warnings if "projects__languages" in m.msg)
    assert "ProjectSerializer" in languages.msg
    assert languages.obj == PROJECTS
    assert (
        f"FRISIAN_MCP['VIEWSET_OPTIONS']['{PROJECTS}']['request_bodies']['languages']"
        in str(languages.hint)
    )
    assert "@extend_schema(request=...)" in str(languages.hint)


def test_declared_bodies_silence_w009(declared: None) -> None:
    assert guessed(w009(check_schemas())) == set()


def test_a_guessed_body_passes_the_key_rest_takes() -> None:
    """No dead end (ADR 0030): the key the guess lacks reaches the view."""
    status, answer, written = rest(
        "/api/projects/docs/languages/", {"language_code": "de"}
    )
    assert status == 201
    assert written["languages"] == [("docs", "de")]
    mcp = MCPTestClient()
    mcp.initialize()
    result = mcp.call_tool(
        "projects__languages", {"slug": "docs", "language_code": "de"}
    )
    assert result["isError"] is False, result
    assert result["structuredContent"] == {**answer, "unchecked": ["language_code"]}
    assert rows() == written


def test_host_400_for_a_key_a_guessed_tool_lacks_asks_for_it() -> None:
    status, answer, _ = rest("/api/projects/docs/languages/", {})
    assert (status, answer) == (400, {"language_code": ["This field is required."]})
    mcp = MCPTestClient()
    mcp.initialize()
    with pytest.raises(MCPError) as info:
        mcp.call_tool("projects__languages", {"slug": "docs"})
    error = info.value.data
    assert (info.value.code, error["code"]) == (-32602, "validation_failed")
    assert error["recoverable"] is True
    assert "fix language_code" in info.value.message
    assert rows() == {"languages": [], "labels": [], "roles": []}


def test_host_400_for_an_undeclared_key_says_the_schema_is_incomplete() -> None:
    """A declared body is strict: a key it lacks no call of the tool can send."""
    body = {"type": "object", "properties": {"note": {"type": "string"}}}
    options = {"VIEWSET_OPTIONS": {PROJECTS: {"request_bodies": {"languages": body}}}}
    with override_settings(FRISIAN_MCP=settings(**options)):
        mcp = MCPTestClient()
        mcp.initialize()
        with pytest.raises(MCPError) as info:
            mcp.call_tool("projects__languages", {"slug": "docs", "note": "x"})
    error = info.value.data
    assert info.value.code == -32602
    assert error["code"] == "validation_failed"
    assert error["recoverable"] is False
    message = info.value.message
    assert "language_code" in message
    assert "schema is incomplete" in message
    assert "fix language_code" not in message
    assert "request_bodies" in error["hint"]
    assert error["fields"] == [
        {
            "field": "language_code",
            "code": "invalid",
            "message": "This field is required.",
        }
    ]
    assert rows() == {"languages": [], "labels": [], "roles": []}


def test_host_400_for_a_declared_key_still_asks_for_a_fix(declared: None) -> None:
    mcp = MCPTestClient()
    mcp.initialize()
    with pytest.raises(MCPError) as info:
        mcp.call_tool("projects__languages", {"slug": "docs", "language_code": "xx"})
    error = info.value.data
    assert error["recoverable"] is True
    assert "fix language_code" in info.value.message
    assert "incomplete" not in info.value.message
    assert rows()["languages"] == []


CALLS = [
    (
        "projects__languages",
        {"slug": "docs", "language_code": "fr"},
        "/api/projects/docs/languages/",
    ),
    (
        "projects__labels",
        {"slug": "docs", "name": "urgent", "color": "#ff0000"},
        "/api/projects/docs/labels/",
    ),
    ("teams__roles", {"id": 11, "role_id": 7}, "/api/teams/11/roles/"),
]


@pytest.mark.parametrize(("tool", "arguments", "path"), CALLS)
def test_declared_bodies_call_as_rest_does(
    declared: None, tool: str, arguments: dict[str, Any], path: str
) -> None:
    path_keys = {"slug", "id"}
    body = {k: v for k, v in arguments.items() if k not in path_keys}
    status, answer, written = rest(path, body)
    assert status == 201, answer
    mcp = MCPTestClient()
    mcp.initialize()
    result = mcp.call_tool(tool, arguments)
    assert result["isError"] is False, result
    answer.pop("id", None)
    structured = {k: v for k, v in result["structuredContent"].items() if k != "id"}
    assert structured == answer
    assert rows() == written


def test_a_declared_body_is_the_tools_schema(declared: None) -> None:
    schemas = {tool["name"]: tool["inputSchema"] for tool in _listing()}
    labels = schemas["projects__labels"]
    assert labels["properties"]["color"] == BODIES["labels"]["properties"]["color"]
    assert set(labels["required"]) == {"slug", "name", "color"}
    assert labels["additionalProperties"] is False
    assert schemas["teams__roles"]["properties"]["role_id"] == {"type": "integer"}


@pytest.mark.parametrize(
    ("tool", "arguments", "field"),
    [
        ("teams__roles", {"id": 11, "role_id": "7"}, "role_id"),
        ("projects__labels", {"slug": "docs", "name": "a", "color": "red"}, "color"),
        ("projects__languages", {"slug": "docs"}, "language_code"),
    ],
)
def test_a_declared_body_is_checked_before_the_view_runs(
    declared: None, tool: str, arguments: dict[str, Any], field: str
) -> None:
    mcp = MCPTestClient()
    mcp.initialize()
    with pytest.raises(MCPError) as info:
        mcp.call_tool(tool, arguments)
    assert info.value.code == -32602
    assert info.value.data["code"] == "invalid_argument"
    assert [f["field"] for f in info.value.data["fields"]] == [field]
    assert rows() == {"languages": [], "labels": [], "roles": []}


def test_a_declared_body_that_is_not_flat_is_one_body_argument() -> None:
    body = {**BODIES["labels"], "minProperties": 2}
    options = {"VIEWSET_OPTIONS": {PROJECTS: {"request_bodies": {"labels": body}}}}
    with override_settings(FRISIAN_MCP=settings(**options)):
        schema = next(
            t["inputSchema"] for t in _listing() if t["name"] == "projects__labels"
        )
        assert schema["properties"]["body"] == body
        assert schema["required"] == ["slug", "body"]
        payload = {"name": "urgent", "color": "#00ff00"}
        _, answer, written = rest("/api/projects/docs/labels/", payload)
        mcp = MCPTestClient()
        mcp.initialize()
        result = mcp.call_tool("projects__labels", {"slug": "docs", "body": payload})
    assert result["isError"] is False, result
    assert {**result["structuredContent"], "id": 0} == {**answer, "id": 0}
    assert rows() == written


BAD = [
    ({"request_bodies": {"languages": {"type": "text"}}}, "is not valid JSON Schema"),
    ({"request_bodies": {"languages": "object"}}, "must be a JSON Schema object"),
    ({"request_bodies": {"language": BODIES["languages"]}}, "names no method"),
    ({"request_bodies": ["languages"]}, "request_bodies of"),
    ({"query_parameters": {"q": 5}}, "must be a JSON Schema type name or a dict"),
    ({"query_parameters": {"q": "text"}}, "is not valid JSON Schema"),
    ({"query_parameters": {"q": {"schema": {"minimum": "one"}}}}, "is not valid"),
]


@pytest.mark.parametrize(("option", "problem"), BAD)
def test_e010_refuses_a_declaration_that_cannot_be_used(
    option: dict[str, Any], problem: str
) -> None:
    with override_settings(FRISIAN_MCP=settings(VIEWSET_OPTIONS={PROJECTS: option})):
        errors = [m for m in check_tools() if m.id == "frisian_mcp.E010"]
    assert len(errors) == 1, errors
    assert problem in errors[0].msg
    assert errors[0].obj == PROJECTS


def test_e010_reads_the_class_attribute_too(monkeypatch: pytest.MonkeyPatch) -> None:
    bodies = {"roles": {"type": "object", "required": "role_id"}}
    monkeypatch.setattr(TeamViewSet, "mcp_request_bodies", bodies, raising=False)
    errors = [m for m in check_tools() if m.id == "frisian_mcp.E010"]
    assert [m.obj for m in errors] == [TEAMS]


def test_valid_declarations_pass_the_checks(declared: None) -> None:
    params = {"q": "string", "since": {"schema": {"type": "string"}, "explode": False}}
    options = {PROJECTS: {"request_bodies": BODIES, "query_parameters": params}}
    with override_settings(FRISIAN_MCP=settings(VIEWSET_OPTIONS=options)):
        assert [m for m in check_tools() if str(m.id).startswith("frisian_mcp.E")] == []


def test_an_invalid_declared_body_leaves_only_its_tool_out() -> None:
    bad = {"request_bodies": {"languages": {"type": "text"}}}
    with override_settings(FRISIAN_MCP=settings(VIEWSET_OPTIONS={PROJECTS: bad})):
        names = {tool["name"] for tool in _listing()}
        problems = get_registry().problems
    assert "projects__languages" not in names
    assert {"projects__labels", "projects__list", "teams__roles"} <= names
    assert [(p.action, p.error) for p in problems] == [
        ("languages", "ConfigurationError")
    ]


def test_settings_md_documents_every_viewset_option() -> None:
    text = (Path(__file__).parent.parent / "docs" / "settings.md").read_text()
    section = text.split("### `VIEWSET_OPTIONS`", 1)[1].split("\n### ", 1)[0]
    documented = set(re.findall(r"^- `(\w+)`", section, flags=re.MULTILINE))
    assert documented == VIEWSET_OPTION_KEYS


def _listing() -> list[dict[str, Any]]:
    mcp = MCPTestClient()
    mcp.initialize()
    return mcp.list_tools()
