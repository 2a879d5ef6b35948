"""The servers and faults of ``bench_fleet_load.py`` (issue 29 item 3).

Imported by the bench as ``_fleet_faults`` (``bench/`` is first on its path):

* a redis-server of the bench's own on a free port (:func:`own_redis`), so
  that the ``redis-restart`` fault never touches a Redis others use;
* a probe app the bench's settings install before frisian_mcp (:data:`PROBE`):
  each worker counts the schemas it builds and the listing cache's hits and
  misses into a file of its own, read by :func:`probe_counts`;
* each worker's RSS (:func:`worker_rss_mb`) and the database's connections
  (:class:`Connections`), sampled by the bench;
* the faults (:data:`FAULTS`), each fired by :class:`Faults` in the middle of
  every phase: a rolling restart of the workers, a worker added and one
  removed (TTIN, TTOU), Redis stopped and started,
  every PostgreSQL backend of the database terminated, and slow clients (one
  that vanishes mid-response, one that sends half a body and stalls).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from _common import (
    MCP_HEADERS,
    BenchError,
    Server,
    call_body,
    free_port,
    stop_process,
)

FAULTS = (
    "rolling-restart",
    "scale-workers",
    "redis-restart",
    "pg-terminate",
    "slow-client",
)
#: The probe app: counts per worker, written to ``probe-<pid>.json``.
PROBE = '''"""Written by bench/bench_fleet_load.py: counts per worker, never changes
what frisian_mcp does (schema builds, listing cache hits and misses)."""
import json
import os
import threading

from django.apps import AppConfig

COUNTS = {"schema_builds": 0, "listing_hits": 0, "listing_misses": 0, "built": []}
LOCK = threading.Lock()
PID = [os.getpid()]


def count(name, built=None):
    with LOCK:
        if PID[0] != os.getpid():  # a worker forked from a --preload master
            PID[0] = os.getpid()
            COUNTS.update(dict.fromkeys(COUNTS, 0), built=[])
        COUNTS[name] += 1
        if built is not None:
            COUNTS["built"].append(built)
        path = os.path.join(os.environ["FLEET_LOAD_PROBE_DIR"], f"probe-{os.getpid()}")
        with open(path + ".tmp", "w") as out:
            json.dump(COUNTS, out)
        os.replace(path + ".tmp", path + ".json")


class ProbeConfig(AppConfig):
    name = "fleet_load_probe"

    def ready(self):
        from frisian_mcp.contrib.fleet import cache
        from frisian_mcp.schema import SchemaBuilder

        build, load = SchemaBuilder.build, cache.load

        def counted_build(self, endpoint, *args, **kwargs):
            count("schema_builds", f"{endpoint.method} {endpoint.path}")
            return build(self, endpoint, *args, **kwargs)

        def counted_load(key, *, rights=True):
            value = load(key, rights=rights)
            if key.startswith("frisian_mcp:visible:"):
                count("listing_hits" if value is not None else "listing_misses")
            return value

        SchemaBuilder.build = counted_build
        cache.load = counted_load
'''


def probe_counts(directory: Path) -> dict[str, dict[str, Any]]:
    """Each worker's counts (by pid) that the probe app wrote."""
    found = {}
    for path in sorted(directory.glob("probe-*.json")):
        with contextlib.suppress(OSError, ValueError):
            found[path.stem.removeprefix("probe-")] = json.loads(path.read_text())
    return found


# -- Redis ---------------------------------------------------------------------------


@dataclass
class Redis:
    """A redis-server of the bench's own, which a fault may restart."""

    port: int
    process: subprocess.Popen[bytes] | None = None
    restarts: list[float] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        command = [
            "redis-server",
            "--bind",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--save",
            "",
            "--appendonly",
            "no",
        ]
        self.process = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError):
                socket.create_connection(("127.0.0.1", self.port), 0.2).close()
                return
            time.sleep(0.05)
        raise BenchError(f"redis-server did not listen on port {self.port}.")

    def stop(self) -> None:
        if self.process is not None:
            stop_process(self.process)
            self.process = None

    def restart(self, down: float = 1.0) -> float:
        """Stop the server, wait ``down`` s, start it empty; seconds it took."""
        started = time.monotonic()
        self.stop()
        time.sleep(down)
        self.start()
        self.restarts.append(round(time.monotonic() - started, 2))
        return self.restarts[-1]


