"""Issue 25 item 13: a continuation token is bound to its path arguments.

A list's token was bound to its tool, caller, filters and page size, but a
detail action's (a translation's units) and a nested list's (a project's
components) page by the row in their path too: a token taken on one row
and sent with another returned the other row's page 2. Now the token holds
the path arguments, and one sent with others is an ``invalid_token`` error.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client, override_settings

from frisian_mcp.contrib.testing import MCPError, MCPTestClient
from tests.hosts.guarded.models import Component
from tests.hosts.guarded.models import Project as GuardedProject
from tests.hosts.translations.models import Project, Translation, Unit

pytestmark = pytest.mark.django_db


def client(urlconf: str, user: User | None = None) -> Iterator[MCPTestClient]:
    settings = {"REQUIRE_AUTHENTICATION": False, "TOOL_LAYOUT": "flat"}
    with override_settings(ROOT_URLCONF=urlconf, FRISIAN_MCP=settings, DEBUG=False):
        http = Client()
        if user is not None:
            http.force_login(user)
        mcp = MCPTestClient(http)
        mcp.initialize()
        yield mcp


def refused_token(mcp: MCPTestClient, tool: str, arguments: dict[str, Any]) -> None:
    with pytest.raises(MCPError) as info:
        mcp.call_tool(tool, arguments)
    assert info.value.code == -32602
    assert info.value.data["code"] == "invalid_token"
    assert info.value.data["field"] == "continuation_token"
    assert "path arguments" in info.value.message


@pytest.fixture
def translations() -> Iterator[MCPTestClient]:
    project = Project.objects.create(slug="weather")
    for code in ("fy", "nl"):
        translation = Translation.objects.create(project=project, language_code=code)
        for i in range(6):
            Unit.objects.create(translation=translation, source=f"{code} {i}")
    yield from client("tests.hosts.translations.urls")


def test_a_detail_actions_token_pages_only_its_own_row(
    translations: MCPTestClient,
) -> None:
    frisian, dutch = Translation.objects.order_by("language_code")
    first = translations.call_tool(
        "translations__units", {"id": frisian.pk, "page_size": 4}
    )["structuredContent"]
    token = first["next_token"]
    refused_token(
        translations,
        "translations__units",
        {"id": dutch.pk, "continuation_token": token},
    )
    page = translations.call_tool(
        "translations__units", {"id": frisian.pk, "continuation_token": token}
    )["structuredContent"]
    assert [u["source"] for u in page["results"]] == ["fy 4", "fy 5"]


@pytest.fixture
def components() -> Iterator[MCPTestClient]:
    for slug in ("alpha", "beta"):
        project = GuardedProject.objects.create(slug=slug, name=slug)
        for i in range(3):
            Component.objects.create(project=project, slug=f"c{i}", name=f"{slug} {i}")
    root = User.objects.create_superuser("root", password="pw")
    yield from client("tests.hosts.guarded.urls", root)


def test_a_nested_lists_token_pages_only_its_own_parent(
    components: MCPTestClient,
) -> None:
    first = components.call_tool(
        "projects__components__list", {"project_slug": "alpha", "page_size": 2}
    )["structuredContent"]
    token = first["next_token"]
    refused_token(
        components,
        "projects__components__list",
        {"project_slug": "beta", "continuation_token": token},
    )
    page = components.call_tool(
        "projects__components__list",
        {"project_slug": "alpha", "continuation_token": token},
    )["structuredContent"]
    assert [c["name"] for c in page["results"]] == ["alpha 2"]
