"""Every GET action that REST pages is paged through its tool (issue 18 item 6).

The localization host (``tests.hosts.translations``) reads a translation's units
through a custom action that calls ``self.paginate_queryset`` itself; other
actions page through a helper, through ``self.list`` or by limit and
offset. Each tool takes ``page``, ``page_size`` and ``continuation_token``
as list tools do, and each page equals REST's.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from django.test import Client, override_settings

from frisian_mcp.contrib.testing import MCPError, MCPTestClient
from tests.hosts.translations.models import Project, Translation, Unit

pytestmark = pytest.mark.django_db

PAGING = {"page", "page_size", "continuation_token"}


@pytest.fixture(autouse=True)
def _urls() -> Iterator[None]:
    with override_settings(
        ROOT_URLCONF="tests.hosts.translations.urls",
        FRISIAN_MCP={"REQUIRE_AUTHENTICATION": False, "TOOL_LAYOUT": "flat"},
    ):
        yield


@pytest.fixture
def translation() -> Translation:
    """A Frisian translation of eleven strings; every third is untranslated."""
    project = Project.objects.create(slug="weather")
    Project.objects.create(slug="archive", active=False)
    Project.objects.create(slug="maps")
    for code in ("nl", "de", "fy", "fr", "en"):
        Translation.objects.create(project=project, language_code=code)
    frisian = Translation.objects.get(language_code="fy")
    for i in range(11):
        Unit.objects.create(
            translation=frisian,
            source=f"{'rain' if i % 2 else 'sun'} {i}",
            target="" if i % 3 == 0 else f"tekst {i}",
        )
    return frisian


@pytest.fixture
def tools(mcp: MCPTestClient) -> dict[str, dict[str, Any]]:
    return {tool["name"]: tool for tool in mcp.list_tools()}


def rest(url: str, **params: Any) -> Any:
    response = Client().get(url, params)
    assert response.status_code == 200, response.content
    return json.loads(response.content)


def ids(rows: list[dict[str, Any]]) -> list[int]:
    return [row["id"] for row in rows]


@pytest.mark.parametrize(
    "tool",
    [
        "translations__units",
        "translations__untranslated",
        "projects__languages",
        "projects__active",
    ],
)
def test_a_get_action_that_pages_declares_the_paging_arguments(
    tools: dict[str, dict[str, Any]], tool: str
) -> None:
    properties = tools[tool]["inputSchema"]["properties"]
    assert set(properties) >= PAGING, tool
    assert not {"limit", "offset", "query_page", "query_page_size"} & set(properties)


@pytest.mark.parametrize("paging", [{"page": 2}, {"page_size": 4}])
def test_an_action_that_answers_whole_refuses_paging(
    mcp: MCPTestClient,
    tools: dict[str, dict[str, Any]],
    translation: Translation,
    paging: dict[str, int],
) -> None:
    """Nothing declares what the action answers, so it may page (ADR 0035);
    its answer is no page, so a page it cannot give is refused, not ignored."""
    properties = tools["translations__statistics"]["inputSchema"]["properties"]
    assert set(properties) >= PAGING
    arguments = {"id": translation.pk}
    counts = mcp.call_tool("translations__statistics", arguments)
    assert counts["structuredContent"] == {"total": 11, "translated": 7}
    first = mcp.call_tool("translations__statistics", {**arguments, "page": 1})
    assert first["structuredContent"] == counts["structuredContent"]
    with pytest.raises(MCPError) as info:
        mcp.call_tool("translations__statistics", {**arguments, **paging})
    assert info.value.data["code"] == "invalid_argument", info.value.data
    assert info.value.data["field"] == next(iter(paging))


@pytest.mark.parametrize("search", [None, "rain"])
def test_a_translations_units_page_by_page_as_rest(
    mcp: MCPTestClient, translation: Translation, search: str | None
) -> None:
    """Past the first page, with and without the action's own ``q``."""
    query = {"q": search} if search else {}
    url = f"/api/translations/{translation.pk}/units/"
    for number in (1, 2, 3):
        arguments = {"id": translation.pk, "page": number, "page_size": 4, **query}
        page = mcp.call_tool("translations__units", arguments)["structuredContent"]
        over_rest = rest(url, page=number, page_size=4, **query)
        assert ids(page["results"]) == ids(over_rest["results"]), (search, number)
        assert page["count"] == over_rest["count"]
        assert page["has_more"] is (over_rest["next"] is not None)
        if not page["has_more"]:
            break
    else:
        pytest.fail("the units never ended")


def test_a_translations_units_follow_the_continuation_token(
    mcp: MCPTestClient, translation: Translation
) -> None:
    """The token walks every unit in REST's order, and says when it ends."""
    page = mcp.call_tool("translations__units", {"id": translation.pk, "page_size": 4})[
        "structuredContent"
    ]
    seen = ids(page["results"])
    while "next_token" in page:
        arguments = {"id": translation.pk, "continuation_token": page["next_token"]}
        page = mcp.call_tool("translations__units", arguments)["structuredContent"]
        seen += ids(page["results"])
    everything = rest(f"/api/translations/{translation.pk}/units/", page_size=100)
    assert seen == ids(everything["results"])
    assert len(seen) == 11


def test_an_action_paging_through_a_helper_pages_as_rest(
    mcp: MCPTestClient, translation: Translation
) -> None:
    """A declared list response: REST's paging parameters become the tool's."""
    arguments = {"id": translation.pk, "page": 2, "page_size": 2}
    page = mcp.call_tool("translations__untranslated", arguments)["structuredContent"]
    over_rest = rest(
        f"/api/translations/{translation.pk}/untranslated/", page=2, page_size=2
    )
    assert ids(page["results"]) == ids(over_rest["results"])
    assert page["count"] == over_rest["count"] == 4


def test_a_limit_offset_action_pages_as_rest(
    mcp: MCPTestClient, translation: Translation
) -> None:
    project = translation.project
    arguments = {"id": project.pk, "page": 2, "page_size": 2}
    page = mcp.call_tool("projects__languages", arguments)["structuredContent"]
    over_rest = rest(f"/api/projects/{project.pk}/languages/", limit=2, offset=2)
    assert ids(page["results"]) == ids(over_rest["results"])
    assert page["count"] == over_rest["count"] == 5


def test_an_action_returning_the_list_pages_as_the_list(
    mcp: MCPTestClient, translation: Translation
) -> None:
    page = mcp.call_tool("projects__active", {"page_size": 1, "page": 2})
    over_rest = rest("/api/projects/active/", limit=1, offset=1)
    assert ids(page["structuredContent"]["results"]) == ids(over_rest["results"])
    assert page["structuredContent"]["count"] == 2


def test_a_bad_page_of_an_action_is_an_argument_error(
    mcp: MCPTestClient, translation: Translation
) -> None:
    for bad in ({"page": 0}, {"page_size": 10**6}, {"continuation_token": "x"}):
        with pytest.raises(MCPError) as info:
            mcp.call_tool("translations__units", {"id": translation.pk, **bad})
        assert info.value.code == -32602, bad
        data = info.value.data
        named = [data.get("field")] + [f["field"] for f in data.get("fields", [])]
        assert next(iter(bad)) in named, data
