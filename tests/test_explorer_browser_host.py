"""The explorer in a real browser on a hostile host: its markup stays text.

The notebook host (tests/hosts/notebook) puts ``<script>`` and
``<img onerror>`` in help texts, choice labels and a docstring; each would
set ``window.__pwned`` if it ran. It mounts DRF's login view, which the
explorer uses where ``LOGIN_URL`` leads nowhere. Served in-process by
pytest-django's live server; the rows and users are made before the
browser starts (Django's ORM refuses to run beside Playwright's loop).
"""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission, User
from django.test import Client
from playwright.sync_api import Browser, Page, expect
from pytest_django.fixtures import Settings
from pytest_django.live_server_helper import LiveServer

from tests.browser import chromium, screenshot, watch
from tests.hosts.notebook.models import IMAGE, SCRIPT, Note, Notebook
from tests.testapp.models import Publisher

pytestmark = [pytest.mark.browser, pytest.mark.live]


@pytest.fixture
def notebook_host(settings: Settings, transactional_db: None) -> int:
    """The notebook host's settings, a writer, and one notebook's id."""
    settings.ROOT_URLCONF = "tests.hosts.notebook.urls"
    settings.FRISIAN_MCP = {
        "REQUIRE_AUTHENTICATION": True,
        "BROWSER_VIEW_CLASS": "frisian_mcp.contrib.explorer.views.ExplorerView",
    }
    user = User.objects.create_user("writer", password="pw-writer")
    user.user_permissions.set(
        Permission.objects.filter(codename__in=["add_note", "add_notebook"])
    )
    return Notebook.objects.create(name="Ideas").pk


def writer_at(browser: Browser, base: str, section: str) -> tuple[Page, list[str]]:
    """A page at ``/mcp?<section>`` after the writer logged in through DRF's
    login form, and the errors it will see (:func:`tests.browser.watch`)."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors = watch(page)
    page.goto(f"{base}/api-auth/login/?next=/mcp%3F{section}")
    page.fill("#id_username", "writer")
    page.fill("#id_password", "pw-writer")
    page.click("#submit-id-submit")
    page.wait_for_url(f"{base}/mcp?{section}")
    return page, errors


def test_host_markup_is_shown_as_text_and_never_runs(
    live_server: LiveServer, notebook_host: int
) -> None:
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        errors = watch(page)
        page.goto(f"{live_server.url}/mcp")
        assert page.url == f"{live_server.url}/api-auth/login/?next=/mcp"
        page.fill("#id_username", "writer")
        page.fill("#id_password", "pw-writer")
        page.click("#submit-id-submit")
        page.wait_for_url(f"{live_server.url}/mcp")
        page.locator("#q").fill("hover")  # the docstring, as text
        expect(page.locator("li.tool:visible")).not_to_have_count(0)
        page.locator("#q").fill("")
        page.goto(f"{live_server.url}/mcp#notes__create")
        detail = page.locator("details#notes__create .detail")
        expect(detail).to_be_visible()
        help_text = detail.locator(".field[data-name=title] .help")
        expect(help_text).to_contain_text(SCRIPT)
        expect(detail.locator(".field[data-name=kind] option").nth(1)).to_contain_text(
            IMAGE
        )
        expect(detail.locator("fieldset[data-name=notebook] > .help")).to_contain_text(
            IMAGE
        )
        assert detail.locator("script, img, b").count() == 0
        assert page.locator("li.tool script, li.tool img, li.tool b").count() == 0
        detail.locator("#notes__create--notebook").fill(str(notebook_host))
        detail.locator("#notes__create--title").fill(
            "<img src=x onerror=\"window.__pwned='result'\">"
        )
        detail.locator("button.run").click()
        expect(detail.locator(".outcome h3")).to_have_text("Result")
        expect(detail.locator(".outcome pre")).to_contain_text("onerror")
        assert detail.locator(".outcome img").count() == 0
        screenshot(page, "09-hostile-host", full=True)
        assert page.evaluate("window.__pwned") is None
        assert errors == []


def test_a_resource_is_read_from_its_form_and_shown_as_text(
    live_server: LiveServer, notebook_host: int
) -> None:
    note = Note.objects.create(notebook_id=notebook_host, title=IMAGE).pk
    with chromium() as browser:
        page, errors = writer_at(browser, live_server.url, "resources")
        page.goto(f"{live_server.url}/mcp?resources#resource-notes")
        reader = page.locator("details#resource-notes .reader")
        expect(reader).to_be_visible()
        reader.locator("#resource-notes--id").fill(str(note))
        reader.locator("button.read").click()
        expect(reader.locator(".outcome h3")).to_have_text("Result")
        expect(reader.locator(".outcome p")).to_have_text(f"drf://notes/{note}")
        expect(reader.locator(".outcome pre")).to_contain_text(
            IMAGE.replace('"', '\\"')
        )
        assert reader.locator(".outcome img").count() == 0
        screenshot(page, "10-resource-read", full=True)
        reader.locator("#resource-notes--id").fill("999999")
        reader.locator("button.read").click()
        expect(reader.locator(".outcome h3")).to_have_text("Refused")
        expect(reader.locator(".outcome p")).to_have_text("Resource not found.")
        assert page.evaluate("window.__pwned") is None
        assert errors == []


@pytest.fixture
def reader_session(settings: Settings, transactional_db: None) -> str:
    """tests/urls_resources.py behind the explorer (its routes without
    variables: ``first`` and ``me``), a publisher named with markup, and a
    reader's session cookie (that URLconf mounts no login page)."""
    settings.ROOT_URLCONF = "tests.urls_resources"
    settings.FRISIAN_MCP = {
        "REQUIRE_AUTHENTICATION": True,
        "BROWSER_VIEW_CLASS": "frisian_mcp.contrib.explorer.views.ExplorerView",
        "TOOL_LAYOUT": "flat",
    }
    Publisher.objects.create(name=IMAGE, country="NL", code="NL")
    client = Client()
    client.force_login(User.objects.create_user("reader", password="pw-reader"))
    return str(client.cookies[settings.SESSION_COOKIE_NAME].value)


