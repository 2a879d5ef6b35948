"""The explorer in a real browser, on the demo served by gunicorn (issue 20).

A person opens the demo's ``/mcp``, logs in (``demo``/``demo``, or
``staff``), finds a tool, validates, runs. What a call wrote is read back
through the demo's REST API, never from the page. Screenshots of the main
states go to tests/artifacts/explorer/ (tests/browser.py).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import (
    Browser,
    BrowserContext,
    Page,
    Route,
    ViewportSize,
    expect,
)

from demo_project.management.commands.seed_demo import STAFF_TOKEN
from tests.browser import chromium, screenshot, watch
from tests.live import demo_database, serve

pytestmark = [pytest.mark.browser, pytest.mark.live]

WIDE: ViewportSize = {"width": 1280, "height": 900}
PHONE: ViewportSize = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The demo, migrated and seeded, under gunicorn; its base URL."""
    tmp = tmp_path_factory.mktemp("explorer")
    with demo_database(tmp, "explorer") as env, serve(env, tmp / "server.log") as base:
        yield base


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as browser:
        yield browser


@pytest.fixture
def context(browser: Browser) -> Iterator[BrowserContext]:
    context = browser.new_context(viewport=WIDE)
    yield context
    context.close()


def rest(demo: str, method: str, path: str, **kwargs: Any) -> httpx.Response:
    """The demo's REST API, as the staff user (who may see every row)."""
    headers = {"Authorization": f"Token {STAFF_TOKEN}"}
    return httpx.request(method, f"{demo}/api/{path}", headers=headers, **kwargs)


def log_in(context: BrowserContext, demo: str, user: str) -> Page:
    """Open /mcp, land on the login page, log in; the explorer's page."""
    page = context.new_page()
    page.goto(f"{demo}/mcp")
    page.fill("#id_username", user)
    page.fill("#id_password", user)
    page.click("#login-form button[type=submit]")
    page.wait_for_url(f"{demo}/mcp")
    return page


def open_tool(page: Page, name: str) -> Any:
    """Open ``name`` by its fragment; its loaded details."""
    page.goto(page.url.split("#")[0] + f"#{name}")
    detail = page.locator(f"details#{name} .detail")
    expect(detail).to_be_visible()
    return detail


