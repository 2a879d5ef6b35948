"""The explorer's prompts page through HTTP: who sees what, and Get.

``?prompts`` lists the prompts ``prompts.visible()`` gives the logged-in
person, the function ``prompts/list`` uses, each with a form of its
arguments. Its Get is the script's ``prompts/get`` POST to the endpoint,
with the session and its CSRF token. The prompts are the test app's
(tests/testapp/mcp_prompts.py) and the demo's.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.test import Client

from frisian_mcp import prompts
from frisian_mcp.contrib.testing import MCPTestClient
from tests import explorer_pages
from tests.explorer_pages import details, locked_down, person
from tests.test_explorer import page, settings_with

pytestmark = pytest.mark.django_db


def shown(client: Client) -> list[str]:
    html = page(client, "?prompts").content.decode()
    return re.findall(r'<details id="prompt-([A-Za-z0-9_-]+)"', html)


def listed_by_mcp(client: Client) -> list[str]:
    mcp = MCPTestClient(client)
    mcp.initialize()
    return [entry["name"] for entry in mcp.request("prompts/list")["prompts"]]


def from_the_page(client: Client) -> MCPTestClient:
    """Requests as the page's script sends them, with the page's CSRF token."""
    return explorer_pages.from_the_page(client, "?prompts")


def get_body(name: str, arguments: dict[str, str]) -> dict[str, Any]:
    """What explorer.js POSTs for Get."""
    params = {"name": name, "arguments": arguments}
    return {"jsonrpc": "2.0", "id": 1, "method": "prompts/get", "params": params}


# -- what it lists -------------------------------------------------------------
def test_each_person_sees_exactly_their_own_prompts() -> None:
    user, staff = person(), person("boss", staff=True)
    with settings_with():
        for client in (user, staff):
            assert shown(client) == listed_by_mcp(client)
        assert "staff_report" not in shown(user)
        assert "staff_report" in shown(staff)
        assert "describe_book" in shown(user)


def test_a_prompt_has_a_form_of_its_arguments_and_get() -> None:
    with settings_with():
        html = page(person(), "?prompts").content.decode()
    book = details(html, "prompt-describe_book")
    assert 'data-prompt="describe_book"' in book
    assert '<label for="prompt-describe_book--title">title <span class="req">' in book
    assert 'data-argument="title" list="prompt-describe_book--title-values"' in book
    assert '<label for="prompt-describe_book--copies">copies</label>' in book
    tone = book[book.index('id="prompt-describe_book--tone"') :]
    assert tone.index("<option>brief</option><option>full</option>") < tone.index(
        "</select>"
    )
    assert "The book&#x27;s title · " in book
    assert '<button type="submit" class="read">Get</button>' in book
    assert 'aria-current="page">Prompts</a>' in html


def test_the_nav_offers_prompts_only_where_some_are_declared(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    client = person()
    with settings_with():
        assert '<a href="/mcp?prompts">Prompts</a>' in page(client).content.decode()
        monkeypatch.setattr(prompts, "_DECLARED", [])
        assert "?prompts" not in page(client).content.decode()
        assert (
            "You may get no prompt here." in page(client, "?prompts").content.decode()
        )


# -- Get -----------------------------------------------------------------------
def test_get_from_the_page_returns_the_messages() -> None:
    with settings_with():
        mcp = from_the_page(person(csrf=True))
        body = get_body("describe_book", {"title": "Kaas", "tone": "full"})
        reply = json.loads(mcp.post(body).content)["result"]
    assert reply["messages"][0]["role"] == "user"
    assert reply["messages"][0]["content"]["text"].startswith("Kaas | 1 | False")


def test_an_argument_completes_as_typed() -> None:
    with settings_with():
        mcp = from_the_page(person(csrf=True))
        params = {  # what explorer.js sends as an argument is typed
            "ref": {"type": "ref/prompt", "name": "describe_book"},
            "argument": {"name": "topic", "value": "ap"},
            "context": {"arguments": {"title": "Kaas"}},
        }
        found = mcp.request("completion/complete", params)["completion"]
    assert found["values"] == ["apple", "apricot"]


def test_a_hidden_prompt_gets_the_answer_of_an_unknown_one() -> None:
    with settings_with():
        mcp = from_the_page(person(csrf=True))
        hidden = json.loads(mcp.post(get_body("staff_report", {})).content)["error"]
        unknown = json.loads(mcp.post(get_body("no_such_prompt", {})).content)["error"]
    assert hidden["code"] == unknown["code"] == -32602
    assert hidden["data"]["code"] == unknown["data"]["code"] == "unknown_prompt"
    assert "staff_report" not in str(hidden)


def test_a_bad_argument_is_named_and_its_value_not_echoed() -> None:
    with settings_with():
        mcp = from_the_page(person(csrf=True))
        body = get_body("describe_book", {"title": "t", "copies": "<b>many</b>"})
        response = mcp.post(body)
    error = json.loads(response.content)["error"]
    assert error["data"]["argument"] == "copies"  # the script marks its field
    assert b"many" not in response.content


def test_get_without_the_csrf_token_is_refused() -> None:
    with settings_with():
        mcp = from_the_page(person(csrf=True))
        token = mcp.headers.pop("X-CSRFToken")
        refused = mcp.post(get_body("describe_book", {"title": "Kaas"}))
        mcp.headers["X-CSRFToken"] = token
        accepted = mcp.post(get_body("describe_book", {"title": "Kaas"}))
    assert refused.status_code == 403
    assert json.loads(refused.content)["error"]["code"] == -32600
    assert b"Kaas" not in refused.content
    assert b"Kaas" in accepted.content


# -- safety --------------------------------------------------------------------
def test_the_prompts_page_keeps_the_csp_and_echoes_nothing() -> None:
    with settings_with():
        response = page(person(), "?prompts&q=%3Cb%3Ex")
        anonymous = page(Client(), "?prompts")
    html = locked_down(response)
    assert "<b>x" not in html
    assert anonymous.status_code == 403
    assert b"describe_book" not in anonymous.content
