"""End to end: the official ``mcp`` SDK client against a live demo server.

The rest of the suite drives the view through Django's test client. This
module proves the same behaviour holds over real HTTP for a third-party
client: it migrates and seeds a throwaway database, serves ``demo_project``
with gunicorn in a subprocess, and connects ``mcp.Client`` in both its modes.
``legacy`` goes straight to ``initialize``; ``auto`` first probes
``server/discover`` at 2026-07-28, must get -32022 and fall back to the
handshake. Either way the client lists the contacts tools and walks one
contact through create, retrieve, partial update, update and delete.

SQLite by default; when ``DATABASE_URL`` names PostgreSQL, the server gets its
own database on that server, created and dropped here with psycopg.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import anyio
import httpx
import pytest
from mcp import Client

pytestmark = pytest.mark.live

ROOT = Path(__file__).resolve().parent.parent
CONTACT_TOOLS = {
    f"contacts__{a}"
    for a in ("list", "retrieve", "create", "update", "partial_update", "destroy")
}
LISTENING = re.compile(r"Listening at: (http://127\.0\.0\.1:\d+)")
#: The handshake-era versions the server speaks (``initialize`` negotiates one).
SERVER_VERSIONS = {"2025-03-26", "2025-06-18", "2025-11-25"}
MODES = pytest.mark.parametrize("mode", ["auto", "legacy"])


class LiveServer:
    """A gunicorn process serving the demo, with its output in ``log``."""

    def __init__(self, log: Path) -> None:
        self.log = log
        self.url = ""

    def run(self, body: Callable[[Client], Awaitable[None]], mode: str) -> None:
        """Run ``body`` with a connected client; show the server log on failure."""

        async def main() -> None:
            with anyio.fail_after(30):
                async with Client(self.url, mode=mode) as client:
                    await body(client)

        try:
            anyio.run(main)
        except Exception:
            print(f"--- server log ({self.log}) ---\n{self.log.read_text()}")
            raise


def _postgres(url: str, dbname: str, statement: str) -> None:
    """Run ``statement`` on the ``postgres`` maintenance database of ``url``."""
    import psycopg
    from psycopg import sql

    dsn = urlsplit(url)._replace(scheme="postgresql", path="/postgres").geturl()
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(sql.SQL(statement).format(sql.Identifier(dbname)))


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """Migrate and seed a fresh database, serve the demo, yield the server."""
    tmp = tmp_path_factory.mktemp("e2e")
    server = LiveServer(tmp / "server.log")
    outer = os.environ.get("DATABASE_URL", "")
    pg_name = None
    if urlsplit(outer).scheme in ("postgres", "postgresql", "pgsql"):
        pg_name = f"frisian_mcp_e2e_{os.getpid()}"
        _postgres(outer, pg_name, "DROP DATABASE IF EXISTS {} WITH (FORCE)")
        _postgres(outer, pg_name, "CREATE DATABASE {}")
        db_url = urlsplit(outer)._replace(path=f"/{pg_name}").geturl()
    else:
        db_url = f"sqlite:///{tmp / 'db.sqlite3'}"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "demo_project.settings",
        "DATABASE_URL": db_url,
        "PYTHONUNBUFFERED": "1",
        # gunicorn >= 25.1 opens a control socket under $XDG_RUNTIME_DIR
        # (else ~/.gunicorn); keep it in our temp dir, away from other servers.
        "XDG_RUNTIME_DIR": str(tmp),
    }
    proc = None
    try:
        with server.log.open("w") as log:
            for command in ("migrate", "seed_demo"):
                args = [sys.executable, "manage.py", command]
                done = subprocess.run(args, cwd=ROOT, env=env, stdout=log, stderr=log)
                if done.returncode:
                    pytest.fail(f"{command} failed:\n{server.log.read_text()}")
            # Port 0: the kernel picks a free port, gunicorn logs which one.
            gunicorn = ["-m", "gunicorn", "demo_project.wsgi:application"]
            args = [sys.executable, *gunicorn, "-b", "127.0.0.1:0", "-w", "1"]
            args += ["--access-logfile", "-"]
            proc = subprocess.Popen(args, cwd=ROOT, env=env, stdout=log, stderr=log)
        server.url = _wait_until_up(proc, server.log) + "/mcp"
        yield server
    finally:
        if proc is not None:
            proc.terminate()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if pg_name is not None:
            _postgres(outer, pg_name, "DROP DATABASE IF EXISTS {} WITH (FORCE)")


def _wait_until_up(proc: subprocess.Popen[bytes], log: Path) -> str:
    """Wait (30 s at most) until the server answers HTTP; return its base URL."""
    deadline = time.monotonic() + 30
    base = None
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"server exited with {proc.returncode}:\n{log.read_text()}")
        if base is None:
            found = LISTENING.search(log.read_text())
            base = found and found[1]
        if base is not None:
            try:
                httpx.get(f"{base}/mcp", timeout=2)  # 405: POST only, but it is up
                return base
            except httpx.TransportError:
                pass
        time.sleep(0.1)
    pytest.fail(f"server did not answer within 30 s:\n{log.read_text()}")


def _payload(result: Any) -> dict[str, Any]:
    """The structured content, checked against the text block that mirrors it."""
    assert isinstance(result.structured_content, dict)
    assert json.loads(result.content[0].text) == result.structured_content
    return result.structured_content


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
            assert by_name[name].annotations.read_only_hint is read_only, name

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

        result = await client.call_tool("contacts__destroy", key)
        assert not result.is_error, result

        result = await client.call_tool("contacts__retrieve", key)
        assert result.is_error, result
        assert _payload(result)["error"]["code"] == "not_found"

    live.run(body, mode)


def test_auto_mode_falls_back_to_handshake(live: LiveServer) -> None:
    """``auto`` probes ``server/discover``, is refused, and runs ``initialize``."""

    async def body(client: Client) -> None:
        assert client.session.discover_result is None
        initialized = client.session.initialize_result
        assert initialized is not None
        assert initialized.protocol_version in SERVER_VERSIONS
        assert client.protocol_version == initialized.protocol_version
        assert client.server_info is not None
        assert client.server_info.name == "frisian-mcp-demo"

    live.run(body, "auto")
