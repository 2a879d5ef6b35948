"""The tool explorer through HTTP: who gets it, what it lists, what it escapes.

A browser's GET of the endpoint (``Accept`` preferring ``text/html``) gets
the page; MCP's own requests keep their answers. The page lists exactly the
tools ``tools/list`` gives the logged-in user and hides the rest behind the
same 404 as an unknown name. tests/test_explorer_browser.py drives the same
page in a real browser.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import Permission, User
from django.core.checks import run_checks
from django.test import Client, override_settings
from rest_framework.authtoken.models import Token

from frisian_mcp.contrib.explorer import catalog
from frisian_mcp.contrib.testing import MCPTestClient
from frisian_mcp.registry import reset_registry
from frisian_mcp.schema import SchemaBuilder
from tests.hosts.notebook.models import IMAGE, SCRIPT, Note, Notebook

pytestmark = pytest.mark.django_db

EXPLORER = "frisian_mcp.contrib.explorer.views.ExplorerView"
BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
NOTEBOOK = "tests.hosts.notebook.urls"
SESSION_AUTH = ["rest_framework.authentication.SessionAuthentication"]
ROOT = Path(__file__).resolve().parent.parent


def settings_with(**mcp: Any) -> Any:
    base = {"REQUIRE_AUTHENTICATION": True, "BROWSER_VIEW_CLASS": EXPLORER}
    return override_settings(FRISIAN_MCP={**base, **mcp})


@pytest.fixture
def notebook() -> Iterator[None]:
    """The notebook host, behind model permissions, with DRF's login view."""
    with override_settings(ROOT_URLCONF=NOTEBOOK), settings_with():
        reset_registry()
        yield
    reset_registry()


def person(*codenames: str, name: str = "person") -> Client:
    user = User.objects.create_user(name, password="pw")
    user.user_permissions.set(Permission.objects.filter(codename__in=codenames))
    client = Client()
    client.force_login(user)
    return client


def page(client: Client, query: str = "", accept: str = BROWSER) -> Any:
    return client.get(f"/mcp{query}", headers={"Accept": accept})


def listed(html: str) -> list[str]:
    return re.findall(r'<details id="([A-Za-z0-9_-]+)"', html)


def listed_by_mcp(client: Client) -> list[str]:
    mcp = MCPTestClient(client)
    mcp.initialize()
    return sorted(tool["name"] for tool in mcp.list_tools())


# -- where -------------------------------------------------------------------
@pytest.mark.parametrize(
    "accept",
    ["text/event-stream", "*/*", "application/json", "", "text/html;q=0.1, */*"],
)
def test_mcp_gets_still_get_405(accept: str) -> None:
    client = person()
    with settings_with():
        response = page(client, accept=accept) if accept else client.get("/mcp")
    assert response.status_code == 405
    assert response.json()["error"]["code"] == -32600


def test_a_browser_gets_the_page_and_posts_keep_their_answers() -> None:
    client = person()
    with settings_with(AUTHENTICATION_CLASSES=SESSION_AUTH):
        response = page(client)
        assert response.status_code == 200
        assert response["Content-Type"].startswith("text/html")
        assert MCPTestClient(client).initialize()["serverInfo"]["name"]


def test_the_setting_turns_the_page_off() -> None:
    with settings_with(BROWSER_VIEW_CLASS=None):
        response = page(person())
    assert response.status_code == 405


# -- who ---------------------------------------------------------------------
def test_anonymous_is_sent_to_login_url_and_learns_no_tool_name() -> None:
    with settings_with(), override_settings(LOGIN_URL="/mcp"):
        response = page(Client(), "?tool=contacts__create")
    assert response.status_code == 302
    assert response["Location"] == "/mcp?next=/mcp%3Ftool%3Dcontacts__create"
    assert b"contacts__" not in response.content


def test_anonymous_is_sent_to_drfs_login_where_login_url_leads_nowhere(
    notebook: None,
) -> None:
    response = page(Client())
    assert response.status_code == 302
    assert response["Location"] == "/api-auth/login/?next=/mcp"
    login = Client().get(response["Location"])
    assert login.status_code == 200
    assert b"notebook" not in login.content


def test_without_any_login_page_anonymous_gets_403_and_no_tool_name() -> None:
    with settings_with():
        response = page(Client())
    assert response.status_code == 403
    assert b"LOGIN_URL" in response.content
    assert b"__" not in response.content


def test_two_people_see_exactly_their_own_tools_list(notebook: None) -> None:
    reader = person("view_notebook", "view_note", name="reader")
    writer = person("view_note", "add_note", "delete_note", name="writer")
    for client in (reader, writer):
        assert sorted(listed(page(client).content.decode())) == listed_by_mcp(client)
    assert "notes__destroy" not in listed(page(reader).content.decode())
    assert "notes__destroy" in listed(page(writer).content.decode())
    assert "notebooks__create" not in listed(page(writer).content.decode())


