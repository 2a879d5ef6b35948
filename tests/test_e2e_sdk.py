"""End to end: the official ``mcp`` SDK client against a live demo server.

The rest of the suite drives the view through Django's test client. This
module proves the same behaviour holds over real HTTP for a third-party
client: it migrates and seeds a throwaway database, serves ``demo_project``
in a subprocess, once with gunicorn (WSGI) and once with uvicorn (ASGI, where
Django runs the sync view in a thread), and connects ``mcp.Client`` in each
of its modes. ``legacy`` goes straight to ``initialize`` (the handshake era);
``auto`` probes ``server/discover`` at 2026-07-28, gets a DiscoverResult and
stays stateless (every request carries ``_meta`` and the mirrored headers);
``"2026-07-28"`` pins the modern revision without a probe. Each way the client
lists the contacts tools and walks one contact through create, retrieve,
partial update, update and delete.

SQLite by default; when ``DATABASE_URL`` names PostgreSQL, the server gets its
own database on that server, created and dropped here with psycopg.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, types

from tests.live import SERVERS, demo_database, sdk_run, serve

pytestmark = pytest.mark.live

CONTACT_TOOLS = {
    f"contacts__{a}"
    for a in ("list", "retrieve", "create", "update", "partial_update", "destroy")
}
#: The handshake-era versions the server speaks (``initialize`` negotiates one).
SERVER_VERSIONS = {"2025-03-26", "2025-06-18", "2025-11-25"}
MODES = pytest.mark.parametrize("mode", ["auto", "legacy", "2026-07-28"])


class LiveServer:
    """A server process serving the demo, with its output in ``log``."""

    def __init__(self, log: Path) -> None:
        self.log = log
        self.url = ""

    def run(
        self, body: Callable[[Client], Awaitable[None]], mode: str, **options: Any
    ) -> None:
        """Run ``body`` with a connected client; show the server log on failure.

        ``options`` go to ``Client`` (an ``elicitation_callback``, say).
        """
        sdk_run(self.url, self.log, body, mode, **options)


@pytest.fixture(scope="module", params=SERVERS)
def live(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LiveServer]:
    """Migrate and seed a fresh database, serve the demo, yield the server."""
    kind: str = request.param
    tmp = tmp_path_factory.mktemp(f"e2e-{kind}")
    server = LiveServer(tmp / "server.log")
    with (
        demo_database(tmp, f"e2e_{kind}") as env,
        serve(env, server.log, server=kind) as base,
    ):
        server.url = base + "/mcp"
        yield server


def _payload(result: Any) -> dict[str, Any]:
    """The structured content, checked against the text block that mirrors it."""
    assert isinstance(result.structured_content, dict)
    assert json.loads(result.content[0].text) == result.structured_content
    return result.structured_content


def _error(result: Any) -> Any:
    """The error of an error result: text only, for a tool with an
    outputSchema (ADR 0038)."""
    assert result.is_error, result
    assert result.structured_content is None, result
    return json.loads(result.content[0].text)["error"]


@MODES
def test_list_tools(live: LiveServer, mode: str) -> None:
    """The contacts tools are listed with object schemas and read-only hints."""

    async def body(client: Client) -> None:
        tools, cursor = [], None
        while True:  # Walk every page: exercises the cursor round trip too.
            page = await client.list_tools(cursor=cursor)
            tools += page.tools
            if (cursor := page.next_cursor) is None:
                break
        by_name = {tool.name: tool for tool in tools}
        assert by_name.keys() >= CONTACT_TOOLS
        for name in CONTACT_TOOLS:
            assert by_name[name].input_schema["type"] == "object"
            read_only = name.endswith(("__list", "__retrieve"))
            annotations = by_name[name].annotations
            assert annotations is not None, name
            # Left out when false, the MCP spec's default (docs/listing.md).
            assert (annotations.read_only_hint or False) is read_only, name
            if not read_only:  # its default is true: "false" is always said
                destructive = not name.endswith("__create")
                assert annotations.destructive_hint is destructive, name

    live.run(body, mode)


@MODES
def test_contact_lifecycle(live: LiveServer, mode: str) -> None:
    """Create, read, patch, replace and delete one contact with flat arguments."""
    email = f"ada.{mode}@example.com"

    async def body(client: Client) -> None:
        new = {"email": email, "first_name": "Ada", "last_name": "Lovelace"}
        result = await client.call_tool("contacts__create", new)
        assert not result.is_error, result
        created = _payload(result)
        assert created["email"] == email
        key = {"id": created["id"]}

        result = await client.call_tool("contacts__retrieve", key)
        assert not result.is_error, result
        assert _payload(result) == created

        notes = {"notes": "Wrote the first program."}
        result = await client.call_tool("contacts__partial_update", {**key, **notes})
        assert not result.is_error, result
        assert _payload(result) == {**created, **notes}

        full = {**new, "phone": "+44 20 7946 0000", "notes": "", "first_name": "A."}
        result = await client.call_tool("contacts__update", {**key, **full})
        assert not result.is_error, result
        assert _payload(result) == {**created, **full}

        # A delete in validate mode fits the declared outputSchema, which the
        # SDK checks (issue 26 item 1): the confirmation extra adds mode.
        result = await client.call_tool(
            "contacts__destroy", {**key, "mode": "validate"}
        )
        assert not result.is_error, result
        report = _payload(result)["validation"]
        assert (report["action"], report["written"]) == ("delete", False)
        assert report["confirmation"]["required"] is True

        # The demo asks for confirmation before a delete (docs/safety.md).
        result = await client.call_tool("contacts__destroy", key)
        asked = _error(result)
        assert asked["code"] == "confirmation_required", result
        confirmed = {**key, "confirm": asked["confirm"]}
        result = await client.call_tool("contacts__destroy", confirmed)
        assert not result.is_error, result

        result = await client.call_tool("contacts__retrieve", key)
        assert result.is_error, result
        assert _error(result)["code"] == "not_found"

    live.run(body, mode)


@MODES
def test_a_file_goes_up_and_comes_back(live: LiveServer, mode: str) -> None:
    """The README's upload and download: a base64 argument in, an embedded
    resource out, the same bytes and name."""

    async def body(client: Client) -> None:
        listed = await client.call_tool("contacts__list", {"page_size": 1})
        contact = _payload(listed)["results"][0]["id"]
        sent = "Ada's CV, r\u00e9sum\u00e9\n".encode()
        arguments = {"contact": contact, "file": base64.b64encode(sent).decode()}
        made = await client.call_tool(
            "attachments__create", {**arguments, "file_filename": "cv.txt"}
        )
        assert not made.is_error, made
        got = await client.call_tool(
            "attachments__download", {"id": _payload(made)["id"]}
        )
        assert not got.is_error, got
        [summary, embedded] = got.content
        assert isinstance(embedded, types.EmbeddedResource), got
        resource = embedded.resource
        assert isinstance(resource, types.TextResourceContents), resource
        assert resource.text.encode() == sent
        assert resource.mime_type == "text/plain"
        assert isinstance(summary, types.TextContent), got
        assert "cv.txt" in summary.text

    live.run(body, mode)


def test_the_demo_takes_a_3_mb_file_and_gives_it_back(live: LiveServer) -> None:
    """The demo's settings as shipped: FILE_MAX_BYTES (4 MiB) and the
    request limit the files hook derives from it agree (issue 26 item 3)."""
    sent = bytes(range(256)) * (3_000_000 // 256) + b"\xff" * (3_000_000 % 256)

    async def body(client: Client) -> None:
        listed = await client.call_tool("contacts__list", {"page_size": 1})
        contact = _payload(listed)["results"][0]["id"]
        file = base64.b64encode(sent).decode()
        arguments = {"contact": contact, "file": file, "file_filename": "big.bin"}
        made = await client.call_tool("attachments__create", arguments)
        assert not made.is_error, made
        got = await client.call_tool(
            "attachments__download", {"id": _payload(made)["id"]}
        )
        assert not got.is_error, got.content[0]
        embedded = got.content[1]
        assert isinstance(embedded, types.EmbeddedResource), got.content[0]
        resource = embedded.resource
        assert isinstance(resource, types.BlobResourceContents), resource
        assert base64.b64decode(resource.blob) == sent

    live.run(body, "auto")


@pytest.mark.parametrize("mode", ["auto", "legacy"])
@pytest.mark.parametrize("accept", [True, False])
def test_a_client_that_elicits_confirms_a_delete(
    live: LiveServer, mode: str, accept: bool
) -> None:
    """2026-07-28 asks the person (MRTR); the stateless handshake era cannot,
    and answers with a token the agent sends back (docs/safety.md)."""
    asked: list[str] = []

    async def elicit(context: Any, params: types.ElicitRequestParams) -> Any:
        asked.append(params.message)
        if accept:
            return types.ElicitResult(action="accept", content={"confirm": True})
        return types.ElicitResult(action="decline")

    async def body(client: Client) -> None:
        new = {"email": f"grace.{mode}.{accept}@example.com", "first_name": "Grace"}
        key = {"id": _payload(await client.call_tool("contacts__create", new))["id"]}
        result = await client.call_tool("contacts__destroy", key)
        if mode == "legacy":
            assert not asked
            assert _error(result)["code"] == "confirmation_required"
            return
        assert asked == ["Delete contact «Grace»?"]
        assert result.is_error is not accept, result
        if not accept:
            assert _error(result)["code"] == "confirmation_declined"
        found = await client.call_tool("contacts__retrieve", key)
        assert found.is_error is accept, found

    live.run(body, mode, elicitation_callback=elicit)


def test_auto_mode_adopts_the_modern_revision(live: LiveServer) -> None:
    """``auto`` probes ``server/discover`` and stays on 2026-07-28."""

    async def body(client: Client) -> None:
        assert client.session.initialize_result is None
        discovered = client.session.discover_result
        assert discovered is not None
        assert "2026-07-28" in discovered.supported_versions
        assert set(discovered.supported_versions) >= SERVER_VERSIONS
        assert client.protocol_version == "2026-07-28"
        assert client.server_info is not None
        assert client.server_info.name == "frisian-mcp-demo"

    live.run(body, "auto")


def test_legacy_mode_runs_the_handshake(live: LiveServer) -> None:
    """``legacy`` initializes and negotiates a handshake-era version."""

    async def body(client: Client) -> None:
        assert client.session.discover_result is None
        initialized = client.session.initialize_result
        assert initialized is not None
        assert initialized.protocol_version in SERVER_VERSIONS
        assert client.protocol_version == initialized.protocol_version
        assert client.server_info is not None
        assert client.server_info.name == "frisian-mcp-demo"

    live.run(body, "legacy")
