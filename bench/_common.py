"""Machinery shared by the benchmark scripts of ``bench/``.

The scripts are run as files (``.venv/bin/python bench/bench_x.py``), so
Python puts ``bench/`` first on ``sys.path`` and they import this module as
``_common``. It holds what every script would otherwise repeat:

* a throw-away database (:func:`temporary_database`,
  :func:`postgres_database`): a temporary SQLite file or a PostgreSQL database
  created through the server's ``postgres`` database, refused if it exists
  already, removed on exit;
* the environment of the benchmark's Django processes (:func:`django_env`)
  and ``manage.py`` commands run in them (:func:`manage`);
* the demo served by gunicorn (:func:`gunicorn`), started on a free port and
  stopped on exit;
* clean-up on SIGTERM (:func:`raise_on_sigterm`) and the scripts' entry point
  (:func:`run_script`);
* the demo's token, JSON-RPC bodies, response checks, percentiles, the
  machine's description and the ``--json`` output.

Nothing here imports Django: the parent process of a benchmark never sets it
up (the in-process parts do, in their own process or function).
"""

from __future__ import annotations

import ast
import contextlib
import json
import math
import os
import platform
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx

#: The repository root: the working directory of every Django process.
ROOT = Path(__file__).resolve().parent.parent
PROTOCOL_VERSION = "2025-11-25"
#: Headers of an MCP request (without authentication).
MCP_HEADERS = {
    "Content-Type": "application/json",
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": PROTOCOL_VERSION,
}
#: Headers of a REST request (without authentication).
REST_HEADERS = {"Content-Type": "application/json", "Accept": "application/json"}
#: Seconds gunicorn may take to answer its first request.
READY_TIMEOUT = 60.0
#: The module that seeds the demo's users and defines their tokens.
SEED_MODULE = ROOT / "demo_project" / "management" / "commands" / "seed_demo.py"
#: ``manage.py`` commands that create the demo's tables, and its users.
MIGRATE = ("migrate", "--no-input", "--verbosity", "0")
SEED = ("seed_demo",)
_POSTGRES_SCHEMES = ("postgres", "postgresql", "pgsql")


class BenchError(RuntimeError):
    """The benchmark cannot run, or a response was not the expected one."""


# -- the demo's token ------------------------------------------------------------


def demo_token() -> str:
    """``DEMO_TOKEN`` of ``seed_demo``, read from its source.

    Read, not imported: importing the command imports Django models, which
    needs configured settings the benchmark's parent process does not have.
    """
    tree = ast.parse(SEED_MODULE.read_text(), str(SEED_MODULE))
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and any(getattr(t, "id", None) == "DEMO_TOKEN" for t in node.targets)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            return node.value.value
    raise BenchError(f"No DEMO_TOKEN string in {SEED_MODULE}.")


def auth_headers() -> dict[str, str]:
    """The header that authenticates a request as the seeded ``demo`` user."""
    return {"Authorization": f"Token {demo_token()}"}


# -- databases -------------------------------------------------------------------


@dataclass(frozen=True)
class Database:
    """A throw-away database: its URL for Django and a label for the report."""

    url: str
    label: str

    @property
    def dsn(self) -> str:
        """The URL with the ``postgresql`` scheme psycopg accepts."""
        return urlunsplit(urlsplit(self.url)._replace(scheme="postgresql"))


@contextlib.contextmanager
def temporary_database(
    url: str | None, *, prefix: str = "frisian-bench-", show_directory: bool = False
) -> Iterator[Database]:
    """Create the database ``url`` names (a temp SQLite file if ``None``).

    ``url`` is ``sqlite:////path`` (a file that must not exist) or
    ``postgres://user@host:port/name`` (see :func:`postgres_database`). The
    temporary directory of the default file is named with ``prefix``; with
    ``show_directory`` a SQLite label names the file's directory. The
    database is removed on exit. One that already exists is refused rather
    than reused or dropped: it may hold someone's data.
    """
    if url is None:
        directory = tempfile.mkdtemp(prefix=prefix)
        try:
            with _sqlite_file(
                f"sqlite:///{directory}/bench.sqlite3", show_directory
            ) as database:
                yield database
        finally:
            shutil.rmtree(directory, ignore_errors=True)
        return
    scheme = urlsplit(url).scheme
    if scheme == "sqlite":
        with _sqlite_file(url, show_directory) as database:
            yield database
    elif scheme in _POSTGRES_SCHEMES:
        with postgres_database(url) as database:
            yield database
    else:
        raise BenchError(f"--database-url: unsupported scheme {scheme!r}.")


@contextlib.contextmanager
def _sqlite_file(url: str, show_directory: bool) -> Iterator[Database]:
    path = Path(urlsplit(url).path[1:])  # sqlite:////tmp/x -> /tmp/x
    if not path.name or path.exists():
        raise BenchError(f"--database-url: {path} must be a new file's path.")
    label = f"SQLite {sqlite3.sqlite_version}"
    try:
        yield Database(url, f"{label} ({path.parent})" if show_directory else label)
    finally:
        for suffix in ("", "-journal", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)