def test_a_hidden_tool_is_as_unknown_as_a_missing_one(notebook: None) -> None:
    reader = person("view_note")
    hidden = page(reader, "?tool=notes__destroy&part=detail")
    missing = page(reader, "?tool=no_such_tool&part=detail")
    assert hidden.status_code == missing.status_code == 404
    assert hidden.content == missing.content
    assert page(reader, "?tool=notes__destroy").status_code == 404


# -- what --------------------------------------------------------------------
def test_tools_are_grouped_by_resource_with_badges(notebook: None) -> None:
    html = page(person("view_note", "delete_note")).content.decode()
    notes = html.index('<h2 id="group-2">notes</h2>')
    assert html.index('id="notes__list"') > notes
    destroy = html[html.index('id="notes__destroy"') :]
    assert destroy.index('class="badge destructive"') < destroy.index("</summary>")
    listing = html[html.index('id="notes__list"') :]
    assert listing.index("badge read-only") < listing.index("</summary>")


def test_search_without_script_filters_by_name_title_and_description(
    notebook: None,
) -> None:
    client = person("add_note", "add_notebook")
    assert set(listed(page(client, "?q=create").content.decode())) == {
        "notebooks__create",
        "notes__create",
    }
    assert set(listed(page(client, "?q=each+in+a+notebook").content.decode())) == {
        "notes__create",
        "notes__list",
        "notes__retrieve",
    }
    assert b"No tool matches" in page(client, "?q=zebra").content


def test_a_tools_details_form_example_and_schemas(notebook: None) -> None:
    detail = page(person("add_note"), "?tool=notes__create&part=detail")
    html = detail.content.decode()
    assert detail.status_code == 200
    assert 'data-call="notes__create"' in html
    assert '<fieldset class="field ref" data-kind="ref" data-name="notebook"' in html
    assert 'for="notes__create--title">title <span class="req">required' in html
    assert '<option value="&quot;todo&quot;">todo — To do</option>' in html
    assert "Validate</button>" in html
    example = re.search(
        r"Example call \(JSON-RPC\)</summary><pre>(.*?)</pre>", html, re.S
    )
    assert example is not None
    call = json.loads(example.group(1).replace("&quot;", '"'))
    assert call["method"] == "tools/call"
    assert call["params"]["name"] == "notes__create"
    assert "Output schema" in html


def test_a_read_tool_has_run_only(notebook: None) -> None:
    html = page(person("view_note"), "?tool=notes__list&part=detail").content.decode()
    assert "Validate</button>" not in html
    assert "Run</button>" in html
    assert " data-paged" in html


def test_the_page_opens_one_tool_without_script(notebook: None) -> None:
    html = page(person("add_note"), "?tool=notes__create").content.decode()
    assert '<details id="notes__create" open>' in html
    assert 'class="detail" data-tool="notes__create"' in html


def test_client_setup_names_the_server_and_holds_no_secret() -> None:
    client = person()
    token = Token.objects.create(user=User.objects.get(username="person")).key
    with settings_with(
        AUTHENTICATION_CLASSES=[
            "rest_framework.authentication.TokenAuthentication",
            *SESSION_AUTH,
        ]
    ):
        html = page(client).content.decode()
    assert "claude mcp add --transport http frisian-mcp http://testserver/mcp" in html
    assert "Authorization: Token &lt;YOUR_TOKEN&gt;" in html
    assert "npx @modelcontextprotocol/inspector" in html
    assert "streamable_http_client" in html
    assert "curl -s http://testserver/mcp" in html
    assert token not in html
    assert client.cookies["sessionid"].value not in html


# -- safety ------------------------------------------------------------------
def test_every_host_string_is_escaped(notebook: None) -> None:
    client = person("add_note", "view_note", "view_notebook", "add_notebook")
    html = page(client, "?tool=notes__create").content.decode()
    html += page(client, "?tool=notebooks__create&part=detail").content.decode()
    html += page(client, "?q=hover").content.decode()
    for markup in (SCRIPT, IMAGE, "<b onmouseover"):
        assert markup not in html
    assert "&lt;script&gt;window.__pwned = &#x27;help_text&#x27;&lt;/script&gt;" in html
    assert "&lt;img src=x onerror=" in html
    assert "&lt;b onmouseover=" in html
    assert "<script" not in html.replace('<script src="/static/', "")


def test_the_page_sets_a_strict_csp_and_refuses_frames() -> None:
    with settings_with():
        for response in (page(person()), page(Client(), "?tool=x")):
            csp = response["Content-Security-Policy"]
            assert "script-src 'self';" in csp
            assert "unsafe-inline" not in csp
            assert "frame-ancestors 'none'" in csp
            assert response["X-Frame-Options"] == "DENY"
            assert response["Cache-Control"] == "no-store"


