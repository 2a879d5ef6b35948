"""Live demo servers for end-to-end tests: a throwaway database and a server.

``demo_database`` yields the environment a server needs on a fresh, migrated
and seeded demo database of its own (a temporary SQLite file, or a database
on the PostgreSQL server ``DATABASE_URL`` names). The demo is migrated and
seeded once per test process, into a template; each database is a copy of
it (a file copy, or PostgreSQL's ``CREATE DATABASE ... TEMPLATE``), and
``drop_templates`` removes the templates when the session ends; ``serve`` starts a server
on a free port with that environment and yields its base URL: gunicorn with
``demo_project.wsgi`` by default, or ``server="uvicorn"`` with
``demo_project.asgi`` (``server="runserver"``: Django's development
server, on a ``port`` chosen beforehand). Several servers may share one database: that is how
separate worker processes are tested; ``serve(..., workers=4)`` starts one
gunicorn with several sync workers, for concurrent load. ``serve(...,
port=free_port())`` binds a port chosen beforehand, for a server whose
settings must name its own URL (the OAuth tests' ``DEMO_PUBLIC_URL``).
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import httpx
import pytest

if TYPE_CHECKING:
    from mcp import Client

ROOT = Path(__file__).resolve().parent.parent
#: The servers ``serve`` runs; parametrize live tests over it.
SERVERS = ("gunicorn", "uvicorn")
#: How each server logs the address it bound (port 0: the kernel's pick).
LISTENING = {
    "gunicorn": re.compile(r"Listening at: (http://127\.0\.0\.1:\d+)"),
    "uvicorn": re.compile(r"Uvicorn running on (http://127\.0\.0\.1:\d+)"),
    "runserver": re.compile(
        r"Starting development server at (http://127\.0\.0\.1:\d+)"
    ),
}


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on at the moment."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _postgres(url: str, statement: str, *databases: str) -> None:
    """Run ``statement`` on the ``postgres`` maintenance database of ``url``.

    ``databases`` fill the statement's ``{}`` placeholders, quoted as names.
    """
    import psycopg
    from psycopg import sql

    dsn = urlsplit(url)._replace(scheme="postgresql", path="/postgres").geturl()
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(sql.SQL(statement).format(*map(sql.Identifier, databases)))


#: Per process: the directory of the SQLite template, the PostgreSQL
#: template's URL. Filled on first use.
_templates: dict[str, str] = {}


def _is_postgres(url: str) -> bool:
    return urlsplit(url).scheme in ("postgres", "postgresql", "pgsql")


def _migrate_and_seed(db_url: str) -> None:
    """Run the demo's ``migrate`` and ``seed_demo`` on ``db_url``."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "demo_project.settings",
        "DATABASE_URL": db_url,
    }
    for command in ("migrate", "seed_demo"):
        args = [sys.executable, "manage.py", command, "--verbosity", "0"]
        done = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True)
        if done.returncode:
            pytest.fail(f"{command} failed:\n{done.stdout}{done.stderr}")


def demo_sqlite(path: Path) -> str:
    """Copy the seeded demo database to the SQLite file ``path``; its URL."""
    if "sqlite" not in _templates:
        _templates["sqlite"] = tempfile.mkdtemp(prefix="frisian-demo-template-")
        _migrate_and_seed(f"sqlite:///{Path(_templates['sqlite']) / 'db.sqlite3'}")
    # The demo runs SQLite in WAL mode: take its companion files too, if a
    # checkpoint left any.
    for suffix in ("", "-wal"):
        source = Path(_templates["sqlite"]) / f"db.sqlite3{suffix}"
        if source.exists():
            shutil.copyfile(source, f"{path}{suffix}")
    return f"sqlite:///{path}"


def _postgres_copy(outer: str, name: str) -> str:
    """Create the PostgreSQL database ``name`` from the seeded template."""
    if "postgres" not in _templates:
        template = f"frisian_mcp_template_{os.getpid()}"
        _postgres(outer, "DROP DATABASE IF EXISTS {} WITH (FORCE)", template)
        _postgres(outer, "CREATE DATABASE {}", template)
        _templates["postgres"] = urlsplit(outer)._replace(path=f"/{template}").geturl()
        _migrate_and_seed(_templates["postgres"])
    template = urlsplit(_templates["postgres"]).path.lstrip("/")
    _postgres(outer, "DROP DATABASE IF EXISTS {} WITH (FORCE)", name)
    _postgres(outer, "CREATE DATABASE {} TEMPLATE {}", name, template)
    return urlsplit(outer)._replace(path=f"/{name}").geturl()


def drop_templates() -> None:
    """Remove this process's templates (``pytest_sessionfinish``)."""
    if "sqlite" in _templates:
        shutil.rmtree(_templates.pop("sqlite"), ignore_errors=True)
    if "postgres" in _templates:
        url = _templates.pop("postgres")
        template = urlsplit(url).path.lstrip("/")
        _postgres(url, "DROP DATABASE IF EXISTS {} WITH (FORCE)", template)


