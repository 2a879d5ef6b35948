"""The guarded host over MCP and over REST, on the same server and data.

The host (``tests.hosts.guarded``) runs django-guardian's object permissions
with DRF's ``DjangoObjectPermissions`` and guardian's
``ObjectPermissionsFilter``, routes nested by drf-nested-routers, a
permission class that reads the parent from the URL and a lookup by a
writable ``code``, with ``DEBUG = False``. Each request is sent both ways
as five kinds of user, each from the same starting rows (a savepoint rolled
back after each): the verdict, what is returned and the rows stored after
must agree (issue 18 item 9 and its real-library tests).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.models import Permission, User
from django.db import models, transaction
from django.test import Client, override_settings
from guardian.shortcuts import assign_perm

from frisian_mcp.contrib.testing import MCPError, MCPTestClient, tool_error
from tests.hosts.guarded.models import Component, Language, Project
from tests.test_parity import INPUT_ERROR_CODES

pytestmark = pytest.mark.django_db

USERS = ("anonymous", "nobody", "manager", "maintainer", "superuser")


@pytest.fixture(autouse=True)
def _guarded() -> Iterator[None]:
    assert settings.DEBUG is False
    with override_settings(
        ROOT_URLCONF="tests.hosts.guarded.urls",
        FRISIAN_MCP={"REQUIRE_AUTHENTICATION": False, "TOOL_LAYOUT": "flat"},
    ):
        alpha = Project.objects.create(slug="alpha", name="Alpha")
        Project.objects.create(slug="beta", name="Beta")
        Component.objects.create(project=alpha, slug="core", name="Core")
        Component.objects.create(project=alpha, slug="docs", name="Docs")
        Language.objects.create(code="nl", name="Dutch")
        yield


def sign_in(kind: str) -> Client:
    """A client as: nobody (no rights), manager (global model permissions),
    maintainer (guardian view/change on project alpha only), superuser."""
    client = Client()
    if kind == "anonymous":
        return client
    if kind == "superuser":
        user = User.objects.create_superuser(kind, password="pw")
    else:
        user = User.objects.create_user(kind, password="pw")
    if kind == "manager":
        codenames = ("add_project", "change_project", "add_language")
        for codename in codenames:
            user.user_permissions.add(
                Permission.objects.get(
                    content_type__app_label="guarded", codename=codename
                )
            )
    if kind == "maintainer":
        alpha = Project.objects.get(slug="alpha")
        for codename in ("view_project", "change_project"):
            assign_perm(f"guarded.{codename}", user, alpha)
    client.force_login(user)
    return client


MODELS: tuple[type[models.Model], ...] = (Project, Component, Language)


def rows() -> dict[str, list[dict[str, Any]]]:
    return {
        model.__name__: unnumbered(list(model._default_manager.order_by("pk").values()))
        for model in MODELS
    }


def unnumbered(value: Any) -> Any:
    """``value`` without row ids: PostgreSQL's sequences do not roll back,
    so the same create gets another id over REST and over MCP."""
    if isinstance(value, list):
        return [unnumbered(item) for item in value]
    if isinstance(value, dict):
        return {k: unnumbered(v) for k, v in value.items() if k != "id"}
    return value


@dataclass
class Outcome:
    verdict: str
    data: Any
    stored: dict[str, list[dict[str, Any]]]


REST_VERDICTS = {400: "invalid", 401: "denied", 403: "denied", 404: "not_found"}
MCP_VERDICTS = {
    "permission_denied": "denied",
    "not_authenticated": "denied",
    "not_found": "not_found",
}


def over_rest(client: Client, method: str, path: str, body: Any) -> Outcome:
    with transaction.atomic():
        send = getattr(client, method.lower())
        if method == "GET":
            response = send(f"/api/{path}")
        else:
            response = send(f"/api/{path}", json.dumps(body), "application/json")
        status = response.status_code
        data = json.loads(response.content) if response.content else None
        if isinstance(data, dict) and "results" in data:
            data = data["results"]
        verdict = "allowed" if status < 300 else REST_VERDICTS.get(status, str(status))
        outcome = Outcome(verdict, data if status < 300 else None, rows())
        transaction.set_rollback(True)
    return outcome


def over_mcp(client: Client, tool: str, arguments: dict[str, Any]) -> Outcome:
    mcp = MCPTestClient(client)
    mcp.initialize()
    hidden = tool not in {listed["name"] for listed in mcp.list_tools()}
    with transaction.atomic():
        try:
            result = mcp.call_tool(tool, arguments)
        except MCPError as exc:
            code = exc.data.get("code")
            # A tool hidden from the caller is what REST's refusal is; a
            # listed one must answer as its view does.
            verdict = "denied" if code == "unknown_tool" and hidden else f"error {code}"
            if exc.code == -32602 and code in INPUT_ERROR_CODES:
                verdict = "invalid"
            outcome = Outcome(verdict, None, rows())
        else:
            if result.get("isError"):
                code = tool_error(result)["code"]
                outcome = Outcome(MCP_VERDICTS.get(code, code), None, rows())
            else:
                content = result["structuredContent"]
                data = content.get("results", content)
                outcome = Outcome("allowed", data, rows())
        transaction.set_rollback(True)
    return outcome


#: (tool, arguments, REST method, path under /api/, REST body).
REQUESTS = [
    ("projects__list", {}, "GET", "projects/", None),
    ("projects__retrieve", {"slug": "alpha"}, "GET", "projects/alpha/", None),
    ("projects__retrieve", {"slug": "beta"}, "GET", "projects/beta/", None),
    (
        "projects__create",
        {"slug": "gamma", "name": "Gamma"},
        "POST",
        "projects/",
        {"slug": "gamma", "name": "Gamma"},
    ),
    (
        "projects__partial_update",
        {"slug": "alpha", "name": "Alpha 2"},
        "PATCH",
        "projects/alpha/",
        {"name": "Alpha 2"},
    ),
    (
        "projects__update",
        {"slug": "alpha", "name": "Alpha 3"},
        "PUT",
        "projects/alpha/",
        {"slug": "alpha", "name": "Alpha 3"},
    ),
    ("projects__destroy", {"slug": "beta"}, "DELETE", "projects/beta/", None),
    (
        "projects__components__list",
        {"project_slug": "alpha"},
        "GET",
        "projects/alpha/components/",
        None,
    ),
    (
        "projects__components__retrieve",
        {"project_slug": "alpha", "slug": "core"},
        "GET",
        "projects/alpha/components/core/",
        None,
    ),
    (
        "projects__components__create",
        {"project_slug": "alpha", "slug": "api", "name": "API"},
        "POST",
        "projects/alpha/components/",
        {"slug": "api", "name": "API"},
    ),
    (
        "projects__components__partial_update",
        {"project_slug": "alpha", "slug": "core", "body_slug": "kern"},
        "PATCH",
        "projects/alpha/components/core/",
        {"slug": "kern"},
    ),
    (
        "projects__components__list",
        {"project_slug": "beta"},
        "GET",
        "projects/beta/components/",
        None,
    ),
    ("languages__retrieve", {"code": "nl"}, "GET", "languages/nl/", None),
    (
        "languages__create",
        {"code": "de", "name": "German"},
        "POST",
        "languages/",
        {"code": "de", "name": "German"},
    ),
    (
        "languages__update",
        {"code": "nl", "name": "Nederlands"},
        "PUT",
        "languages/nl/",
        {"code": "nl", "name": "Nederlands"},
    ),
    (
        "languages__partial_update",
        {"code": "nl", "body_code": "nl-NL"},
        "PATCH",
        "languages/nl/",
        {"code": "nl-NL"},
    ),
]


@pytest.mark.parametrize("kind", USERS)
@pytest.mark.parametrize(
    "request_", REQUESTS, ids=[f"{r[0]}-{r[2]}-{r[3]}" for r in REQUESTS]
)
def test_each_call_agrees_with_rest(kind: str, request_: tuple[Any, ...]) -> None:
    tool, arguments, method, path, body = request_
    client = sign_in(kind)
    rest = over_rest(client, method, path, body)
    mcp = over_mcp(client, tool, arguments)
    assert mcp.verdict == rest.verdict
    assert mcp.stored == rest.stored
    if method != "DELETE":
        assert unnumbered(mcp.data) == unnumbered(rest.data)


def test_the_table_covers_every_outcome() -> None:
    """The table above exercises refusals, hidden rows and writes."""
    seen = set()
    for kind in USERS:
        client = sign_in(kind)
        for _, _, method, path, body in REQUESTS:
            seen.add(over_rest(client, method, path, body).verdict)
    assert seen == {"allowed", "denied", "not_found"}