@contextlib.contextmanager
def own_redis() -> Iterator[Redis]:
    """A fresh, unsaved redis-server on a free loopback port."""
    if shutil.which("redis-server") is None:
        raise BenchError("No redis-server on PATH (or pass --redis-url).")
    redis = Redis(free_port())
    redis.start()
    try:
        yield redis
    finally:
        redis.stop()


# -- pgbouncer -----------------------------------------------------------------------

#: Appended to the bench's settings behind pgbouncer in transaction mode: a
#: server-side cursor (``.iterator()``) outlives the transaction it was
#: opened in, and pgbouncer may give the next statement another server.
PGBOUNCER_SETTINGS = """
DATABASES["default"]["DISABLE_SERVER_SIDE_CURSORS"] = True  # noqa: F405
"""


@dataclass
class PgBouncer:
    """A pgbouncer of the bench's own, in transaction mode, on a free port."""

    port: int
    version: str

    def url(self, database_url: str) -> str:
        """``database_url`` through this pgbouncer."""
        from urllib.parse import urlsplit, urlunsplit

        parts = urlsplit(database_url)
        user = parts.username or "postgres"
        return urlunsplit(parts._replace(netloc=f"{user}@127.0.0.1:{self.port}"))


@contextlib.contextmanager
def own_pgbouncer(database_url: str, pool_size: int = 20) -> Iterator[PgBouncer]:
    """pgbouncer in front of ``database_url``'s server, transaction pooling.

    Every database of the server, ``trust`` authentication for the URL's
    user (as the server's), at most ``pool_size`` server connections per
    database. Run as the ``postgres`` system user when the bench runs as root
    (pgbouncer refuses root). Stopped on exit.
    """
    from urllib.parse import urlsplit

    binary = shutil.which("pgbouncer") or (
        "/usr/sbin/pgbouncer" if Path("/usr/sbin/pgbouncer").exists() else None
    )
    if binary is None:
        raise BenchError("--pgbouncer: no pgbouncer (apt-get install pgbouncer).")
    parts = urlsplit(database_url)
    user = parts.username or "postgres"
    port = free_port()
    directory = Path(tempfile.mkdtemp(prefix="frisian-pgbouncer-"))
    directory.chmod(0o755)
    (directory / "userlist.txt").write_text(f'"{user}" ""\n')
    config = directory / "pgbouncer.ini"
    config.write_text(
        "[databases]\n"
        f"* = host={parts.hostname or '127.0.0.1'} port={parts.port or 5432}\n"
        "[pgbouncer]\n"
        f"listen_addr = 127.0.0.1\nlisten_port = {port}\nunix_socket_dir =\n"
        f"auth_type = trust\nauth_file = {directory / 'userlist.txt'}\n"
        f"pool_mode = transaction\ndefault_pool_size = {pool_size}\n"
        "max_client_conn = 1000\nserver_reset_query =\n"
        "ignore_startup_parameters = extra_float_digits,options\n"
    )
    for path in directory.iterdir():
        path.chmod(0o644)
    command = [binary, str(config)]
    if os.geteuid() == 0:
        command[1:1] = ["-u", "postgres"]
    version = subprocess.run(
        [binary, "--version"], capture_output=True, text=True, check=False
    ).stdout.split("\n", 1)[0]
    log = (directory / "pgbouncer.log").open("wb")
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 10
        while True:
            with contextlib.suppress(OSError):
                socket.create_connection(("127.0.0.1", port), 0.2).close()
                break
            if process.poll() is not None or time.monotonic() > deadline:
                raise BenchError(
                    "pgbouncer did not start:\n"
                    + (directory / "pgbouncer.log").read_text()[-2000:]
                )
            time.sleep(0.05)
        yield PgBouncer(port, version)
    finally:
        stop_process(process)
        log.close()
        shutil.rmtree(directory, ignore_errors=True)


