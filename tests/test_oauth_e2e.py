"""End to end: the official SDK's OAuth client against the live demo (issue 12).

The demo runs under gunicorn (and once under uvicorn) with its own
authorization server. ``mcp.client.auth.OAuthClientProvider`` does what a
hosted client does: its first request gets 401, it reads the protected
resource metadata and the authorization server's metadata, registers
(with a client ID metadata document, served here over HTTPS on the
loopback interface, or by dynamic registration), sends the person to the
authorization URL with PKCE and ``resource``, exchanges the code and
retries with the token. The person is played over HTTP by ``Browser``:
the login form, then Allow on the consent page. Then the client lists the
tools and creates a contact, in the 2025-11-25 handshake revision and in
2026-07-28.
"""

from __future__ import annotations

import html
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urljoin, urlsplit

import anyio
import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)

from tests.live import demo_database, free_port, serve
from tests.oauth_as_support import (
    HIDDEN,
    DocumentServer,
    Route,
    consent_form,
    document_server,
)

pytestmark = pytest.mark.live

CALLBACK = "http://127.0.0.1:8765/callback"
DOCUMENT_PATH = "/agent.json"


@dataclass
class Memory:
    """The SDK's token storage, in memory."""

    tokens: OAuthToken | None = None
    client_info: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client_info = client_info


@dataclass
class Browser:
    """The person: signs in with the demo password and presses Allow."""

    username: str = "demo"
    visited: list[str] = field(default_factory=list)
    callback: dict[str, str] = field(default_factory=dict)

    async def redirect_handler(self, url: str) -> None:
        """Follow the authorization URL through login and consent."""
        async with httpx.AsyncClient(follow_redirects=False, timeout=10) as http:
            to_login = await http.get(url)
            assert to_login.status_code == 302, to_login.text
            login_url = urljoin(url, to_login.headers["location"])
            login_page = await http.get(login_url)
            form = {k: html.unescape(v) for k, v in HIDDEN.findall(login_page.text)}
            form.update(username=self.username, password=self.username)
            signed_in = await http.post(login_url, data=form)
            assert signed_in.status_code == 302, signed_in.text
            authorize = urljoin(login_url, signed_in.headers["location"])
            consent_page = await http.get(authorize)
            assert consent_page.status_code == 200, consent_page.text
            answered = await http.post(authorize, data=consent_form(consent_page.text))
            assert answered.status_code == 302, answered.text
            location = answered.headers["location"]
        self.visited += [url, login_url, authorize]
        assert location.startswith(CALLBACK + "?"), location
        query = parse_qs(urlsplit(location).query)
        self.callback = {k: v[0] for k, v in query.items()}

    async def callback_handler(self) -> AuthorizationCodeResult:
        """What the client's redirect URI received."""
        return AuthorizationCodeResult(
            code=self.callback["code"],
            state=self.callback.get("state"),
            iss=self.callback.get("iss"),
        )


@dataclass
class LiveAS:
    """The demo served with its authorization server, and its documents."""

    base: str
    log: Path
    documents: DocumentServer

    def run(
        self,
        body: Callable[[Client], Awaitable[None]],
        mode: str,
        provider: OAuthClientProvider,
    ) -> None:
        """Connect a client authenticating with ``provider`` and run ``body``."""

        async def main() -> None:
            with anyio.fail_after(60):
                http = httpx2.AsyncClient(auth=provider, timeout=30)
                transport = streamable_http_client(self.base + "/mcp", http_client=http)
                async with Client(transport, mode=mode) as client:
                    await body(client)

        try:
            anyio.run(main)
        except BaseException:
            print(f"--- server log ({self.log}) ---\n{self.log.read_text()}")
            raise


@pytest.fixture(scope="module")
def documents(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DocumentServer]:
    with document_server(tmp_path_factory.mktemp("cimd-live")) as (server, _):
        server.routes[DOCUMENT_PATH] = Route(
            httpx.Response(
                200,
                json={
                    "client_id": server.url(DOCUMENT_PATH),
                    "client_name": "SDK agent (metadata document)",
                    "redirect_uris": [CALLBACK],
                    "grant_types": ["authorization_code", "refresh_token"],
                    "response_types": ["code"],
                    "token_endpoint_auth_method": "none",
                },
            ).content
        )
        yield server


def _live(kind: str, tmp: Path, documents: DocumentServer) -> Iterator[LiveAS]:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with demo_database(tmp, f"oauth_{kind}") as env:
        env = {
            **env,
            "DEMO_PUBLIC_URL": base,
            "DJANGO_DEBUG": "1",
            # The document server is on the loopback interface, with a
            # self-signed certificate: both allowed only in DEBUG.
            "DEMO_CIMD_ALLOW_PRIVATE": "1",
            "DEMO_CIMD_CA_FILE": documents.ca_file,
        }
        log = tmp / "server.log"
        with serve(env, log, server=kind, port=port) as served:
            assert served == base
            yield LiveAS(base, log, documents)