def test_a_resource_without_variables_is_read_with_its_button(
    live_server: LiveServer, reader_session: str, settings: Settings
) -> None:
    with chromium() as browser:
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        name, url = settings.SESSION_COOKIE_NAME, live_server.url
        context.add_cookies([{"name": name, "value": reader_session, "url": url}])
        page = context.new_page()
        errors = watch(page)
        page.goto(f"{live_server.url}/mcp?resources#resource-first")
        first = page.locator("details#resource-first .reader")
        expect(first).to_be_visible()
        assert first.locator("input").count() == 0
        first.locator("button.read").click()
        expect(first.locator(".outcome h3")).to_have_text("Result")
        expect(first.locator(".outcome p")).to_have_text("drf://first")
        expect(first.locator(".outcome pre")).to_contain_text(IMAGE.replace('"', '\\"'))
        assert first.locator(".outcome img").count() == 0
        page.locator("details#resource-me summary").click()
        me = page.locator("details#resource-me .reader")
        me.locator("button.read").click()
        expect(me.locator(".outcome h3")).to_have_text("Result")
        expect(me.locator(".outcome p")).to_have_text("drf://me")
        expect(me.locator(".outcome pre")).to_contain_text('"username": "reader"')
        screenshot(page, "12-resource-without-variables", full=True)
        assert page.evaluate("window.__pwned") is None
        assert errors == []


def test_a_prompt_is_got_from_its_form_with_its_field_errors(
    live_server: LiveServer, notebook_host: int
) -> None:
    with chromium() as browser:
        page, errors = writer_at(browser, live_server.url, "prompts")
        page.goto(f"{live_server.url}/mcp?prompts#prompt-describe_book")
        reader = page.locator("details#prompt-describe_book .reader")
        expect(reader).to_be_visible()
        reader.locator("#prompt-describe_book--title").fill(SCRIPT)
        reader.locator("#prompt-describe_book--copies").fill("many")
        reader.locator("button.read").click()
        expect(reader.locator(".outcome h3")).to_have_text("Refused")
        copies = reader.locator(".field[data-name=copies] > .error")
        expect(copies).to_be_visible()
        reader.locator("#prompt-describe_book--copies").fill("2")
        reader.locator("#prompt-describe_book--tone").select_option("full")
        reader.locator("button.read").click()
        expect(reader.locator(".outcome h3")).to_have_text("Result")
        expect(reader.locator(".outcome h4")).to_have_text("user")
        expect(reader.locator(".outcome pre")).to_contain_text(f"{SCRIPT} | 2 |")
        assert reader.locator(".outcome script").count() == 0
        screenshot(page, "11-prompt-get", full=True)
        assert page.evaluate("window.__pwned") is None
        assert errors == []