# -- the server's processes and connections -------------------------------------------


def _workers(master: int) -> Iterator[Path]:
    """The ``/proc`` entries of the workers of the server's master ``master``
    (uvicorn's multiprocessing resource tracker left out)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            if b"resource_tracker" in (entry / "cmdline").read_bytes():
                continue
        except OSError:
            continue
        if stat.rsplit(")", 1)[1].split()[1] == str(master):  # ppid
            yield entry


def worker_rss_mb(master: int) -> dict[int, float]:
    """VmRSS in MB of each worker of ``master``."""
    rss = {}
    for entry in _workers(master):
        with contextlib.suppress(OSError):
            for line in (entry / "status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    rss[int(entry.name)] = int(line.split()[1]) / 1024
    return rss


def workers_cpu_s(master: int) -> dict[int, float]:
    """CPU seconds (user + system) each worker of ``master`` has used."""
    tick = os.sysconf("SC_CLK_TCK")
    cpu = {}
    for entry in _workers(master):
        with contextlib.suppress(OSError):
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            cpu[int(entry.name)] = (int(fields[11]) + int(fields[12])) / tick
    return cpu


class Connections:
    """Samples ``pg_stat_activity`` for the database every 0.5 s in a thread."""

    def __init__(self, admin_dsn: str, name: str) -> None:
        self.admin_dsn = admin_dsn
        self.name = name
        self.samples: list[int] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        import psycopg

        with psycopg.connect(self.admin_dsn, autocommit=True) as admin:
            while not self.stop.wait(0.5):
                row = admin.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = %s",
                    (self.name,),
                ).fetchone()
                self.samples.append(int(row[0]) if row else 0)

    def __enter__(self) -> Connections:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(timeout=5)


# -- faults --------------------------------------------------------------------------


@dataclass
class Target:
    """What the faults act on: the server, its database and its Redis.

    ``server`` is the first of ``machines`` (``--machines``): the faults act
    on it; the load goes to all of them.
    """

    server: Server
    admin_dsn: str
    database: str
    redis: Redis | None
    worker_timeout: float
    listing: Callable[[], list[str]]
    machines: list[Server] = field(default_factory=list)


def rolling_restart(target: Target) -> dict[str, Any]:
    """SIGHUP to the master: gunicorn starts new workers and stops the old
    ones gracefully; uvicorn restarts its workers one by one."""
    os.kill(target.server.pid, signal.SIGHUP)
    return {"signal": "SIGHUP"}


def scale_workers(target: Target) -> dict[str, Any]:
    """SIGTTIN to the master (one worker more), then SIGTTOU (one fewer),
    as an autoscaler does: the counts of workers seen at each step.

    gunicorn and uvicorn (0.30 and later) both take these signals; the
    worker TTOU stops is the oldest (gunicorn) or the last (uvicorn), and it
    finishes its calls in flight first.
    """
    before = len(worker_rss_mb(target.server.pid))
    os.kill(target.server.pid, signal.SIGTTIN)
    added = _workers_reach(target.server.pid, before + 1)
    os.kill(target.server.pid, signal.SIGTTOU)
    after = _workers_reach(target.server.pid, before)
    return {"signals": "TTIN, TTOU", "workers": [before, added, after]}


def _workers_reach(master: int, count: int, limit: float = 10.0) -> int:
    """Wait up to ``limit`` s for ``count`` workers; how many there are."""
    deadline = time.monotonic() + limit
    while (found := len(worker_rss_mb(master))) != count:
        if time.monotonic() > deadline:
            break
        time.sleep(0.1)
    return found


def redis_restart(target: Target) -> dict[str, Any]:
    """Stop the bench's Redis, start it empty a second later, list tools."""
    if target.redis is None:
        raise BenchError("redis-restart needs the bench's own Redis (no --redis-url).")
    before = target.listing()
    seconds = target.redis.restart()
    after = target.listing()
    return {
        "down_s": seconds,
        "listing_unchanged": before == after,
        "tools": len(after),
    }


