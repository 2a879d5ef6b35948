"""Issue 25 item 13: argument errors that suggest and describe too much.

On a translation platform, ``language_code`` sent to a project's create was
answered "did you mean 'language_code_style'?": a key of another concept,
only longer. A "did you mean" is now a plausible typo (one edit per five
characters). And a filter's long markdown description came back twice in
one error, once in the field's entry and once in the message; now an
error names the forms by type, and the choices, 20 at most.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from django.test import override_settings

from frisian_mcp.contrib.testing import MCPError, MCPTestClient
from tests.hosts.platform.models import Project
from tests.hosts.platform.views import STYLE_HELP

pytestmark = pytest.mark.django_db


@pytest.fixture
def mcp() -> Iterator[MCPTestClient]:
    with override_settings(ROOT_URLCONF="tests.hosts.platform.urls", DEBUG=False):
        client = MCPTestClient()
        client.initialize()
        yield client


def refused(mcp: MCPTestClient, tool: str, arguments: dict[str, Any]) -> MCPError:
    with pytest.raises(MCPError) as info:
        mcp.call_tool(tool, arguments)
    assert info.value.code == -32602
    assert not Project.objects.exists()
    return info.value


def test_a_key_of_another_concept_gets_no_suggestion(mcp: MCPTestClient) -> None:
    error = refused(mcp, "projects__create", {"slug": "web", "language_code": "nl"})
    assert error.data["code"] == "unknown_argument"
    assert error.data["suggestions"] == {}
    (entry,) = error.data["fields"]
    assert entry == {
        "field": "language_code",
        "code": "unknown_argument",
        "message": "is not a declared argument",
    }
    assert "language_code_style" not in error.message.partition(" Arguments of")[0]


@pytest.mark.parametrize(
    "typo", ["language_code_stlye", "langauge_code_style", "Language_Code_Style"]
)
def test_a_typo_still_gets_its_suggestion(mcp: MCPTestClient, typo: str) -> None:
    error = refused(mcp, "projects__create", {"slug": "web", typo: "style_01"})
    assert error.data["suggestions"] == {typo: "language_code_style"}
    assert "Did you mean 'language_code_style'?" in error.message


@pytest.mark.parametrize("value", ["style_99", ["style_01", "style_99"], 5])
def test_a_filters_description_stays_out_of_its_error(
    mcp: MCPTestClient, value: Any
) -> None:
    error = refused(mcp, "projects__list", {"filters": {"language_code_style": value}})
    body = error.response.content.decode()
    assert "style guide" in STYLE_HELP
    assert "style guide" not in body
    assert len(body) < 1200, len(body)
    (entry,) = error.data["fields"]
    if isinstance(value, int):
        assert (
            entry["message"] == "does not match any accepted form (a string or a list)"
        )
    else:
        assert entry["code"] == "invalid_choice"
        assert entry["message"].startswith("must be one of 30 choices: 'style_00'")
        assert entry["message"].endswith("and 10 more (help lists all)")
        assert json.dumps("style_20") not in body