class _Markup(HTMLParser):
    """Inline scripts, event handler attributes and inline styles found."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = dict(attrs)
        if (tag == "script" and "src" not in names) or tag == "style":
            self.found.append(tag)
        self.found += [n for n in names if n.startswith("on") or n == "style"]


def test_the_page_has_no_inline_script_handler_or_style(notebook: None) -> None:
    client = person("add_note", "view_note", "view_notebook")
    for query in ("?tool=notes__create", "?tool=notebooks__list"):
        parser = _Markup()
        parser.feed(page(client, query).content.decode())
        assert parser.found == []


def test_the_page_carries_the_csrf_token_for_its_calls() -> None:
    with settings_with():
        response = page(person())
    token = re.search(r'data-csrf-token="([^"]+)"', response.content.decode())
    assert token is not None
    assert 'data-csrf-header="X-CSRFTOKEN"' in response.content.decode()
    assert "csrftoken" in response.cookies


def test_a_call_from_the_page_runs_as_the_person_and_writes(notebook: None) -> None:
    client = Client(enforce_csrf_checks=True)
    user = User.objects.create_user("writer", password="pw")
    user.user_permissions.set(Permission.objects.filter(codename="add_note"))
    client.force_login(user)
    html = page(client).content.decode()
    token = re.search(r'data-csrf-token="([^"]+)"', html)
    assert token is not None
    book = Notebook.objects.create(name="n")
    mcp = MCPTestClient(client, headers={"X-CSRFToken": token.group(1)})
    mcp.initialize()
    result = mcp.call_tool("notes__create", {"notebook": book.pk, "title": "t"})
    assert result["structuredContent"]["title"] == "t"
    assert Note.objects.get().title == "t"


# -- layouts and scale ---------------------------------------------------------
def test_the_dispatcher_layout_groups_by_dispatcher_and_calls_through_it(
    notebook: None,
) -> None:
    client = person("add_note", "view_note")
    with settings_with(TOOL_LAYOUT="dispatcher"):
        reset_registry()
        html = page(client).content.decode()
        detail = page(client, "?tool=notes__create&part=detail").content.decode()
    assert '<h2 id="group-2">notebook: notes</h2>' in html
    assert 'data-call="notebook"' in detail
    assert 'data-route="{&quot;resource&quot;: &quot;notes&quot;, ' in detail
    assert "&quot;action&quot;: &quot;create&quot;" in detail


def test_a_thousand_tools_list_without_building_a_schema(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def build(*args: Any) -> None:
        raise AssertionError("the page built a schema")

    monkeypatch.setattr(SchemaBuilder, "build", build)
    client = person()
    with (
        override_settings(ROOT_URLCONF="tests.urls_scale"),
        settings_with(TOOL_LAYOUT="flat"),
    ):
        reset_registry()
        response = page(client)
    assert response.status_code == 200
    assert len(listed(response.content.decode())) == 1812 > catalog.DESCRIBED_UP_TO


# -- checks and budgets --------------------------------------------------------
def test_the_explorer_off_but_installed_is_no_warning() -> None:
    with settings_with(BROWSER_VIEW_CLASS=None):
        assert [m.id for m in run_checks() if "frisian_mcp" in (m.id or "")] == []


def test_checks_w010_the_endpoint_takes_no_sessions() -> None:
    with settings_with(
        AUTHENTICATION_CLASSES=["rest_framework.authentication.TokenAuthentication"]
    ):
        assert "frisian_mcp.W010" in [m.id for m in run_checks()]
    with settings_with(AUTHENTICATION_CLASSES=SESSION_AUTH):
        assert "frisian_mcp.W010" not in [m.id for m in run_checks()]


def test_checks_e011_the_browser_view_must_be_a_view() -> None:
    with settings_with(BROWSER_VIEW_CLASS="collections.OrderedDict"):
        assert "frisian_mcp.E011" in [m.id for m in run_checks()]


def test_the_explorer_stays_within_its_budget_and_the_core_imports_no_contrib() -> None:
    explorer = ROOT / "frisian_mcp" / "contrib" / "explorer"
    lines = sum(len(p.read_text().splitlines()) for p in explorer.rglob("*.py"))
    assert lines <= 700
    core = [
        p
        for p in (ROOT / "frisian_mcp").rglob("*.py")
        if "contrib" not in p.relative_to(ROOT / "frisian_mcp").parts
    ]
    for path in core:
        for node in ast.walk(ast.parse(path.read_text())):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            assert not any(n.startswith("frisian_mcp.contrib") for n in names), path
