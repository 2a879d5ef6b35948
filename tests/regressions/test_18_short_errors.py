"""Issue 18 item 16 and issue 22 item 5: errors that list names stay short.

An error that lists choices or names says how many there are and names a
few (``LIST_LIMIT``, 20), closest first where a key was mistyped; ``help``
lists them all. Measured on the quoting host: a list of 300 filters, an
enum of 2,000 choices, a body of 40 fields, 70,000 unknown keys in one call.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import override_settings

from demo_project.contacts.models import Contact
from frisian_mcp.contrib.testing import MCPError, MCPTestClient
from frisian_mcp.exceptions import LIST_LIMIT
from tests.testapp.models import Book

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.usefixtures("quoting_host"),
]

#: The most a refusal that lists names may take, in bytes of the reply.
REPLY_LIMIT = 3_000


@pytest.fixture
def quoting_host() -> Any:
    with override_settings(ROOT_URLCONF="tests.hosts.quoting.urls"):
        yield


def refusal(tool: str, arguments: dict[str, Any]) -> tuple[MCPError, int]:
    """The -32602 error of a call, and the size of the whole reply."""
    mcp = MCPTestClient()
    mcp.initialize()
    with pytest.raises(MCPError) as info:
        mcp.call_tool(tool, arguments)
    assert info.value.code == -32602
    return info.value, len(info.value.response.content)


def test_an_unknown_filter_key_among_300_filters() -> None:
    error, size = refusal("platform__list", {"filters": {"atribute_101": "x"}})
    assert size < REPLY_LIMIT
    (entry,) = error.data["fields"]
    assert (entry["field"], entry["code"]) == ("filters", "unknown_key")
    message = entry["message"]
    assert message.startswith("has keys that are not allowed: atribute_101;")
    # The closest keys first, then how many there are in all.
    assert "; allowed keys (302): attribute_101, " in message
    assert message.endswith(f" and {302 - LIST_LIMIT} more")
    mcp = MCPTestClient()
    mcp.initialize()
    documented = mcp.call_tool("platform__list", {"help": True})
    assert len(documented["structuredContent"]["help"]["filters"]) == 302


def test_70000_unknown_filter_keys() -> None:
    keys = {f"n{n}": 1 for n in range(70_000)}
    error, size = refusal("platform__list", {"filters": keys})
    assert size < REPLY_LIMIT
    (entry,) = error.data["fields"]
    assert "n0, n1, n10, n100, " in entry["message"]
    assert f" and {70_000 - LIST_LIMIT} more; allowed keys (302): " in entry["message"]


def test_an_enum_of_2000_choices() -> None:
    error, size = refusal(
        "components__create", {"title": "T", "isbn": "1", "shelf_mark": "nope"}
    )
    assert size < REPLY_LIMIT
    (entry,) = error.data["fields"]
    assert entry["field"] == "shelf_mark"
    assert entry["message"] == (
        "must be one of 2000 choices: "
        + ", ".join(f"'mark-{n:04d}'" for n in range(LIST_LIMIT))
        + f" and {2000 - LIST_LIMIT} more (help lists all)"
    )
    assert not Book.objects.exists()


def test_70000_unknown_arguments_in_one_call() -> None:
    # Issue 22 item 5: the reply was 7.7 MB.
    arguments: dict[str, Any] = {"email": "ada@example.com"}
    arguments.update((f"k{n}", 1) for n in range(70_000))
    error, size = refusal("contacts__create", arguments)
    assert size < REPLY_LIMIT
    assert error.data["code"] == "unknown_argument"
    assert len(error.data["fields"]) == LIST_LIMIT
    assert error.message.startswith("Unknown arguments 'k0', 'k1', 'k2', ")
    assert f"'k19' and {70_000 - LIST_LIMIT} more for contacts__create." in (
        error.message
    )
    assert not Contact.objects.exists()


def test_a_body_of_40_fields_is_named_in_part_and_counted() -> None:
    names = [f"field_{n:02d}" for n in range(40)]
    error, size = refusal("wide__create", {})
    assert size < REPLY_LIMIT
    assert error.data["code"] == "empty_write"
    assert ", ".join(names[:LIST_LIMIT]) + " and 20 more." in error.message
    assert error.data["declared_fields"] == names[:LIST_LIMIT]
    assert error.data["declared_count"] == 40
    wrapped, _ = refusal("wide__create", {"data": {"field_01": "x"}})
    assert wrapped.data["code"] == "nested_wrapper"
    assert wrapped.data["declared_count"] == 40
    assert "Fields of wide__create: field_00, " in wrapped.message
    typo, _ = refusal("wide__create", {"fild_05": "x"})
    assert typo.data["suggestions"] == {"fild_05": "field_05"}


def test_short_lists_are_named_whole() -> None:
    error, _ = refusal("contacts__create", {"emial": "ada@example.com"})
    assert error.message == (
        "Unknown argument 'emial' for contacts__create. Did you mean 'email'? "
        "Arguments of contacts__create: email, first_name, help, last_name, "
        "mode, notes, phone."
    )
    assert "declared_count" not in error.data
    assert json.dumps(error.data["declared_fields"]) == json.dumps(
        ["email", "first_name", "last_name", "notes", "phone"]
    )
