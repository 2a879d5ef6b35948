"""Issue 18 item 2: no fragment of a caller's value in a host's message.

Each host pattern quotes only a part of what was sent: the flag name cut
from ``name:value``, the host of a URL, one term of JSON text, one word of
a query. The messages keep the host's words, the declared field and the
choices; the part of the value becomes ``<value>``. Run under DRF's own
handler and under drf-standardized-errors with ``DEBUG = False``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from django.conf import settings
from django.test import override_settings

from frisian_mcp.contrib.testing import MCPError, MCPTestClient, tool_error
from tests.testapp.models import Book, Publisher

pytestmark = pytest.mark.django_db

MARKER = "k7M3q9Wx"
STANDARDIZED = "drf_standardized_errors.handler.exception_handler"


@pytest.fixture(params=["drf", "standardized"])
def mcp(request: pytest.FixtureRequest) -> Iterator[MCPTestClient]:
    """A client of the quoting host, under DRF's handler or the library's."""
    handler = {"standardized": STANDARDIZED}.get(request.param)
    framework = {**settings.REST_FRAMEWORK}
    if handler:
        framework["EXCEPTION_HANDLER"] = handler
    with override_settings(
        ROOT_URLCONF="tests.hosts.quoting.urls", REST_FRAMEWORK=framework, DEBUG=False
    ):
        client = MCPTestClient()
        client.initialize()
        yield client


def refused(mcp: MCPTestClient, tool: str, arguments: dict[str, Any]) -> MCPError:
    """The -32602 error of a call the host refuses; no row is written."""
    with pytest.raises(MCPError) as info:
        mcp.call_tool(tool, arguments)
    body = info.value.response.content.decode()
    assert info.value.code == -32602
    assert not any(MARKER[i : i + 4].casefold() in body.casefold() for i in range(5))
    assert not Book.objects.exists()
    return info.value


def only_message(error: MCPError) -> tuple[str, str]:
    (entry,) = error.data["fields"]
    return entry["field"], entry["message"]


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        (f"SECRET-{MARKER}:1", 'Invalid translation flag: "<value>"'),
        (f"max-length:5, {MARKER}zz", 'Invalid translation flag: "<value>"'),
        (f"pre{MARKER}", 'Invalid translation flag: "<value>"'),
    ],
)
def test_a_flag_name_cut_from_the_value_is_redacted(
    mcp: MCPTestClient, flags: str, expected: str
) -> None:
    error = refused(
        mcp, "components__create", {"title": "T", "isbn": "1", "flags": flags}
    )
    assert only_message(error) == ("flags", expected)


@pytest.mark.parametrize(
    "repo",
    [
        f"https://{MARKER}.example/repo.git",
        f"https://git.{MARKER}.example:8443/repo.git",
        f"https://deploy@mirror-{MARKER}.example/repo.git",
    ],
)
def test_a_host_name_inside_a_url_is_redacted(mcp: MCPTestClient, repo: str) -> None:
    error = refused(
        mcp, "components__create", {"title": "T", "isbn": "1", "repo": repo}
    )
    assert only_message(error) == (
        "repo",
        "Fetching repositories from <value> is not allowed.",
    )


def test_one_term_of_json_text_is_redacted(mcp: MCPTestClient) -> None:
    rules = json.dumps({"checks": ["max-length", f"zz{MARKER}"]})
    error = refused(
        mcp, "components__create", {"title": "T", "isbn": "1", "rules": rules}
    )
    assert only_message(error) == ("rules", "Unknown check '<value>' in rules.")


def test_a_truncated_prefix_of_the_value_is_redacted(mcp: MCPTestClient) -> None:
    """The host's own "drafts" stays, though the caller's "Draft" goes
    (issue 25 item 13: values, not vocabulary)."""
    error = refused(
        mcp, "components__create", {"title": f"Draft {MARKER}", "isbn": "1"}
    )
    assert only_message(error) == (
        "title",
        "Titles such as '<value>…' are reserved for drafts.",
    )


def test_a_custom_field_query_term_is_redacted(mcp: MCPTestClient) -> None:
    query = ["AND", [["owner", "exact", 1], [f"cf_{MARKER}", "exact", "x"]]]
    error = refused(
        mcp, "documents__list", {"filters": {"custom_field_query": json.dumps(query)}}
    )
    field, message = only_message(error)
    assert field.startswith("filters.custom_field_query")
    assert message == "'<value>' is not a valid custom field."


def test_a_marker_inside_a_search_query_is_redacted(mcp: MCPTestClient) -> None:
    query = f"title:report x{MARKER}:draft"
    error = refused(mcp, "documents__list", {"filters": {"query": query}})
    assert only_message(error) == (
        "filters.query",
        "Unknown field '<value>' in query near '<value>'.",
    )


@override_settings(ROOT_URLCONF="tests.hosts.quoting.urls")
def test_a_comma_list_item_names_the_choices_not_the_item() -> None:
    # django-filter's documented BaseInFilter + ChoiceFilter: the schema
    # knows its choices, and the error lists them, not what was sent. (An
    # argument error: under drf-standardized-errors, issue 18 item 1.)
    mcp = MCPTestClient()
    mcp.initialize()
    error = refused(
        mcp, "documents__list", {"filters": {"genre__in": ["fiction", MARKER]}}
    )
    assert only_message(error) == (
        "filters.genre__in[1]",
        "must be one of: 'fiction', 'history', 'science'",
    )


def test_django_filter_quoting_one_item_of_a_list(mcp: MCPTestClient) -> None:
    # Django's ModelMultipleChoiceField quotes the item it cannot find
    # ("Select a valid choice. <item> is not one of the available choices.").
    Publisher.objects.create(name="Acme")
    names = ["Acme", f"pre-{MARKER}"]
    error = refused(mcp, "documents__list", {"filters": {"publishers": names}})
    assert only_message(error) == (
        "filters.publishers",
        "is not one of the allowed choices",
    )


def test_a_path_value_in_a_not_found_reason_is_redacted(mcp: MCPTestClient) -> None:
    result = mcp.call_tool("components__retrieve", {"id": f"77{MARKER}"})
    error = tool_error(result)
    assert error["code"] == "not_found"
    assert error["detail"] == "Component <value> does not exist."
    assert MARKER[:4] not in json.dumps(result)


def test_readable_words_of_the_schema_and_of_stock_messages_stay() -> None:
    # The call sent words that the host's message also uses: the declared
    # field, a choice and DRF's own wording are no fragment to hide.
    from frisian_mcp.redaction import Redactor

    redact = Redactor(
        {"title": "required title, fiction shelf 1000", "genre": "fiction"},
        {"properties": {"title": {"maxLength": 1000}, "genre": {"enum": ["fiction"]}}},
    )
    text = "Ensure title has no more than 1000 characters; fiction is required."
    assert redact(text) == text
    # "shelf" is the caller's own word; "1000x" no word the caller sent.
    assert redact("Shelf 1000x is full") == "<value> 1000x is full"