def contacts(demo: str, email: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = rest(demo, "GET", f"contacts/?search={email}").json()[
        "results"
    ]
    return [row for row in found if row["email"] == email]


def test_anonymous_lands_on_login_and_learns_no_tool(
    demo: str, context: BrowserContext
) -> None:
    page = context.new_page()
    page.goto(f"{demo}/mcp")
    assert page.url == f"{demo}/oauth/login/?next=/mcp"
    assert "__" not in page.content()
    screenshot(page, "01-login")


def test_two_users_see_their_own_tools(demo: str, browser: Browser) -> None:
    seen = {}
    for user in ("demo", "staff"):
        context = browser.new_context(viewport=WIDE)
        page = log_in(context, demo, user)
        errors = watch(page)
        seen[user] = set(
            page.locator("li.tool > details").evaluate_all("e => e.map(d => d.id)")
        )
        screenshot(page, f"02-list-{user}")
        assert errors == []
        context.close()
    assert "contacts__create" in seen["demo"]
    assert "dcim__sites__destroy" not in seen["demo"]
    assert "dcim__sites__destroy" in seen["staff"]
    assert seen["demo"] < seen["staff"]


def test_search_filters_as_you_type(demo: str, context: BrowserContext) -> None:
    page = log_in(context, demo, "demo")
    items = page.locator("li.tool")
    total = items.count()
    texts = items.evaluate_all(
        "e => e.map(i => [i.firstElementChild.id, i.dataset.search])"
    )
    page.locator("#q").press_sequentially("sites list")
    expected = {name for name, text in texts if "sites" in text and "list" in text}
    visible = page.locator("li.tool:visible > details")
    expect(page.locator("#count")).to_have_text(f"{len(expected)} of {total} tools")
    assert set(visible.evaluate_all("e => e.map(d => d.id)")) == expected
    assert "dcim__sites__list" in expected
    assert "contacts__create" not in expected
    screenshot(page, "03-search")
    page.fill("#q", "")
    expect(page.locator("li.tool:visible")).to_have_count(total)


def test_a_fragment_opens_its_tool_with_labelled_fields(
    demo: str, context: BrowserContext
) -> None:
    page = log_in(context, demo, "demo")
    detail = open_tool(page, "dcim__devices__create")
    unlabelled = detail.evaluate(
        "d => [...d.querySelectorAll('input, select, textarea')]"
        ".filter(c => c.labels.length === 0).map(c => c.id)"
    )
    assert unlabelled == []
    expect(detail.locator("select#dcim__devices__create--status")).to_be_visible()
    expect(detail.locator("fieldset[data-kind=ref][data-name=site]")).to_be_visible()
    detail.locator("fieldset[data-name=tags] > button.add").click()
    expect(detail.locator("fieldset[data-name=tags] ol.items > li")).to_have_count(1)
    screenshot(page, "04-tool", full=True)


def test_validate_shows_a_field_error_and_writes_nothing(
    demo: str, context: BrowserContext
) -> None:
    page = log_in(context, demo, "demo")
    errors = watch(page)
    detail = open_tool(page, "contacts__create")
    detail.locator("#contacts__create--email").fill("not-an-email")
    detail.locator("button.validate").click()
    error = detail.locator(".field[data-path=email] > .error")
    expect(error).to_have_text("Enter a valid email address.")
    expect(detail.locator(".outcome h3")).to_have_text("Invalid arguments")
    assert contacts(demo, "not-an-email") == []
    screenshot(page, "05-validate-error", full=True)
    detail.locator("#contacts__create--email").fill("valid@example.com")
    detail.locator("button.validate").click()
    expect(detail.locator(".outcome h3")).to_have_text("Valid: nothing was written")
    assert contacts(demo, "valid@example.com") == []
    assert errors == []


def test_a_tool_error_is_read_from_the_text_block(
    demo: str, context: BrowserContext
) -> None:
    """An error of a tool with an outputSchema carries no structuredContent
    (ADR 0038): the page shows its message and hint from the text."""
    page = log_in(context, demo, "demo")
    errors = watch(page)
    detail = open_tool(page, "contacts__retrieve")
    detail.locator("#contacts__retrieve--id").fill(
        "00000000-0000-4000-8000-000000000000"
    )
    detail.locator("button.run").click()
    outcome = detail.locator(".outcome")
    expect(outcome.locator("h3")).to_have_text("The tool answered with an error")
    expect(outcome.locator("p").first).to_contain_text("No contact matches")
    expect(outcome.locator("pre")).to_contain_text('"code": "not_found"')
    assert errors == []


def test_run_creates_a_row_that_rest_returns(
    demo: str, context: BrowserContext
) -> None:
    page = log_in(context, demo, "demo")
    detail = open_tool(page, "contacts__create")
    detail.locator("#contacts__create--email").fill("grace@example.org")
    detail.locator("#contacts__create--first_name").fill("Grace")
    detail.locator("button.run").click()
    expect(detail.locator(".outcome h3")).to_have_text("Result")
    [row] = contacts(demo, "grace@example.org")
    assert row["first_name"] == "Grace"
    assert row["id"] in detail.locator(".outcome pre").inner_text()
    screenshot(page, "06-run-result", full=True)


def test_raw_json_is_sent_instead_of_the_form(
    demo: str, context: BrowserContext
) -> None:
    page = log_in(context, demo, "demo")
    detail = open_tool(page, "contacts__create")
    detail.locator("details.raw > summary").click()
    detail.locator("textarea.raw-json").fill(
        '{"email": "raw@example.org", "notes": "x"}'
    )
    detail.locator("button.run").click()
    expect(detail.locator(".outcome h3")).to_have_text("Result")
    [row] = contacts(demo, "raw@example.org")
    assert row["notes"] == "x"


def test_run_on_a_destructive_tool_asks_first(
    demo: str, context: BrowserContext
) -> None:
    """A destructive tool the server does not confirm: the page asks."""
    made = rest(demo, "POST", "contacts/", json={"email": "kept@example.org"}).json()
    page = log_in(context, demo, "demo")
    detail = open_tool(page, "contacts__partial_update")
    detail.locator("details.raw > summary").click()
    detail.locator("textarea.raw-json").fill(
        json.dumps({"id": made["id"], "notes": "changed"})
    )
    detail.locator("button.run").click()
    confirm = detail.locator(".confirm")
    expect(confirm).to_be_visible()
    expect(confirm.locator(".confirm-text")).to_contain_text("is destructive")
    assert page.evaluate("document.activeElement.className") == "confirm-yes danger"
    confirm.locator("button.confirm-no").click()
    expect(confirm).to_be_hidden()
    assert rest(demo, "GET", f"contacts/{made['id']}/").json()["notes"] == ""
    detail.locator("button.run").click()
    confirm.locator("button.confirm-yes").click()
    expect(detail.locator(".outcome h3")).to_have_text("Result")
    assert rest(demo, "GET", f"contacts/{made['id']}/").json()["notes"] == "changed"


def test_a_tool_the_server_confirms_asks_once_with_its_summary(
    demo: str, context: BrowserContext
) -> None:
    """The demo confirms every destroy (contrib.confirm): one question, the server's."""
    made = rest(demo, "POST", "contacts/", json={"email": "gone@example.org"}).json()
    page = log_in(context, demo, "demo")
    detail = open_tool(page, "contacts__destroy")
    detail.locator("#contacts__destroy--id").fill(made["id"])
    detail.locator("button.run").click()
    confirm = detail.locator(".confirm")
    expect(confirm).to_be_visible()
    expect(detail.locator(".outcome h3")).to_have_text(
        "The server asks for a confirmation"
    )
    expect(confirm.locator(".confirm-text")).to_contain_text("Delete")
    assert page.evaluate("document.activeElement.className") == "confirm-yes danger"
    screenshot(page, "07-confirm-destroy", full=True)
    assert rest(demo, "GET", f"contacts/{made['id']}/").status_code == 200
    confirm.locator("button.confirm-no").click()
    expect(confirm).to_be_hidden()
    assert rest(demo, "GET", f"contacts/{made['id']}/").status_code == 200
    detail.locator("button.run").click()
    confirm.locator("button.confirm-yes").click()
    expect(detail.locator(".outcome h3")).to_have_text("Result")
    assert rest(demo, "GET", f"contacts/{made['id']}/").status_code == 404


def test_a_list_tool_pages_on(demo: str, context: BrowserContext) -> None:
    page = log_in(context, demo, "demo")
    detail = open_tool(page, "dcim__sites__list")
    detail.locator("#dcim__sites__list--page_size").fill("2")
    detail.locator("button.run").click()
    expect(detail.locator(".outcome pre")).to_contain_text('"page": 1')
    detail.locator(".outcome button.next").click()
    expect(detail.locator(".outcome pre")).to_contain_text('"page": 2')


def test_the_keyboard_reaches_and_runs_everything(
    demo: str, context: BrowserContext
) -> None:
    page = log_in(context, demo, "demo")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.className") == "skip"
    page.locator("details#contacts__create > summary").focus()
    page.keyboard.press("Enter")
    email = page.locator("#contacts__create--email")
    expect(email).to_be_visible()
    email.focus()
    page.keyboard.type("keys@example.org")
    page.locator("details#contacts__create button.validate").focus()
    page.keyboard.press("Enter")
    outcome = page.locator("details#contacts__create .outcome h3")
    expect(outcome).to_have_text("Valid: nothing was written")


def test_readable_at_phone_width(demo: str, browser: Browser) -> None:
    context = browser.new_context(viewport=PHONE, is_mobile=True)
    page = log_in(context, demo, "demo")
    detail = open_tool(page, "dcim__devices__create")
    overflow = page.evaluate(
        "document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    assert overflow <= 0
    box = detail.locator("button.run").bounding_box()
    assert box is not None
    assert box["width"] > 40
    screenshot(page, "08-phone", full=True)
    context.close()


class _Forger(BaseHTTPRequestHandler):
    """Another origin's page: a form that posts a tool call to the demo."""

    target = ""

    def do_GET(self) -> None:
        body = (
            '<form id="f" method="post" enctype="text/plain" action="'
            f'{self.target}/mcp"><input name=\'{{"jsonrpc": "2.0", "id": 1, '
            '"method": "tools/call", "params": {"name": "contacts__create", '
            '"arguments": {"email": "forged@example.org"}}, "x": "\' value=\'"}\'>'
            "</form><p>Forged</p>"
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def forger(demo: str) -> Iterator[str]:
    """A page on another origin of this host (same site, another port)."""
    _Forger.target = demo
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Forger)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_a_cross_site_post_is_refused(
    demo: str, context: BrowserContext, forger: str, tmp_path: Path
) -> None:
    log_in(context, demo, "demo")  # the session cookie is the forger's hope
    page = context.new_page()
    page.goto(forger)
    fetched = page.evaluate(
        """async (url) => {
          try {
            const r = await fetch(url, {method: "POST", credentials: "include",
              headers: {"Content-Type": "application/json"},
              body: JSON.stringify({jsonrpc: "2.0", id: 2, method: "tools/call",
                params: {name: "contacts__create",
                         arguments: {email: "forged@example.org"}}})});
            return r.status;
          } catch (error) { return "blocked"; }
        }""",
        f"{demo}/mcp",
    )
    assert fetched == "blocked"  # its preflight is refused: a foreign Origin
    with page.expect_navigation() as navigation:
        page.evaluate("document.getElementById('f').submit()")
    response = navigation.value
    assert response is not None
    assert response.status == 403
    assert contacts(demo, "forged@example.org") == []


def test_the_list_works_without_javascript(demo: str, browser: Browser) -> None:
    context = browser.new_context(viewport=WIDE, java_script_enabled=False)
    page = log_in(context, demo, "demo")
    page.fill("#q", "sites")
    page.click("form.search button[type=submit]")
    assert page.url == f"{demo}/mcp?q=sites"
    assert "contacts__create" not in page.locator("#tools").inner_text()
    page.locator("details#dcim__sites__create > summary").click()
    page.click("details#dcim__sites__create a.open")
    assert page.url == f"{demo}/mcp?tool=dcim__sites__create#dcim__sites__create"
    expect(page.locator("#dcim__sites__create--name")).to_be_visible()
    expect(page.locator("details#dcim__sites__create noscript")).to_have_count(1)
    screenshot(page, "10-no-javascript", full=True)
    context.close()


def test_a_servers_confirmation_is_asked_and_sent_back(
    demo: str, context: BrowserContext
) -> None:
    """Issue 22's flow: a reply with code confirmation_required and a token
    under confirm; the same call repeated with "confirm" runs. The endpoint's
    replies are stood in for here (that flow is another branch's); what is
    tested is the page: it asks, and repeats the call with the token."""
    sent: list[dict[str, Any]] = []

    def reply(route: Route) -> None:
        if route.request.method != "POST":
            route.continue_()
            return
        body = json.loads(route.request.post_data or "{}")
        sent.append(body["params"]["arguments"])
        error = {
            "code": "confirmation_required",
            "confirm": "token-1",
            "message": "Delete contact Ada Lovelace? 0 rows depend on it.",
        }
        # As the server answers: an error of a tool with an outputSchema
        # as text only (ADR 0038), the result as structure and text.
        structured = {"error": error} if len(sent) == 1 else {"deleted": True}
        text = {"type": "text", "text": json.dumps(structured)}
        result: dict[str, Any] = {"content": [text]}
        if len(sent) > 1:
            result["structuredContent"] = structured
        result["isError"] = len(sent) == 1
        route.fulfill(json={"jsonrpc": "2.0", "id": body["id"], "result": result})

    page = log_in(context, demo, "demo")
    detail = open_tool(page, "contacts__destroy")
    page.route(lambda url: url == f"{demo}/mcp", reply)
    detail.locator("#contacts__destroy--id").fill(
        "00000000-0000-0000-0000-000000000001"
    )
    detail.locator("button.run").click()  # the server confirms: no question yet
    expect(detail.locator(".confirm-text")).to_have_text(
        "Delete contact Ada Lovelace? 0 rows depend on it."
    )
    expect(detail.locator(".outcome h3")).to_have_text(
        "The server asks for a confirmation"
    )
    detail.locator("button.confirm-yes").click()  # the server's
    expect(detail.locator(".outcome h3")).to_have_text("Result")
    assert [args.get("confirm") for args in sent] == [None, "token-1"]
    assert sent[1]["id"] == sent[0]["id"]
