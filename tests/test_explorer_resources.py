"""The explorer's resources page through HTTP: who sees what, and Read.

``?resources`` lists the resources the caller's ``resources/list`` gives
(routes without variables: a Read button alone), then the templates its
``resources/templates/list`` gives, each with a form of its variables. Its
Read is the script's ``resources/read`` POST to the endpoint, with the
session and its CSRF token, so the page reads exactly what MCP reads.
tests/test_explorer_browser.py reads one in a real browser.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from django.test import Client

from frisian_mcp.contrib.testing import MCPTestClient
from tests import explorer_pages
from tests.explorer_pages import details, locked_down, person
from tests.mounted import mounted
from tests.test_explorer import EXPLORER, listed, notebook, page
from tests.test_explorer import person as permitted
from tests.testapp.models import Publisher

__all__ = ["notebook"]

pytestmark = pytest.mark.django_db

RESOURCES = "tests.urls_resources"
NOT_FOUND = -32002
EVERYONES = ["coded", "dutch", "guarded", "houses__books", "throttled"]
#: The routes without variables (resources/list), listed first.
WITHOUT_VARIABLES = ["first", "me"]


@pytest.fixture
def publishers() -> Iterator[dict[str, Publisher]]:
    """tests/urls_resources.py's read-only publishers, behind a login."""
    settings = {"REQUIRE_AUTHENTICATION": True, "BROWSER_VIEW_CLASS": EXPLORER}
    with mounted(RESOURCES, {**settings, "TOOL_LAYOUT": "flat"}):
        yield {
            "dutch": Publisher.objects.create(name="Dutch", country="NL", code="NL"),
            "german": Publisher.objects.create(name="German", country="DE", code="DE"),
        }


def templates(html: str) -> list[str]:
    return re.findall(r'<details id="resource-([A-Za-z0-9_-]+)"', html)


def templates_by_mcp(client: Client) -> list[str]:
    """The names resources/list gives, then those resources/templates/list
    gives."""
    mcp = MCPTestClient(client)
    mcp.initialize()
    found = mcp.request("resources/list")["resources"]
    found += mcp.request("resources/templates/list")["resourceTemplates"]
    return [entry["name"] for entry in found]


def from_the_page(client: Client) -> MCPTestClient:
    """The person's requests as the page's script sends them: the session,
    and the CSRF token the page carries (checks enforced)."""
    return explorer_pages.from_the_page(client, "?resources")


def read_body(uri: str) -> dict[str, Any]:
    """What explorer.js POSTs for Read."""
    return {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "resources/read",
        "params": {"uri": uri},
    }


# -- what it lists -------------------------------------------------------------
def test_each_person_sees_exactly_their_own_templates(
    publishers: dict[str, Publisher],
) -> None:
    user, staff = person(), person("boss", staff=True)
    for client in (user, staff):
        html = page(client, "?resources").content.decode()
        assert templates(html) == templates_by_mcp(client)
    everyones = [*WITHOUT_VARIABLES, *EVERYONES]
    assert templates(page(user, "?resources").content.decode()) == everyones
    assert "staff" in templates(page(staff, "?resources").content.decode())


def test_a_template_has_a_form_of_its_variables_and_read(
    publishers: dict[str, Publisher],
) -> None:
    html = page(person(), "?resources").content.decode()
    books = details(html, "resource-houses__books")
    assert 'data-uri-template="drf://houses__books/{publisher}/{isbn}"' in books
    assert '<label for="resource-houses__books--publisher">publisher <span' in books
    assert 'data-variable="isbn" list="resource-houses__books--isbn-values"' in books
    assert '<button type="submit" class="read">Read</button>' in books
    assert 'aria-current="page">Resources</a>' in html
    everyones = [*WITHOUT_VARIABLES, *EVERYONES]
    assert listed(html) == [f"resource-{key}" for key in everyones]  # no tool


def test_a_resource_without_variables_is_one_read_button(
    publishers: dict[str, Publisher],
) -> None:
    html = page(person(), "?resources").content.decode()
    me = details(html, "resource-me")
    assert '<code class="name">drf://me</code>' in me
    assert 'data-uri-template="drf://me"' in me
    assert "<input" not in me
    assert "No variables: this is one resource" in me
    assert '<button type="submit" class="read">Read</button>' in me


