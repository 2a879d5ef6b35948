"""A nested object from retrieve goes back to update (issue 25 item 3).

The glossary host (``tests.hosts.glossary``) shows a component's source
language as the language's own serializer, nested, with read-only ``id``,
``url`` and ``aliases``. REST takes its own GET body back in a PUT and drops
those keys; so does the update tool, while a key that is no field of the
nested serializer at all is still refused (DRF would drop it silently).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.test import override_settings

from frisian_mcp.contrib.testing import MCPTestClient
from tests.hosts.glossary.models import Component, Language
from tests.side_by_side import MARKER, over_mcp, same, sent_nothing_of

pytestmark = pytest.mark.django_db

TABLES = [Component, Language]


@pytest.fixture(autouse=True)
def _urls() -> Iterator[None]:
    with override_settings(
        ROOT_URLCONF="tests.hosts.glossary.urls",
        FRISIAN_MCP={"REQUIRE_AUTHENTICATION": False, "TOOL_LAYOUT": "flat"},
    ):
        yield


@pytest.fixture
def core() -> Component:
    czech = Language.objects.create(code="cs", name="Czech", aliases="cze,ces")
    Language.objects.create(code="de", name="German", aliases="deu")
    return Component.objects.create(slug="core", name="Core", source_language=czech)


def retrieved(mcp: MCPTestClient) -> dict[str, Any]:
    record: dict[str, Any] = mcp.call_tool("components__retrieve", {"slug": "core"})[
        "structuredContent"
    ]
    assert set(record["source_language"]) >= {"id", "url", "aliases", "code"}
    return record


@pytest.mark.parametrize("action", ["update", "partial_update"])
def test_the_record_retrieve_shows_goes_back_unchanged(
    mcp: MCPTestClient, core: Component, action: str
) -> None:
    record = retrieved(mcp)
    method = "PUT" if action == "update" else "PATCH"
    rest, _ = same(
        mcp,
        f"{method} /api/components/core/",
        f"components__{action}",
        record,
        TABLES,
        body=record,
    )
    assert rest.verdict == "ok", rest
    assert Component.objects.get().source_language.code == "cs"


def test_a_changed_code_in_the_retrieved_object_changes_the_language(
    mcp: MCPTestClient, core: Component
) -> None:
    """The read-only keys still show Czech; the code picks German, as over REST."""
    record = retrieved(mcp)
    record["source_language"] = {**record["source_language"], "code": "de"}
    rest, over = same(
        mcp, "PUT /api/components/core/", "components__update", record, TABLES
    )
    assert rest.verdict == "ok", rest
    assert over.body["source_language"]["code"] == "de"
    assert Component.objects.get().source_language.code == "de"


def test_a_component_is_created_with_a_retrieved_language(
    mcp: MCPTestClient, core: Component
) -> None:
    language = mcp.call_tool("languages__retrieve", {"code": "de"})["structuredContent"]
    arguments = {"slug": "docs", "name": "Docs", "source_language": language}
    rest, _ = same(
        mcp, "POST /api/components/", "components__create", arguments, TABLES
    )
    assert rest.verdict == "ok", rest


@pytest.mark.parametrize("key", ["nmae", MARKER])
def test_a_key_no_field_of_the_nested_serializer_has_is_refused(
    mcp: MCPTestClient, core: Component, key: str
) -> None:
    """REST drops it silently; the tool names it (when plain) and writes nothing."""
    record = retrieved(mcp)
    record["source_language"] = {**record["source_language"], "code": "de", key: "x"}
    over = over_mcp(mcp, "components__update", record, TABLES)
    assert over.verdict == "invalid"
    assert over.body["code"] == "invalid_argument", over.body
    (problem,) = over.body["fields"]
    assert problem["field"] == "source_language"
    assert problem["code"] == "unknown_key"
    # Read-only keys are taken, never offered.
    assert problem["message"].endswith("allowed keys: code, direction, name")
    assert ("nmae" in problem["message"]) == (key == "nmae")
    assert sent_nothing_of(over, MARKER)
    assert Component.objects.get().source_language.code == "cs"


def test_the_listing_marks_the_nested_read_only_keys(mcp: MCPTestClient) -> None:
    tools = {tool["name"]: tool for tool in mcp.list_tools()}
    properties = tools["components__update"]["inputSchema"]["properties"]
    nested = properties["source_language"]
    assert nested["additionalProperties"] is False
    assert list(nested["properties"]) == [
        "code",
        "name",
        "direction",
        "id",
        "aliases",
        "url",
    ]
    assert nested["properties"]["url"] == {"readOnly": True}