@contextmanager
def demo_database(tmp: Path, name: str) -> Iterator[dict[str, str]]:
    """A migrated, seeded demo database; yields the environment to serve it."""
    outer = os.environ.get("DATABASE_URL", "")
    pg_name = None
    if _is_postgres(outer):
        pg_name = f"frisian_mcp_{name}_{os.getpid()}"
        db_url = _postgres_copy(outer, pg_name)
    else:
        db_url = demo_sqlite(tmp / "db.sqlite3")
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "demo_project.settings",
        "DATABASE_URL": db_url,
        "PYTHONUNBUFFERED": "1",
        # gunicorn >= 25.1 opens a control socket under $XDG_RUNTIME_DIR
        # (else ~/.gunicorn); keep it in our temp dir, away from other servers.
        "XDG_RUNTIME_DIR": str(tmp),
        # Uploaded files go to the temp dir, never into the repository.
        "DEMO_MEDIA_ROOT": str(tmp / "media"),
    }
    try:
        yield env
    finally:
        if pg_name is not None:
            _postgres(outer, "DROP DATABASE IF EXISTS {} WITH (FORCE)", pg_name)


@contextmanager
def serve(
    env: Mapping[str, str],
    log: Path,
    workers: int = 1,
    server: str = "gunicorn",
    port: int = 0,
) -> Iterator[str]:
    """``server`` serving the demo with ``env``; yields its base URL.

    gunicorn runs ``demo_project.wsgi`` with sync workers; with several
    ``workers``, this returns once every worker has booted, so load sent at
    once is spread over all of them instead of queueing behind the first
    one up. uvicorn runs ``demo_project.asgi`` in one process.
    """
    if server == "uvicorn" and workers != 1:
        raise ValueError("serve() runs uvicorn with one worker only.")
    proc = None
    try:
        with log.open("w") as out:
            proc = subprocess.Popen(
                _command(server, workers, port),
                cwd=ROOT,
                env=dict(env),
                stdout=out,
                stderr=out,
            )
        base = _wait_until_up(proc, log, LISTENING[server])
        deadline = time.monotonic() + 30
        while (
            server == "gunicorn"
            and log.read_text().count("Booting worker with pid") < workers
        ):
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"{workers} workers did not boot:\n{log.read_text()}")
            time.sleep(0.1)
        yield base
    finally:
        if proc is not None:
            proc.terminate()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def _command(server: str, workers: int, port: int = 0) -> list[str]:
    """The command line of ``server`` on 127.0.0.1:``port``, access log on."""
    if server == "gunicorn":
        return [
            *(sys.executable, "-m", "gunicorn", "demo_project.wsgi:application"),
            *("-b", f"127.0.0.1:{port}", "-w", str(workers), "-k", "sync"),
            *("--access-logfile", "-"),
        ]
    if server == "uvicorn":
        # Django speaks no ASGI lifespan; "off" keeps the log free of the
        # notice that says so.
        return [
            *(sys.executable, "-m", "uvicorn", "demo_project.asgi:application"),
            *("--host", "127.0.0.1", "--port", str(port), "--lifespan", "off"),
        ]
    if server == "runserver":
        # Django's development server, for what only it does (never in
        # SERVERS: not a production server). It needs a port chosen first.
        return [
            *(sys.executable, "manage.py", "runserver", "--noreload"),
            f"127.0.0.1:{port}",
        ]
    raise ValueError(f"Unknown server {server!r}: choose one of {SERVERS}.")


def _wait_until_up(
    proc: subprocess.Popen[bytes], log: Path, listening: re.Pattern[str]
) -> str:
    """Wait (30 s at most) until the server answers HTTP; return its base URL."""
    deadline = time.monotonic() + 30
    base = None
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"server exited with {proc.returncode}:\n{log.read_text()}")
        if base is None:
            found = listening.search(log.read_text())
            base = found and found[1]
        if base is not None:
            try:
                httpx.get(f"{base}/mcp", timeout=2)  # 405: POST only, but it is up
                return base
            except httpx.TransportError:
                pass
        time.sleep(0.1)
    pytest.fail(f"server did not answer within 30 s:\n{log.read_text()}")


def count_contacts(base: str, email: str) -> int:
    """The served demo's contacts with ``email``, asked over MCP as its
    ``demo`` user by a plain (non-browser) client."""
    from demo_project.management.commands.seed_demo import DEMO_TOKEN

    response = httpx.post(
        f"{base}/mcp",
        json={
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {
                "name": "contacts__list",
                "arguments": {"filters": {"email": email}},
            },
        },
        headers={
            "Accept": "application/json",
            "Authorization": f"Token {DEMO_TOKEN}",
            "MCP-Protocol-Version": "2025-11-25",
        },
        timeout=10,
    )
    count: int = response.json()["result"]["structuredContent"]["count"]
    return count


def sdk_run(
    url: str,
    log: Path,
    body: Callable[[Client], Awaitable[None]],
    mode: str,
    timeout: float = 30,
    **options: Any,
) -> None:
    """Run ``body`` with the official SDK's client connected to ``url`` in
    ``mode``, as the demo user (its token); ``options`` go to ``Client``.
    Prints the server's ``log`` if it fails."""
    import anyio
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    from demo_project.management.commands.seed_demo import DEMO_TOKEN

    async def main() -> None:
        with anyio.fail_after(timeout):
            http = httpx2.AsyncClient(headers={"Authorization": f"Token {DEMO_TOKEN}"})
            transport = streamable_http_client(url, http_client=http)
            async with Client(transport, mode=mode, **options) as client:
                await body(client)

    try:
        anyio.run(main)
    except Exception:
        print(f"--- server log ({log}) ---\n{log.read_text()}")
        raise