@contextlib.contextmanager
def postgres_database(url: str) -> Iterator[Database]:
    """Create the PostgreSQL database ``url`` names; drop it on exit.

    It is created and dropped through the server's ``postgres`` database.
    The label reads like ``PostgreSQL 15.20``. A database that already
    exists is refused rather than reused or dropped.
    """
    import psycopg
    from psycopg import errors, sql

    parts = urlsplit(url)
    if parts.scheme not in _POSTGRES_SCHEMES:
        raise BenchError("--database-url must be a postgres:// URL.")
    name = parts.path.lstrip("/")
    if not name or name in ("postgres", "template0", "template1"):
        raise BenchError("--database-url must name a new, throw-away database.")
    admin_url = urlunsplit(parts._replace(scheme="postgresql", path="/postgres"))
    with psycopg.connect(admin_url, autocommit=True) as admin:
        version = admin.info.server_version
        try:
            admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        except errors.DuplicateDatabase as exc:
            raise BenchError(
                f"Database {name!r} already exists; drop it or name another one."
            ) from exc
    try:
        yield Database(url, f"PostgreSQL {version // 10000}.{version % 10000}")
    finally:
        force = sql.SQL(" WITH (FORCE)") if version >= 130000 else sql.SQL("")
        drop = sql.SQL("DROP DATABASE IF EXISTS {}").format(sql.Identifier(name))
        with psycopg.connect(admin_url, autocommit=True) as admin:
            admin.execute(drop + force)


# -- Django processes ------------------------------------------------------------


def django_env(url: str, pycache: Path | None = None) -> dict[str, str]:
    """The environment of every Django process of a benchmark.

    The demo's settings with ``DJANGO_DEBUG=0`` (with DEBUG on, Django keeps
    every query in memory and the numbers would measure that) on the database
    ``url``. With ``pycache``, bytecode is cached there (outside the working
    tree), as an installed project's would be, so start-up does not compile
    every module again when the environment sets ``PYTHONDONTWRITEBYTECODE``.
    """
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "demo_project.settings",
        "DJANGO_DEBUG": "0",
        "DATABASE_URL": url,
        "PYTHONPATH": str(ROOT),
    }
    if pycache is not None:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(pycache)
    return env


def manage(url: str, *commands: Sequence[str]) -> None:
    """Run each ``manage.py`` command on ``url`` in a subprocess, in order.

    ``manage(url, MIGRATE, SEED)`` creates the tables and the demo's users
    and tokens. A failing command raises :class:`BenchError` with its output.
    """
    for command in commands:
        result = subprocess.run(
            [sys.executable, "manage.py", *command],
            cwd=ROOT,
            env=django_env(url),
            capture_output=True,
            text=True,
            check=False,
        )
        if result.returncode:
            raise BenchError(
                f"manage.py {command[0]} failed:\n{result.stdout}{result.stderr}"
            )


# -- gunicorn --------------------------------------------------------------------


@dataclass(frozen=True)
class Server:
    """A running gunicorn: its base URL and the master's pid."""

    base_url: str
    pid: int


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def stop_process(process: subprocess.Popen[Any]) -> None:
    """Terminate ``process`` and wait for it; kill it after 10 s."""
    if process.poll() is None:
        process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@contextlib.contextmanager
def gunicorn(
    url: str,
    work_dir: Path,
    *,
    headers: dict[str, str],
    workers: int = 1,
    timeout: int | None = None,
    env: dict[str, str] | None = None,
) -> Iterator[Server]:
    """Serve the demo on ``url``'s database with ``workers`` sync workers.

    gunicorn listens on 127.0.0.1, a free port, logs to
    ``work_dir/gunicorn.log`` and keeps its control socket in
    ``work_dir/runtime``; ``timeout`` is its worker timeout (its default if
    ``None``); ``env`` adds to or overrides its environment (another
    settings module, say). Yields once every worker has booted and ``GET /api/contacts/``
    with ``headers`` answers 200; stops gunicorn on exit.
    """
    port = free_port()
    log_path = work_dir / "gunicorn.log"
    runtime_dir = work_dir / "runtime"
    runtime_dir.mkdir(exist_ok=True)
    command = [
        sys.executable,
        "-m",
        "gunicorn",
        "demo_project.wsgi:application",
        f"--workers={workers}",
        "--worker-class=sync",
        f"--bind=127.0.0.1:{port}",
        "--log-level=info",  # "Booting worker" lines tell when all are up
        "--graceful-timeout=5",
    ]
    if timeout is not None:
        command.append(f"--timeout={timeout}")
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            command,
            cwd=ROOT,
            env={**django_env(url), "XDG_RUNTIME_DIR": str(runtime_dir), **(env or {})},
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    base_url = f"http://127.0.0.1:{port}"
    try:
        _wait_ready(process, base_url, log_path, workers, headers)
        yield Server(base_url, process.pid)
    finally:
        stop_process(process)