def pg_terminate(target: Target) -> dict[str, Any]:
    """``pg_terminate_backend`` on every backend of the bench's database."""
    import psycopg

    with psycopg.connect(target.admin_dsn, autocommit=True) as admin:
        rows = admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = %s AND pid <> pg_backend_pid()",
            (target.database,),
        ).fetchall()
    return {"terminated": sum(1 for row in rows if row[0])}


def slow_client(target: Target) -> dict[str, Any]:
    """A client that vanishes mid-response, one that stalls mid-body.

    The vanishing one asks for a page of 200 contacts, reads 64 bytes and
    resets the connection. The stalling one sends half a ``tools/call`` body
    and nothing more; the figure is the time until the server closes its
    connection (the worker is free again), at most 3x the worker timeout.
    """
    host, port = target.server.base_url.removeprefix("http://").split(":")
    body = call_body("contacts__list", {"page_size": 200})
    vanished = _vanish(host, int(port), body)
    limit = 3 * target.worker_timeout + 5
    freed = _stall(host, int(port), body, limit)
    return {
        "vanished_after_bytes": vanished,
        "stalled_freed_s": freed,
        "limit_s": limit,
    }


def _request(body: bytes, length: int | None = None) -> bytes:
    headers = {**MCP_HEADERS, "Authorization": _auth(), "Host": "127.0.0.1"}
    headers["Content-Length"] = str(len(body) if length is None else length)
    lines = [f"{k}: {v}" for k, v in headers.items()]
    return ("POST /mcp HTTP/1.1\r\n" + "\r\n".join(lines) + "\r\n\r\n").encode()


def _auth() -> str:
    from _common import auth_headers

    return auth_headers()["Authorization"]


def _vanish(host: str, port: int, body: bytes) -> int:
    """Send a whole request, read a little of the answer, reset; bytes read."""
    with socket.create_connection((host, port), timeout=30) as sock:
        sock.sendall(_request(body) + body)
        got = sock.recv(64)
        # An RST instead of a FIN: the client is gone, not finished.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\0\0\0\0\0\0\0")
    return len(got)


def _stall(host: str, port: int, body: bytes, limit: float) -> float | None:
    """Send headers and half the body; seconds until the server lets go."""
    with socket.create_connection((host, port), timeout=limit) as sock:
        started = time.monotonic()
        sock.sendall(_request(body, len(body) * 2) + body)
        try:
            while sock.recv(4096):
                pass
        except TimeoutError:
            return None
        except OSError:
            pass
        return round(time.monotonic() - started, 2)


ACTIONS: dict[str, Callable[[Target], dict[str, Any]]] = {
    "rolling-restart": rolling_restart,
    "scale-workers": scale_workers,
    "redis-restart": redis_restart,
    "pg-terminate": pg_terminate,
    "slow-client": slow_client,
}


class Faults:
    """Fires the chosen faults in a thread, spread over one phase."""

    def __init__(self, target: Target | None, names: list[str], seconds: float) -> None:
        self.target, self.names, self.seconds = target, names, seconds
        self.events: list[dict[str, Any]] = []
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        assert self.target is not None
        started = time.monotonic()
        for index, name in enumerate(self.names):
            at = self.seconds * (index + 1) / (len(self.names) + 1)
            time.sleep(max(0.0, started + at - time.monotonic()))
            event: dict[str, Any] = {"fault": name, "at_s": round(at, 1)}
            try:
                event.update(ACTIONS[name](self.target))
            except Exception as exc:  # reported, and the run goes on
                event["failed"] = f"{type(exc).__name__}: {exc}"
            self.events.append(event)

    def __enter__(self) -> Faults:
        if self.target is not None and self.names:
            self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.thread.is_alive():
            self.thread.join()
