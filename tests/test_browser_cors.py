"""CORS as a browser enforces it: the MCP Inspector's OAuth flow in Chromium.

Issue 22 item 4. The MCP Inspector's browser UI (origin
``http://127.0.0.1:6274`` or ``http://localhost:6274``, both allowed by the
demo's settings) discovers the demo's authorization server, registers,
sends the person to consent, exchanges the code and calls ``/mcp``, all with
``fetch()`` from its own origin. Here Debian's headless Chromium, driven by
Playwright, does the same from a page served at that origin, against the
live demo: Chromium sends the preflights and applies CORS to every answer.
(Not through Playwright's request routing, which answers preflights
itself; and from a loopback address as the Inspector's own server, which
keeps Chromium's Local Network Access permission out of it.)
The page reads what a client must read: ``WWW-Authenticate`` on the 401 and
on the scope step-up 403, and the bodies of 4xx answers. A page at another
origin is refused before its request is sent.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest

from demo_project.management.commands.seed_demo import DEMO_TOKEN
from tests import browser
from tests.live import count_contacts, demo_database, free_port, serve
from tests.oauth_as_support import pkce_pair

pytestmark = [pytest.mark.live, pytest.mark.browser]

#: The Inspector's port, one of the origins the demo allows.
INSPECTOR_PORT = 6274
PROTOCOL = "2025-11-25"
#: What the page's fetch() reports: the status, the headers JavaScript may
#: read (``null`` when CORS hides one), the body; or the TypeError of a
#: request CORS refused.
FETCH = """async ([url, init]) => {
  try {
    const r = await fetch(url, init);
    const names = ["www-authenticate", "mcp-session-id", "mcp-protocol-version",
                   "content-type", "vary"];
    const headers = Object.fromEntries(names.map((n) => [n, r.headers.get(n)]));
    return {status: r.status, headers, body: await r.text()};
  } catch (e) {
    return {error: `${e.name}: ${e.message}`};
  }
}"""


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    tmp = tmp_path_factory.mktemp("browser-cors")
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with demo_database(tmp, "browser_cors") as env:
        env = {**env, "DEMO_PUBLIC_URL": base}
        with serve(env, tmp / "server.log", server="uvicorn", port=port) as served:
            assert served == base
            yield base


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    with browser.chromium() as launched:
        yield launched


class _Page(BaseHTTPRequestHandler):
    """The client's own pages (its start page, its OAuth callback)."""

    def do_GET(self) -> None:
        body = b"<!doctype html><title>client</title><p>client"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@contextmanager
def client_pages(port: int) -> Iterator[str]:
    """Serve :class:`_Page` on 127.0.0.1:``port``; yield its origin."""
    deadline = time.monotonic() + 10
    while True:
        try:
            server = ThreadingHTTPServer(("127.0.0.1", port), _Page)
            break
        except OSError:  # the port is busy (a parallel run): wait for it
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.shutdown()
        server.server_close()


class Tab:
    """A page of the browser at ``origin``, calling out with ``fetch()``."""

    def __init__(self, browser: Any, origin: str) -> None:
        self.origin = origin
        self.context = browser.new_context()
        self.page = self.context.new_page()
        self.page.goto(f"{origin}/")

    def fetch(self, url: str, **init: Any) -> dict[str, Any]:
        result: dict[str, Any] = self.page.evaluate(FETCH, [url, init])
        return result

    def post_mcp(self, base: str, body: dict[str, Any], **headers: str) -> Any:
        return self.fetch(
            f"{base}/mcp",
            method="POST",
            headers={
                "Content-Type": "application/json",
                "Accept": "application/json, text/event-stream",
                "MCP-Protocol-Version": PROTOCOL,
                **headers,
            },
            body=_json(body),
        )


def _json(value: Any) -> str:
    return json.dumps(value)


def _body(answer: dict[str, Any]) -> Any:
    assert "error" not in answer, answer
    return json.loads(answer["body"])


def _consent(tab: Tab, url: str, callback: str) -> dict[str, str]:
    """The person: signs in as demo, presses Allow; the callback's query."""
    page = tab.context.new_page()
    page.goto(url)
    page.fill("#id_username", "demo")
    page.fill("#id_password", "demo")
    page.click("#login-form button[type=submit]")
    page.wait_for_selector("#consent-form")
    with page.expect_navigation(url=f"{callback}**"):
        page.click("#consent-form button[name=allow]")
    query = parse_qs(urlsplit(page.url).query)
    page.close()
    return {k: v[0] for k, v in query.items()}


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": PROTOCOL,
        "capabilities": {},
        "clientInfo": {"name": "inspector", "version": "0"},
    },
}


def test_the_inspector_finishes_the_oauth_flow_from_its_origin(
    demo: str, chromium: Any
) -> None:
    with client_pages(INSPECTOR_PORT) as inspector:
        tab = Tab(chromium, inspector)
        try:
            _inspector_flow(tab, demo, f"{inspector}/oauth/callback")
        finally:
            tab.context.close()