def _wait_ready(
    process: subprocess.Popen[bytes],
    base_url: str,
    log: Path,
    workers: int,
    headers: dict[str, str],
) -> None:
    deadline = time.monotonic() + READY_TIMEOUT
    status = None
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise BenchError(f"gunicorn exited early:\n{log.read_text()[-2000:]}")
        booted = log.read_text().count("Booting worker with pid")
        with contextlib.suppress(httpx.TransportError):
            status = httpx.get(
                f"{base_url}/api/contacts/", headers=headers, timeout=5
            ).status_code
            if status == 200 and booted >= workers:
                return
            if status in (401, 403):
                raise BenchError(f"The demo token was refused (HTTP {status}).")
        time.sleep(0.1)
    raise BenchError(
        f"gunicorn not ready in {READY_TIMEOUT:g}s (last status {status}):\n"
        f"{log.read_text()[-2000:]}"
    )


# -- JSON-RPC and responses ------------------------------------------------------


def jsonrpc_body(
    method: str,
    params: dict[str, Any],
    request_id: int = 1,
    *,
    compact: bool = False,
) -> bytes:
    """An encoded JSON-RPC request (``compact``: no spaces after separators)."""
    message = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
    separators = (",", ":") if compact else None
    return json.dumps(message, separators=separators).encode()


def call_body(
    tool: str, arguments: dict[str, Any], request_id: int = 1, *, compact: bool = False
) -> bytes:
    """An encoded ``tools/call`` request of ``tool`` with ``arguments``."""
    params = {"name": tool, "arguments": arguments}
    return jsonrpc_body("tools/call", params, request_id, compact=compact)


def show(response: httpx.Response) -> str:
    """A response's status and the start of its body, for error messages."""
    return f"HTTP {response.status_code} {response.text[:500]!r}"


def expect_json(response: httpx.Response, status: int, what: str) -> dict[str, Any]:
    """The JSON object of a response with ``status``, or :class:`BenchError`.

    A JSON-RPC error (an ``error`` member) is refused as well.
    """
    if response.status_code != status:
        raise BenchError(f"{what}: {show(response)}")
    try:
        data = response.json()
    except ValueError as exc:
        raise BenchError(f"{what}: not JSON: {show(response)}") from exc
    if not isinstance(data, dict) or "error" in data:
        raise BenchError(f"{what}: unexpected body: {show(response)}")
    return data


def contact_fields(
    script: str, prefix: str, run_id: str, number: int, side: str
) -> dict[str, str]:
    """A new contact's fields, made by ``bench/<script>``.

    The email is unique per ``run_id``, ``number`` and ``side``.
    """
    return {
        "email": f"{prefix}-{run_id}-{number}-{side}@example.com",
        "first_name": "Bench",
        "last_name": f"Contact {number}",
        "phone": "+31 58 555 0100",
        "notes": f"Created by bench/{script}.",
    }


def check_contact(data: Any, sent: dict[str, str], what: str) -> str:
    """The id of the contact ``data``, which must be the one ``sent``."""
    if not isinstance(data, dict) or data.get("email") != sent["email"]:
        raise BenchError(f"{what}: the contact sent did not come back: {data!r}")
    return str(data["id"])


def check_id(data: Any, contact_id: str, what: str) -> None:
    """Check that ``data`` is the contact ``contact_id``."""
    if not isinstance(data, dict) or data.get("id") != contact_id:
        raise BenchError(f"{what}: expected contact {contact_id}, got {data!r}")


# -- statistics and output -------------------------------------------------------


def percentile(sorted_values: list[float], p: float) -> float:
    """Nearest-rank percentile ``p`` (0-100) of already sorted values."""
    rank = max(1, math.ceil(p / 100 * len(sorted_values)))
    return sorted_values[rank - 1]


def machine() -> str:
    """The machine for a report, such as ``x86_64, 2 CPUs``."""
    return f"{platform.machine()}, {os.cpu_count()} CPUs"


def progress(message: str) -> None:
    """Print a progress line on stderr (stdout holds the report)."""
    print(message, file=sys.stderr, flush=True)


def write_json(path: Path, data: Any, what: str) -> None:
    """Write ``data`` as indented JSON to ``path``; say so on stderr."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n")
    print(f"{what} written to {path}.", file=sys.stderr)


# -- entry point -----------------------------------------------------------------


def raise_on_sigterm() -> None:
    """Turn SIGTERM into :class:`SystemExit`, so ``finally`` clean-up runs.

    Ctrl-C raises :class:`KeyboardInterrupt`, which unwinds the same way.
    """

    def handler(signum: int, frame: Any) -> None:
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, handler)


def run_script(main: Callable[[list[str]], int], name: str) -> None:
    """Exit with ``main(sys.argv[1:])``; a :class:`BenchError` as ``name: ...``."""
    try:
        sys.exit(main(sys.argv[1:]))
    except BenchError as exc:
        sys.exit(f"{name}: {exc}")