@pytest.fixture(scope="module")
def gunicorn_as(
    tmp_path_factory: pytest.TempPathFactory, documents: DocumentServer
) -> Iterator[LiveAS]:
    yield from _live("gunicorn", tmp_path_factory.mktemp("oauth-gunicorn"), documents)


@pytest.fixture(scope="module")
def uvicorn_as(
    tmp_path_factory: pytest.TempPathFactory, documents: DocumentServer
) -> Iterator[LiveAS]:
    yield from _live("uvicorn", tmp_path_factory.mktemp("oauth-uvicorn"), documents)


def provider_for(
    live: LiveAS, registration: str, browser: Browser, storage: Memory
) -> OAuthClientProvider:
    """The SDK's provider: a metadata-document client, or one that registers."""
    metadata = OAuthClientMetadata(
        redirect_uris=[CALLBACK],  # type: ignore[list-item]
        client_name=f"SDK agent ({registration})",
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
    )
    return OAuthClientProvider(
        server_url=live.base + "/mcp",
        client_metadata=metadata,
        storage=storage,
        redirect_handler=browser.redirect_handler,
        callback_handler=browser.callback_handler,
        client_metadata_url=live.documents.url(DOCUMENT_PATH)
        if registration == "cimd"
        else None,
    )


def full_flow(live: LiveAS, registration: str, mode: str) -> None:
    """Discover, register, authorize, list the tools and create a contact."""
    browser, storage = Browser(), Memory()
    provider = provider_for(live, registration, browser, storage)
    email = f"oauth.{registration}.{mode}@example.com"
    fetched_before = live.documents.hits.count(DOCUMENT_PATH)

    async def body(client: Client) -> None:
        revision = "2025-11-25" if mode == "legacy" else mode
        assert client.protocol_version == revision
        names = {tool.name for tool in (await client.list_tools()).tools}
        assert {"contacts__create", "contacts__list", "dcim__sites__list"} <= names
        created = await client.call_tool("contacts__create", {"email": email})
        assert not created.is_error, created
        assert isinstance(created.structured_content, dict)
        key = {"id": created.structured_content["id"]}
        read = await client.call_tool("contacts__retrieve", key)
        assert not read.is_error, read
        assert read.structured_content == created.structured_content

    live.run(body, mode, provider)

    # The provider went the whole way: one login and consent, one token.
    assert len(browser.visited) == 3
    authorize = parse_qs(urlsplit(browser.visited[0]).query)
    assert authorize["code_challenge_method"] == ["S256"]
    assert authorize["resource"] == [live.base + "/mcp"]
    assert browser.callback["iss"] == live.base + "/oauth"
    assert storage.tokens is not None
    assert storage.tokens.refresh_token
    assert storage.client_info is not None
    fetched = live.documents.hits.count(DOCUMENT_PATH) - fetched_before
    if registration == "cimd":
        assert storage.client_info.client_id == live.documents.url(DOCUMENT_PATH)
        assert fetched <= 1  # fetched once, then cached by the server
    else:
        assert not storage.client_info.client_id.startswith("https://")
        assert storage.client_info.client_secret  # registered as confidential
        assert fetched == 0

    # And the token works on its own, as any HTTP client would send it.
    response = httpx.post(
        live.base + "/mcp",
        json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
        headers={
            "Authorization": f"Bearer {storage.tokens.access_token}",
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": "2025-11-25",
        },
    )
    assert response.status_code == 200, response.text


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
@pytest.mark.parametrize("registration", ["cimd", "dcr"])
def test_sdk_client_runs_the_whole_flow_under_gunicorn(
    gunicorn_as: LiveAS, registration: str, mode: str
) -> None:
    full_flow(gunicorn_as, registration, mode)


def test_sdk_client_runs_the_whole_flow_under_uvicorn(uvicorn_as: LiveAS) -> None:
    full_flow(uvicorn_as, "cimd", "2026-07-28")


def test_unauthenticated_request_gets_the_challenge(gunicorn_as: LiveAS) -> None:
    response = httpx.post(
        gunicorn_as.base + "/mcp",
        json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
        headers={"Accept": "application/json, text/event-stream"},
    )
    assert response.status_code == 401
    metadata = f"{gunicorn_as.base}/.well-known/oauth-protected-resource/mcp"
    assert response.headers["www-authenticate"].startswith(
        f'Bearer resource_metadata="{metadata}"'
    )
    document: Any = httpx.get(metadata).json()
    assert document["authorization_servers"] == [gunicorn_as.base + "/oauth"]
    issuer = document["authorization_servers"][0]
    well_known = f"{gunicorn_as.base}/.well-known/oauth-authorization-server/oauth"
    assert httpx.get(well_known).json()["issuer"] == issuer
