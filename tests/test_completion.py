"""``completion/complete`` (ADR 0044), through the wire, in both eras.

Values come from the caller's own list view: its search, queryset,
permissions, throttles and paginator (tests/urls_completion.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from frisian_mcp import prompts
from frisian_mcp.contrib.testing import MCPError, MCPTestClient
from tests.callers import ERAS, SETTINGS, client_as, error
from tests.mounted import mounted
from tests.testapp.models import Book, Publisher

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _mounted(db: None) -> Iterator[None]:
    with mounted("tests.urls_completion", SETTINGS):
        yield


@pytest.fixture
def rows() -> dict[str, Publisher]:
    ada = Publisher.objects.create(name="Ada Press", country="GB", code="ADA")
    adage = Publisher.objects.create(name="Adage Books", country="US", code="ADG")
    other = Publisher.objects.create(name="Bolt", country="NL", code="BLT")
    hidden = Publisher.objects.create(name="Adamant", country="XX", code="XXA")
    for n, title in enumerate(("Engines", "Notes", "Enigmas")):
        Book.objects.create(title=title, isbn=f"97800000000{n}", publisher=ada)
    return {"ada": ada, "adage": adage, "other": other, "hidden": hidden}


def complete(
    mcp: MCPTestClient, uri: str, name: str, value: str, **known: str
) -> dict[str, Any]:
    params: dict[str, Any] = {
        "ref": {"type": "ref/resource", "uri": uri},
        "argument": {"name": name, "value": value},
    }
    if known:
        params["context"] = {"arguments": known}
    result: dict[str, Any] = mcp.request("completion/complete", params)["completion"]
    return result


def refused(mcp: MCPTestClient, params: dict[str, Any]) -> MCPError:
    return error(mcp, "completion/complete", params)


@pytest.mark.parametrize("era", ERAS)
def test_the_capability_is_declared_with_templates(era: str) -> None:
    mcp = MCPTestClient(protocol_version=era)
    if era == "2026-07-28":
        capabilities = mcp.request("server/discover")["capabilities"]
    else:
        capabilities = mcp.initialize()["capabilities"]
    assert capabilities["completions"] == {}


@pytest.mark.parametrize("era", ERAS)
def test_a_word_completes_to_the_ids_the_views_search_finds(
    era: str, rows: dict[str, Publisher]
) -> None:
    mcp = client_as("user", era)
    found = complete(mcp, "drf://publishers/{id}", "id", "ada")
    # The view's search (name icontains), in its own order (by name); the
    # row its queryset hides is not suggested.
    assert found == {
        "values": [str(rows["ada"].pk), str(rows["adage"].pk)],
        "total": 2,
        "hasMore": False,
    }
    # Staff's queryset shows the hidden row too.
    staff = complete(client_as("staff", era), "drf://publishers/{id}", "id", "ada")
    assert str(rows["hidden"].pk) in staff["values"]


def test_a_uri_of_the_template_names_it_too(rows: dict[str, Publisher]) -> None:
    mcp = client_as("user", "2025-11-25")
    found = complete(mcp, f"drf://PUBLISHERS/{rows['ada'].pk}", "id", "ada")
    assert found["values"] == [str(rows["ada"].pk), str(rows["adage"].pk)]


def test_an_empty_value_lists_the_first_page(rows: dict[str, Publisher]) -> None:
    found = complete(client_as("user", "2025-11-25"), "drf://publishers/{id}", "id", "")
    names = ["Ada Press", "Adage Books", "Bolt"]
    expected = [str(Publisher.objects.get(name=n).pk) for n in names]
    assert found == {"values": expected, "total": 3, "hasMore": False}


def test_without_a_search_the_page_is_matched_by_prefix(
    rows: dict[str, Publisher],
) -> None:
    found = complete(
        client_as("user", "2025-11-25"), "drf://coded/{code}", "code", "ad"
    )
    # Case-insensitive prefix of the lookup values; no total for a cut page.
    assert found == {"values": ["ADA", "ADG"], "hasMore": True}


def test_a_nested_variable_lists_under_the_earlier_one(
    rows: dict[str, Publisher],
) -> None:
    mcp = client_as("user", "2026-07-28")
    uri = "drf://publishers__books/{publisher_pk}/{isbn}"
    found = complete(mcp, uri, "isbn", "en", publisher_pk=str(rows["ada"].pk))
    assert found == {
        "values": ["978000000000", "978000000002"],
        "total": 2,
        "hasMore": False,
    }
    # The parent completes from the publishers' list, by its own lookup.
    parents = complete(mcp, uri, "publisher_pk", "bolt")
    assert parents["values"] == [str(rows["other"].pk)]
    # Another publisher's books are not this one's.
    none = complete(mcp, uri, "isbn", "en", publisher_pk=str(rows["other"].pk))
    assert none == {"values": [], "total": 0, "hasMore": False}


@pytest.mark.parametrize("era", ERAS)
def test_a_nested_variable_needs_the_earlier_value(
    era: str, rows: dict[str, Publisher]
) -> None:
    mcp = client_as("user", era)
    params = {
        "ref": {"type": "ref/resource", "uri": "drf://publishers__books/{a}/{b}"},
        "argument": {"name": "isbn", "value": "en"},
    }
    error = refused(mcp, params)
    assert error.code == -32602
    assert error.data == {"code": "invalid_argument", "arguments": ["publisher_pk"]}


def test_values_are_capped_at_one_hundred(db: None) -> None:
    Publisher.objects.bulk_create(
        Publisher(name=f"Press {n:03}", code=f"P{n:03}") for n in range(130)
    )
    found = complete(
        client_as("staff", "2025-11-25"), "drf://publishers/{id}", "id", "press"
    )
    assert len(found["values"]) == 100
    assert found["total"] == 130
    assert found["hasMore"] is True


@pytest.mark.parametrize("era", ERAS)
def test_a_hidden_template_is_an_unknown_one(
    era: str, rows: dict[str, Publisher]
) -> None:
    mcp = client_as("user", era)
    hidden = refused(
        mcp,
        {
            "ref": {"type": "ref/resource", "uri": "drf://staff/{id}"},
            "argument": {"name": "id", "value": "1"},
        },
    )
    unknown = refused(
        mcp,
        {
            "ref": {"type": "ref/resource", "uri": "drf://nothing/{id}"},
            "argument": {"name": "id", "value": "1"},
        },
    )
    assert (hidden.code, hidden.message, hidden.data) == (
        unknown.code,
        unknown.message,
        unknown.data,
    )
    assert hidden.code == -32602
    # Staff see it, and complete from it.
    staff = complete(client_as("staff", era), "drf://staff/{id}", "id", "")
    assert len(staff["values"]) == 4


def test_a_throttled_list_is_said_with_its_wait(rows: dict[str, Publisher]) -> None:
    error = refused(
        client_as("user", "2025-11-25"),
        {
            "ref": {"type": "ref/resource", "uri": "drf://throttled/{id}"},
            "argument": {"name": "id", "value": ""},
        },
    )
    assert error.code == -32602
    assert error.data["code"] == "throttled"


SECRET = "s3cr3t-value-\u2603"


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"ref": "drf://publishers/{id}", "argument": {"name": "id", "value": "a"}},
        {"ref": {"type": "ref/resource"}, "argument": {"name": "id", "value": "a"}},
        {"ref": {"type": "ref/resource", "uri": "drf://publishers/{id}"}},
        {
            "ref": {"type": "ref/resource", "uri": "drf://publishers/{id}"},
            "argument": {"name": "id", "value": 7},
        },
        {
            "ref": {"type": "ref/resource", "uri": "drf://publishers/{id}"},
            "argument": {"name": SECRET, "value": "a"},
        },
        {
            "ref": {"type": "ref/resource", "uri": f"https://{SECRET}/{{id}}"},
            "argument": {"name": "id", "value": "a"},
        },
        {
            "ref": {"type": "ref/resource", "uri": "drf://publishers/{id}"},
            "argument": {"name": "id", "value": "a"},
            "context": {"arguments": [SECRET]},
        },
        {
            "ref": {"type": "ref/tool", "name": SECRET},
            "argument": {"name": "id", "value": "a"},
        },
    ],
)
@pytest.mark.parametrize("era", ERAS)
def test_malformed_requests_are_invalid_params(
    era: str, params: dict[str, Any], rows: dict[str, Publisher]
) -> None:
    error = refused(client_as("user", era), params)
    assert error.code == -32602
    assert SECRET not in error.response.content.decode()


def test_without_templates_or_prompts_it_is_unknown(
    db: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The test apps declare prompts (tests/testapp, the demo): none here.
    monkeypatch.setattr(prompts, "_DECLARED", [])
    with mounted("tests.urls_completion_none", SETTINGS):
        mcp = MCPTestClient(protocol_version="2025-11-25")
        assert "completions" not in mcp.initialize()["capabilities"]
        with pytest.raises(MCPError) as info:
            mcp.request(
                "completion/complete",
                {
                    "ref": {"type": "ref/resource", "uri": "drf://x/{id}"},
                    "argument": {"name": "id", "value": ""},
                },
            )
    assert info.value.code == -32601


def prompt_ref(name: str, argument: str, value: str) -> dict[str, Any]:
    return {
        "ref": {"type": "ref/prompt", "name": name},
        "argument": {"name": argument, "value": value},
    }


@pytest.mark.parametrize("era", ERAS)
def test_prompt_arguments_complete_by_their_kind(era: str) -> None:
    mcp = client_as("user", era)

    def values(argument: str, value: str) -> dict[str, Any]:
        found: dict[str, Any] = mcp.request(
            "completion/complete", prompt_ref("describe_book", argument, value)
        )["completion"]
        return found

    # A choice: those that start with the value, case aside.
    assert values("tone", "B") == {"values": ["brief"], "total": 1, "hasMore": False}
    assert values("genre", "")["values"] == ["fiction", "science", "history"]
    # The prompt's own complete= callable.
    assert values("topic", "ap")["values"] == ["apple", "apricot"]
    # Any other argument: nothing to offer.
    assert values("title", "x") == {"values": [], "total": 0, "hasMore": False}


@pytest.mark.parametrize("era", ERAS)
def test_an_unknown_prompt_or_argument_is_invalid_params(era: str) -> None:
    mcp = client_as("user", era)
    for params in (
        prompt_ref("no_such_prompt", "tone", ""),
        prompt_ref("describe_book", "no_such_argument", ""),
        prompt_ref("staff_report", "anything", ""),  # hidden from non-staff
    ):
        error = refused(mcp, params)
        assert error.code == -32602
        assert "no_such" not in error.response.content.decode()
