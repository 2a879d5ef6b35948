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
* the demo served by gunicorn or uvicorn (:func:`server`, :func:`gunicorn`),
  started on a free port and stopped on exit;
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
def postgres_database(url: str, template: str | None = None) -> Iterator[Database]:
    """Create the PostgreSQL database ``url`` names; drop it on exit.

    It is created and dropped through the server's ``postgres`` database,
    as a copy of the database ``template`` if given (see
    :func:`postgres_template`). The label reads like ``PostgreSQL 15.20``.
    A database that already exists is refused rather than reused or dropped.
    """
    import psycopg
    from psycopg import errors, sql

    parts = urlsplit(url)
    if parts.scheme not in _POSTGRES_SCHEMES:
        raise BenchError("--database-url must be a postgres:// URL.")
    name = parts.path.lstrip("/")
    if not name or name in ("postgres", "template0", "template1"):
        raise BenchError("--database-url must name a new, throw-away database.")
    admin_url = _admin_url(url)
    create = sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name))
    if template is not None:
        create += sql.SQL(" TEMPLATE {}").format(sql.Identifier(template))
    with psycopg.connect(admin_url, autocommit=True) as admin:
        version = admin.info.server_version
        try:
            admin.execute(create)
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


def _admin_url(url: str) -> str:
    """The URL of the server's ``postgres`` database, for psycopg."""
    parts = urlsplit(url)
    return urlunsplit(parts._replace(scheme="postgresql", path="/postgres"))


#: The prefix of the template databases :func:`postgres_template` keeps.
TEMPLATE_PREFIX = "frisian_bench_tpl_"
#: How many of them are kept on a server (the newest; the others dropped).
TEMPLATES_KEPT = 4


def schema_digest(*extra: str) -> str:
    """A digest of what a migrated, seeded demo database depends on.

    Every migration of the demo and of frisian_mcp, the demo's settings and
    seed command, Django's and DRF's versions (their own migrations), and
    ``extra`` (a seed script, the row counts).
    """
    import hashlib
    import importlib.metadata

    digest = hashlib.sha256()
    files = sorted(
        [
            *ROOT.glob("demo_project/**/migrations/*.py"),
            *ROOT.glob("frisian_mcp/**/migrations/*.py"),
            ROOT / "demo_project" / "settings.py",
            SEED_MODULE,
        ]
    )
    for path in files:
        digest.update(str(path.relative_to(ROOT)).encode() + path.read_bytes())
    for library in ("django", "djangorestframework"):
        digest.update(importlib.metadata.version(library).encode())
    for part in extra:
        digest.update(part.encode())
    return digest.hexdigest()[:20]


def postgres_template(url: str, key: str, build: Callable[[str], None]) -> str:
    """The name of a template database for ``key``, built once per server.

    ``build(url)`` fills a new database (migrates and seeds it, say) the
    first time; later runs with the same ``key`` (:func:`schema_digest`)
    copy the template instead (``CREATE DATABASE ... TEMPLATE``, a fraction
    of a second). A template is built under a name of its own and renamed
    when whole, so a run never copies a half-built one, and accepts no
    connections, so copies never wait for one. The newest
    :data:`TEMPLATES_KEPT` templates are kept, older ones dropped.
    """
    import psycopg
    from psycopg import errors, sql

    name = f"{TEMPLATE_PREFIX}{key}"
    admin_url = _admin_url(url)
    with psycopg.connect(admin_url, autocommit=True) as admin:
        found = admin.execute(
            "SELECT 1 FROM pg_database WHERE datname = %s AND datistemplate",
            (name,),
        ).fetchone()
    if found:
        return name
    building = f"{name}_{os.getpid()}_{int(time.time())}"
    built = urlunsplit(urlsplit(url)._replace(path=f"/{building}"))
    with postgres_database(built) as database:
        build(database.url)
        with psycopg.connect(admin_url, autocommit=True) as admin:
            admin.execute(
                sql.SQL(
                    "ALTER DATABASE {} WITH IS_TEMPLATE true ALLOW_CONNECTIONS false"
                ).format(sql.Identifier(building))
            )
            try:
                admin.execute(
                    sql.SQL("ALTER DATABASE {} RENAME TO {}").format(
                        sql.Identifier(building), sql.Identifier(name)
                    )
                )
            except errors.DuplicateDatabase:  # another run built it meanwhile
                _drop_template(admin, building)
            else:
                _prune_templates(admin)
    return name