def _inspector_flow(tab: Tab, demo: str, callback_url: str) -> None:
    """What the Inspector's page does, step by step."""
    # 1. The endpoint's 401: the challenge is readable.
    challenged = tab.post_mcp(demo, INITIALIZE)
    assert challenged.get("status") == 401, challenged
    metadata_url = f"{demo}/.well-known/oauth-protected-resource/mcp"
    assert f'resource_metadata="{metadata_url}"' in (
        challenged["headers"]["www-authenticate"] or ""
    )
    # The browser filters what it shows: a header not exposed reads as null.
    assert challenged["headers"]["vary"] is None

    # 2. Discovery, with the header MCP clients add (a preflight each).
    version = {"MCP-Protocol-Version": PROTOCOL}
    resource = _body(tab.fetch(metadata_url, headers=version))
    (issuer,) = resource["authorization_servers"]
    server = _body(
        tab.fetch(
            f"{demo}/.well-known/oauth-authorization-server/oauth", headers=version
        )
    )
    assert server["issuer"] == issuer

    # 3. Dynamic registration: a JSON POST, preflighted.
    registered = tab.fetch(
        server["registration_endpoint"],
        method="POST",
        headers={"Content-Type": "application/json"},
        body=_json(
            {
                "client_name": "MCP Inspector",
                "redirect_uris": [callback_url],
                "grant_types": ["authorization_code", "refresh_token"],
                "response_types": ["code"],
                "token_endpoint_auth_method": "none",
            }
        ),
    )
    assert registered.get("status") == 201, registered
    client_id = _body(registered)["client_id"]

    # 4. The person consents (top-level navigation, no CORS involved).
    verifier, challenge = pkce_pair()
    query = urlencode(
        {
            "response_type": "code",
            "client_id": client_id,
            "redirect_uri": callback_url,
            "state": "s-1",
            "code_challenge": challenge,
            "code_challenge_method": "S256",
            "scope": "mcp:read",
            "resource": f"{demo}/mcp",
        }
    )
    callback = _consent(
        tab, f"{server['authorization_endpoint']}?{query}", callback_url
    )
    assert callback["state"] == "s-1"

    # 5. The token request: a form POST whose answer the page must read.
    exchanged = tab.fetch(
        server["token_endpoint"],
        method="POST",
        headers={"Content-Type": "application/x-www-form-urlencoded"},
        body=urlencode(
            {
                "grant_type": "authorization_code",
                "code": callback["code"],
                "redirect_uri": callback_url,
                "client_id": client_id,
                "code_verifier": verifier,
                "resource": f"{demo}/mcp",
            }
        ),
    )
    assert exchanged.get("status") == 200, exchanged
    bearer = {"Authorization": f"Bearer {_body(exchanged)['access_token']}"}

    # 6. The endpoint with the token.
    initialized = tab.post_mcp(demo, INITIALIZE, **bearer)
    assert initialized["status"] == 200, initialized
    assert _body(initialized)["result"]["protocolVersion"] == PROTOCOL
    listed = _body(
        tab.post_mcp(
            demo, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, **bearer
        )
    )
    names = {tool["name"] for tool in listed["result"]["tools"]}
    assert "contacts__list" in names
    assert "contacts__create" not in names  # mcp:read only

    # 7. The scope step-up: 403, its challenge readable.
    email = f"browser-{uuid.uuid4().hex[:8]}@example.com"
    call = {
        "jsonrpc": "2.0",
        "id": 3,
        "method": "tools/call",
        "params": {"name": "contacts__create", "arguments": {"email": email}},
    }
    step_up = tab.post_mcp(demo, call, **bearer)
    assert step_up["status"] == 403, step_up
    assert 'error="insufficient_scope"' in (
        step_up["headers"]["www-authenticate"] or ""
    )
    assert _body(step_up)["error"]["data"]["code"] == "insufficient_scope"
    assert count_contacts(demo, email) == 0

    # 8. Other refusals: status and body readable, not a network error.
    wrong = tab.post_mcp(
        demo,
        {"jsonrpc": "2.0", "id": 4, "method": "ping"},
        **bearer,
        **{"MCP-Protocol-Version": "1999-01-01"},
    )
    assert wrong["status"] == 400
    assert _body(wrong)["id"] == 4
    stream = tab.fetch(f"{demo}/mcp", headers={"Accept": "text/event-stream", **bearer})
    assert stream["status"] == 405
    assert _body(stream)["error"]["code"] == -32600


def test_a_page_at_another_origin_is_refused_before_its_request_runs(
    demo: str, chromium: Any
) -> None:
    with client_pages(free_port()) as stranger:
        tab = Tab(chromium, stranger)
        try:
            _stranger_calls(tab, demo)
        finally:
            tab.context.close()


def _stranger_calls(tab: Tab, demo: str) -> None:
    email = f"stranger-{uuid.uuid4().hex[:8]}@example.com"
    call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "contacts__create", "arguments": {"email": email}},
    }
    refused = tab.post_mcp(demo, call, Authorization=f"Token {DEMO_TOKEN}")
    assert refused == {"error": "TypeError: Failed to fetch"}
    token = tab.fetch(
        f"{demo}/oauth/token/",
        method="POST",
        headers={"Content-Type": "application/x-www-form-urlencoded"},
        body="grant_type=authorization_code&code=x",
    )
    assert token == {"error": "TypeError: Failed to fetch"}
    assert count_contacts(demo, email) == 0