def test_the_tools_page_links_the_resources_page(notebook: None) -> None:
    html = page(permitted("view_note")).content.decode()
    assert '<a href="/mcp?resources">Resources</a>' in html
    assert '<a href="/mcp" aria-current="page">Tools</a>' in html


# -- Read ----------------------------------------------------------------------
def test_read_from_the_page_returns_the_record_as_json(
    publishers: dict[str, Publisher],
) -> None:
    mcp = from_the_page(person(csrf=True))
    uri = f"drf://dutch/{publishers['dutch'].pk}"
    [content] = mcp.request("resources/read", {"uri": uri})["contents"]
    assert content["mimeType"] == "application/json"
    assert json.loads(content["text"])["name"] == "Dutch"


def test_read_without_variables_from_the_page_returns_the_persons_own(
    publishers: dict[str, Publisher],
) -> None:
    found = {}
    for name in ("user", "boss"):
        mcp = from_the_page(person(name, staff=name == "boss", csrf=True))
        [content] = mcp.request("resources/read", {"uri": "drf://me"})["contents"]
        found[name] = (content["uri"], json.loads(content["text"]))
    assert found == {
        "user": ("drf://me", {"username": "user", "is_staff": False}),
        "boss": ("drf://me", {"username": "boss", "is_staff": True}),
    }
    tokenless = from_the_page(person("other", csrf=True))
    tokenless.headers.clear()
    response = tokenless.post(read_body("drf://me"))
    assert response.status_code == 403
    assert json.loads(response.content)["error"]["code"] == -32600
    assert b"other" not in response.content


def test_a_hidden_or_missing_record_reads_as_not_found(
    publishers: dict[str, Publisher],
) -> None:
    mcp = from_the_page(person(csrf=True))
    dutch, german = publishers["dutch"].pk, publishers["german"].pk
    uris = [
        f"drf://staff/{dutch}",  # a template hidden from this person
        f"drf://dutch/{german}",  # a row its queryset hides
        "drf://dutch/999999",
        "drf://nothing/1",
    ]
    errors = []
    for uri in uris:
        response = mcp.post(read_body(uri))
        assert uri not in response.content.decode()
        errors.append(json.loads(response.content)["error"])
    assert errors[0]["code"] == NOT_FOUND
    assert all(error == errors[0] for error in errors)


def test_read_without_the_csrf_token_is_refused(
    publishers: dict[str, Publisher],
) -> None:
    mcp = from_the_page(person(csrf=True))
    mcp.headers.clear()
    uri = f"drf://dutch/{publishers['dutch'].pk}"
    refused = mcp.post(read_body(uri))
    assert refused.status_code == 403
    assert json.loads(refused.content)["error"]["code"] == -32600
    assert b"Dutch" not in refused.content
    assert (
        b"Dutch"
        in from_the_page(person("other", csrf=True)).post(read_body(uri)).content
    )


def test_the_variables_complete_from_the_callers_own_rows(
    publishers: dict[str, Publisher],
) -> None:
    mcp = from_the_page(person(csrf=True))
    params = {  # what explorer.js sends as a variable is typed
        "ref": {"type": "ref/resource", "uri": "drf://dutch/{id}"},
        "argument": {"name": "id", "value": ""},
        "context": {"arguments": {}},
    }
    values = mcp.request("completion/complete", params)["completion"]["values"]
    assert values == [str(publishers["dutch"].pk)]  # the German row is hidden


# -- safety --------------------------------------------------------------------
def test_the_resources_page_keeps_the_csp_and_escapes(notebook: None) -> None:
    response = page(permitted("view_note"), "?resources&q=%3Cb%3Ex")
    html = locked_down(response)
    assert "<b onmouseover" not in html
    assert "&lt;b onmouseover=" in html  # the notebooks viewset's docstring
    assert "<b>x" not in html


def test_anonymous_learns_no_resource(notebook: None) -> None:
    response = page(Client(), "?resources")
    assert response.status_code == 302
    assert b"drf://" not in response.content