def _drop_template(admin: Any, name: str) -> None:
    from psycopg import sql

    admin.execute(
        sql.SQL("ALTER DATABASE {} WITH IS_TEMPLATE false").format(sql.Identifier(name))
    )
    admin.execute(sql.SQL("DROP DATABASE IF EXISTS {}").format(sql.Identifier(name)))


def _prune_templates(admin: Any) -> None:
    """Drop all but the newest :data:`TEMPLATES_KEPT` whole templates."""
    rows = admin.execute(
        "SELECT datname FROM pg_database WHERE datistemplate AND datname LIKE %s "
        "AND datname NOT LIKE %s ORDER BY oid DESC",
        (f"{TEMPLATE_PREFIX}%", f"{TEMPLATE_PREFIX}%\\_%"),
    ).fetchall()
    for (old,) in rows[TEMPLATES_KEPT:]:
        with contextlib.suppress(Exception):  # another run copies it: next time
            _drop_template(admin, old)


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


def stop_process(
    process: subprocess.Popen[Any], stop: signal.Signals = signal.SIGTERM
) -> None:
    """Send ``process`` ``stop`` and wait for it; kill it after 10 s."""
    if process.poll() is None:
        process.send_signal(stop)
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


#: The servers :func:`server` runs: the log line each worker writes as it
#: starts, and the signal that stops it (gunicorn's SIGQUIT is its quick
#: shutdown: a benchmark stops it once its load is over).
SERVERS = {
    "gunicorn": ("Booting worker with pid", signal.SIGQUIT),
    "uvicorn": ("Started server process", signal.SIGTERM),
}


def _server_command(
    kind: str, port: int, workers: int, timeout: int | None
) -> list[str]:
    """The command line of the demo under ``kind`` on ``port``."""
    if kind == "gunicorn":
        command = [
            "gunicorn",
            "demo_project.wsgi:application",
            "--worker-class=sync",
            f"--bind=127.0.0.1:{port}",
            "--log-level=info",  # "Booting worker" lines tell when all are up
            "--graceful-timeout=5",
        ]
        if timeout is not None:
            command.append(f"--timeout={timeout}")
        if _version("gunicorn") >= (27,):
            # Its control socket's thread held every stop 2-3 s more.
            command.append("--no-control-socket")
    else:
        # demo_project.asgi turns persistent connections off (CONN_MAX_AGE
        # 0), as Django's documentation says to under ASGI.
        command = [
            "uvicorn",
            "demo_project.asgi:application",
            "--host=127.0.0.1",
            f"--port={port}",
            "--lifespan=off",
            "--no-access-log",
            "--timeout-graceful-shutdown=5",
            # A new worker imports Django and warms up before it answers the
            # restart's health check; uvicorn's default 5 s aborted every HUP
            # restart on the loaded 2-core machine (the old worker was kept).
            "--timeout-worker-healthcheck=30",
        ]
    return [sys.executable, "-m", *command, f"--workers={workers}"]


def _version(distribution: str) -> tuple[int, ...]:
    """The installed version of ``distribution``, as numbers."""
    import importlib.metadata

    found = importlib.metadata.version(distribution).split(".")
    return tuple(int(part) for part in found if part.isdigit())


@contextlib.contextmanager
def server(
    kind: str,
    url: str,
    work_dir: Path,
    *,
    headers: dict[str, str],
    workers: int = 1,
    timeout: int | None = None,
    env: dict[str, str] | None = None,
) -> Iterator[Server]:
    """Serve the demo on ``url``'s database under ``kind`` (:data:`SERVERS`).

    gunicorn runs ``workers`` sync workers, uvicorn ``--workers``; either
    listens on 127.0.0.1, a free port, logs to ``work_dir/<kind>.log`` (and
    gunicorn keeps its control socket in ``work_dir/runtime``). ``timeout``
    is gunicorn's worker timeout (its default if ``None``); ``env`` adds to
    or overrides the environment (another settings module, say). Yields
    once every worker has started and ``GET /api/contacts/`` with
    ``headers`` answers 200; stops the server on exit.
    """
    started, stop = SERVERS[kind]
    port = free_port()
    log_path = work_dir / f"{kind}.log"
    runtime_dir = work_dir / "runtime"
    runtime_dir.mkdir(exist_ok=True)
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            _server_command(kind, port, workers, timeout),
            cwd=ROOT,
            env={**django_env(url), "XDG_RUNTIME_DIR": str(runtime_dir), **(env or {})},
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    base_url = f"http://127.0.0.1:{port}"
    try:
        _wait_ready(process, base_url, log_path, (started, workers), headers)
        yield Server(base_url, process.pid)
    finally:
        stop_process(process, stop)


def gunicorn(
    url: str,
    work_dir: Path,
    *,
    headers: dict[str, str],
    workers: int = 1,
    timeout: int | None = None,
    env: dict[str, str] | None = None,
) -> contextlib.AbstractContextManager[Server]:
    """The demo under gunicorn with ``workers`` sync workers (:func:`server`)."""
    return server(
        "gunicorn",
        url,
        work_dir,
        headers=headers,
        workers=workers,
        timeout=timeout,
        env=env,
    )


def _wait_ready(
    process: subprocess.Popen[bytes],
    base_url: str,
    log: Path,
    started: tuple[str, int],
    headers: dict[str, str],
) -> None:
    """Wait until ``log`` holds ``started`` (a line, and how many times:
    one per worker) and the demo answers 200."""
    deadline = time.monotonic() + READY_TIMEOUT
    status = None
    name = log.stem
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise BenchError(f"{name} exited early:\n{log.read_text()[-2000:]}")
        booted = log.read_text().count(started[0])
        with contextlib.suppress(httpx.TransportError):
            status = httpx.get(
                f"{base_url}/api/contacts/", headers=headers, timeout=5
            ).status_code
            if status == 200 and booted >= started[1]:
                return
            if status in (401, 403):
                raise BenchError(f"The demo token was refused (HTTP {status}).")
        time.sleep(0.1)
    raise BenchError(
        f"{name} not ready in {READY_TIMEOUT:g}s (last status {status}):\n"
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


def npm_install(npm: str, packages: Sequence[str], cache: Path, timeout: float) -> None:
    """Install ``packages`` with npm into the directory ``cache``.

    npm installs into a fresh directory that then takes the cache's name,
    so a run cut short leaves no half-installed cache behind; if another run
    installed it meanwhile, that one stays. :class:`BenchError` if npm fails.
    """
    cache.parent.mkdir(parents=True, exist_ok=True)
    fresh = Path(tempfile.mkdtemp(prefix=f"{cache.name}-", dir=cache.parent))
    quiet = ("--no-audit", "--no-fund", "--loglevel=error")
    done = subprocess.run(
        [npm, "install", "--prefix", str(fresh), *quiet, *packages],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    if done.returncode:
        shutil.rmtree(fresh, ignore_errors=True)
        named = " ".join(packages)
        raise BenchError(f"npm install {named} failed:\n{done.stderr[-3000:]}")
    try:
        fresh.rename(cache)
    except OSError:  # another run installed it meanwhile
        shutil.rmtree(fresh, ignore_errors=True)


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
