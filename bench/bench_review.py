"""The call path measured as issue 21's outside review measured it.

Run from the repository root::

    python3 dev.py bench bench/bench_review.py [--runs N] [--rounds N]
        [--block N] [--warmup N] [--workers N] [--stages N] [--json PATH]

What it does:

1. Creates a temporary SQLite file, migrates and seeds it (``migrate``,
   ``seed_demo``) and checks that it is in WAL mode (the demo's
   ``init_command`` sets it; it stays with the file).
2. Per run (``--runs``, 3 by default), starts a **fresh** gunicorn serving
   ``demo_project.wsgi:application`` with 2 sync workers, waits until every
   worker has loaded the application (a ``post_worker_init`` hook in the
   script's gunicorn config says so in the log, so no request of the script
   has touched a worker before), then times the workers' first
   ``initialize`` and, next, the first ``tools/list``: the cold start a
   client sees after a deploy or a worker restart. The script's gunicorn
   hooks (``pre_request``, ``post_request``) also log the serving worker's
   CPU time for these requests (marked with an ``X-Bench-CPU`` header),
   a figure that other processes on a shared machine barely move; 20 warm
   ``initialize`` and ``tools/list`` at the end of the run are the reference.
3. On the same server: ``--warmup`` unmeasured rounds, then ``--rounds``
   measured rounds over one keep-alive ``httpx.Client``. A round sends, for
   each kind, a block of ``--block`` MCP requests and a block of as many
   REST requests, the block order alternating from round to round:

   * **create**: ``tools/call contacts__create`` vs ``POST /api/contacts/``;
   * **retrieve**: ``tools/call contacts__retrieve`` vs
     ``GET /api/contacts/<id>/`` on the same rows;
   * **list(50)**: ``tools/call contacts__list`` with ``page_size: 50`` vs
     ``GET /api/contacts/``, whose page size the script's settings module
     (the demo's, with ``PAGE_SIZE = 50``) sets to 50.

   Every request carries ``Authorization: Token <DEMO_TOKEN>`` (the seeded
   ``demo`` user; ``TokenAuthentication``, ``DjangoModelPermissions``), and
   every response is checked (status, ``isError``, the row sent or asked
   for, 50 rows per list page).
4. Reports per kind the MCP / REST ratio of the run's medians, and the
   medians themselves, as min / median / max over the runs, plus the cold
   ``initialize`` and ``tools/list`` in ms.
5. With ``--stages N``, after the servers have stopped: interleaved
   requests of each kind through the WSGI application in this process (no
   socket), with a timer around each part of the call path, to show where
   MCP's extra time goes (see :data:`STAGES`), and the time of each SQL
   statement kind. Only requests no other process interrupted count (wall
   time within 10% of the thread's CPU time), until N of each kind and side
   did. Parts whose function no longer exists under its name are reported
   as missing, not measured. ``--runs 0`` runs this part alone.

gunicorn's sync worker closes the connection after every response, so the
client's keep-alive does not keep a connection open: every request, MCP and
REST alike, includes a TCP connect over loopback. The machine is shared and
noisy: read the ratios; the milliseconds are context.
"""

from __future__ import annotations

import argparse
import datetime as dt
import functools
import gc
import importlib
import io
import json
import platform
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from _common import (
    MCP_HEADERS,
    MIGRATE,
    PROTOCOL_VERSION,
    REST_HEADERS,
    ROOT,
    SEED,
    BenchError,
    auth_headers,
    call_body,
    check_contact,
    check_id,
    contact_fields,
    django_env,
    expect_json,
    free_port,
    jsonrpc_body,
    machine,
    manage,
    progress,
    raise_on_sigterm,
    run_script,
    show,
    stop_process,
    temporary_database,
    write_json,
)

KINDS = ("create", "retrieve", "list")
LIST_SIZE = 50
#: The demo's settings with REST's page as long as the MCP list page.
SETTINGS = (
    "from demo_project.settings import *  # noqa: F403\n"
    f"REST_FRAMEWORK = {{**REST_FRAMEWORK, 'PAGE_SIZE': {LIST_SIZE}}}  # noqa: F405\n"
)
#: ``--no-audit``: the demo without its audit trail (docs/audit.md), as the
#: outside review measured it; the audit's receivers cost MCP calls only.
NO_AUDIT = (
    "INSTALLED_APPS = [a for a in INSTALLED_APPS if a != 'frisian_mcp.contrib.audit']"
    "  # noqa: F405\n"
)
#: gunicorn config: say in the log when a worker has loaded the application.
GUNICORN_CONFIG = """\
import time


def post_worker_init(worker):
    worker.log.info("frisian-bench: worker %s ready", worker.pid)


def pre_request(worker, req):
    worker.bench_cpu = time.thread_time()


def post_request(worker, req, environ, resp):
    tag = environ.get("HTTP_X_BENCH_CPU")
    if tag:
        cpu = (time.thread_time() - worker.bench_cpu) * 1e3
        worker.log.info("frisian-bench: cpu %s %.3f", tag, cpu)
"""
READY = "frisian-bench: worker"
#: A request with this header has its worker's CPU time logged (post_request).
CPU_HEADER = "X-Bench-CPU"
READY_CPU = "frisian-bench: cpu "
INITIALIZE = {
    "protocolVersion": PROTOCOL_VERSION,
    "capabilities": {},
    "clientInfo": {"name": "bench_review", "version": "1"},
}


# -- the server ------------------------------------------------------------------


@dataclass(frozen=True)
class Setup:
    """What every Django process of the run shares: database and settings."""

    url: str
    work_dir: Path

    def env(self) -> dict[str, str]:
        env = django_env(self.url)
        env["DJANGO_SETTINGS_MODULE"] = "review_settings"
        env["PYTHONPATH"] = f"{self.work_dir}:{ROOT}"
        return env


@contextmanager
def fresh_gunicorn(setup: Setup, workers: int, run: int) -> Iterator[tuple[str, Path]]:
    """A new gunicorn; yields its base URL and log once every worker is ready."""
    log_path = setup.work_dir / f"gunicorn-{run}.log"
    port = free_port()
    command = [
        *(sys.executable, "-m", "gunicorn", "demo_project.wsgi:application"),
        *(f"--workers={workers}", "--worker-class=sync", f"--bind=127.0.0.1:{port}"),
        *("--config", str(setup.work_dir / "gunicorn_review.py")),
        *("--log-level=info", "--graceful-timeout=5"),
    ]
    runtime = setup.work_dir / "runtime"
    runtime.mkdir(exist_ok=True)
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            command,
            cwd=ROOT,
            env={**setup.env(), "XDG_RUNTIME_DIR": str(runtime)},
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 60
        while log_path.read_text().count(READY) < workers:
            if process.poll() is not None or time.monotonic() > deadline:
                raise BenchError(f"gunicorn did not start:\n{log_path.read_text()}")
            time.sleep(0.02)
        yield f"http://127.0.0.1:{port}", log_path
    finally:
        stop_process(process)


# -- requests --------------------------------------------------------------------


@dataclass
class Run:
    """One server's figures: cold requests (ms) and warm samples (s) per kind."""

    cold: dict[str, float] = field(default_factory=dict)
    warm: dict[str, float] = field(default_factory=dict)
    #: The workers' CPU ms: ``cold:<method>`` once, ``warm:<method>`` medians.
    cpu: dict[str, float] = field(default_factory=dict)
    mcp: dict[str, list[float]] = field(default_factory=dict)
    rest: dict[str, list[float]] = field(default_factory=dict)


class Client:
    """Sends and checks the requests of one run over one keep-alive client."""

    def __init__(self, http: httpx.Client) -> None:
        self.http = http
        self.run_id = uuid.uuid4().hex[:8]
        self.counter = 0
        self.created: list[str] = []

    def timed(
        self, method: str, url: str, body: bytes | None, headers: dict[str, str]
    ) -> tuple[httpx.Response, float]:
        start = time.perf_counter()
        response = self.http.request(method, url, content=body, headers=headers)
        return response, time.perf_counter() - start

    def rpc(
        self, method: str, params: dict[str, Any], tag: str = ""
    ) -> tuple[Any, float]:
        """A JSON-RPC request; its ``result`` (never an error) and its time.

        With ``tag``, the worker logs the request's CPU time under it.
        """
        body = jsonrpc_body(method, params)
        headers = {**MCP_HEADERS, CPU_HEADER: tag} if tag else MCP_HEADERS
        response, seconds = self.timed("POST", "/mcp", body, headers)
        result = expect_json(response, 200, method).get("result")
        if not isinstance(result, dict):
            raise BenchError(f"{method}: no result: {show(response)}")
        return result, seconds

    def tool(self, name: str, arguments: dict[str, Any]) -> tuple[Any, float]:
        body = call_body(name, arguments)
        response, seconds = self.timed("POST", "/mcp", body, MCP_HEADERS)
        result = expect_json(response, 200, name).get("result")
        if not isinstance(result, dict) or result.get("isError") is not False:
            raise BenchError(f"tools/call {name} failed: {show(response)}")
        return result.get("structuredContent"), seconds

    def rest(self, method: str, url: str, body: Any, status: int) -> tuple[Any, float]:
        content = None if body is None else json.dumps(body).encode()
        response, seconds = self.timed(method, url, content, REST_HEADERS)
        return expect_json(response, status, f"REST {method} {url}"), seconds

    def cold(self) -> dict[str, float]:
        """A fresh server's first ``initialize``, then its first ``tools/list``."""
        result, initialize = self.rpc("initialize", INITIALIZE, "cold:initialize")
        if "serverInfo" not in result:
            raise BenchError("initialize: no serverInfo.")
        result, listing = self.rpc("tools/list", {}, "cold:tools/list")
        names = {tool.get("name") for tool in result.get("tools", [])}
        if "contacts__create" not in names:
            raise BenchError("tools/list: contacts__create is missing.")
        return {"initialize": initialize * 1e3, "tools/list": listing * 1e3}

    def warm(self, times: int = 20) -> dict[str, float]:
        """The same two requests on the warm server: medians, the reference."""
        found: dict[str, list[float]] = {"initialize": [], "tools/list": []}
        for _ in range(times):
            found["initialize"].append(
                self.rpc("initialize", INITIALIZE, "warm:initialize")[1]
            )
            found["tools/list"].append(self.rpc("tools/list", {}, "warm:tools/list")[1])
        return {name: statistics.median(v) * 1e3 for name, v in found.items()}

    def fields(self, side: str) -> dict[str, str]:
        self.counter += 1
        return contact_fields(
            "bench_review.py", "review", self.run_id, self.counter, side
        )

    def send(self, kind: str, side: str, number: int) -> float:
        """One checked request of ``kind`` on ``side``; its time in seconds."""
        if kind == "create":
            sent = self.fields(side)
            if side == "mcp":
                data, seconds = self.tool("contacts__create", sent)
            else:
                data, seconds = self.rest("POST", "/api/contacts/", sent, 201)
            self.created.append(check_contact(data, sent, f"{side} create"))
            return seconds
        if kind == "retrieve":
            pk = self.created[number % len(self.created)]
            if side == "mcp":
                data, seconds = self.tool("contacts__retrieve", {"id": pk})
            else:
                data, seconds = self.rest("GET", f"/api/contacts/{pk}/", None, 200)
            check_id(data, pk, f"{side} retrieve")
            return seconds
        if side == "mcp":
            data, seconds = self.tool("contacts__list", {"page_size": LIST_SIZE})
        else:
            data, seconds = self.rest("GET", "/api/contacts/", None, 200)
        rows = data.get("results") if isinstance(data, dict) else None
        if not isinstance(rows, list) or len(rows) != LIST_SIZE:
            raise BenchError(f"{side} list: not {LIST_SIZE} rows: {data!r:.300}")
        return seconds


def measure(client: Client, run: Run, rounds: int, block: int, warmup: int) -> None:
    """Warm up, then ``rounds`` rounds of MCP and REST blocks per kind."""
    for kind in KINDS:
        run.mcp[kind], run.rest[kind] = [], []
    # Enough rows for a full list page before the first list.
    while len(client.created) < LIST_SIZE:
        client.send("create", "rest", 0)
    for number in range(warmup + rounds):
        sides = ("mcp", "rest") if number % 2 == 0 else ("rest", "mcp")
        for kind in KINDS:
            for side in sides:
                times = [
                    client.send(kind, side, number * block + i) for i in range(block)
                ]
                if number >= warmup:
                    (run.mcp if side == "mcp" else run.rest)[kind].extend(times)


def http_run(setup: Setup, args: argparse.Namespace, number: int) -> Run:
    """One fresh server: its cold start, then the interleaved blocks."""
    run = Run()
    with (
        fresh_gunicorn(setup, args.workers, number) as (base_url, log),
        httpx.Client(base_url=base_url, headers=auth_headers(), timeout=30) as http,
    ):
        client = Client(http)
        run.cold = client.cold()
        measure(client, run, args.rounds, args.block, args.warmup)
        run.warm = client.warm()
        run.cpu = worker_cpu(log, warm=20)
    return run


def worker_cpu(log: Path, warm: int) -> dict[str, float]:
    """The CPU ms the workers logged per tag (the warm ones' medians)."""
    expected = 2 + 2 * warm
    deadline = time.monotonic() + 10
    while True:  # post_request logs after the response went out
        lines = [
            line.split(READY_CPU, 1)[1].split()
            for line in log.read_text().splitlines()
            if READY_CPU in line
        ]
        if len(lines) >= expected:
            break
        if time.monotonic() > deadline:
            raise BenchError(f"{len(lines)} of {expected} CPU lines in {log}.")
        time.sleep(0.05)
    found: dict[str, list[float]] = {}
    for tag, ms in lines:
        found.setdefault(tag, []).append(float(ms))
    return {tag: statistics.median(values) for tag, values in found.items()}


# -- the in-process stage timing ---------------------------------------------------

#: The parts of the call path timed by ``--stages``: label and where the
#: function lives (``module:attribute.path``; functions another module
#: imported by name are patched where they are called from). Every timer is
#: inclusive and counts only its outermost call.
STAGES = (
    ("whole", "django.core.handlers.wsgi:WSGIHandler.__call__"),
    ("mcp_view", "frisian_mcp.views:MCPView.dispatch"),
    # The view's own dispatch: the endpoint's (an APIView too) is not counted.
    ("drf_dispatch", "demo_project.contacts.views:ContactViewSet.dispatch"),
    ("drf_auth", "rest_framework.views:APIView.perform_authentication"),
    ("rest_render", "rest_framework.renderers:JSONRenderer.render"),
    ("read", "frisian_mcp.views:_check_body"),
    ("authenticate", "frisian_mcp.views:MCPView.perform_authentication"),
    ("parse", "frisian_mcp.parsers:StrictJSONParser.parse"),
    ("select", "frisian_mcp.jsonrpc:select"),
    ("scope", "frisian_mcp.registry:grant_of"),
    ("guards", "frisian_mcp.guards:check"),
    ("validate", "frisian_mcp.guards:_validate"),
    ("build_request", "frisian_mcp.routing:build_request"),
    ("resolve", "frisian_mcp.routing:resolve"),
    ("view_setup", "frisian_mcp.invocation:_view"),
    ("atomic_enter", "django.db.transaction:Atomic.__enter__"),
    ("atomic_exit", "django.db.transaction:Atomic.__exit__"),
    ("references", "frisian_mcp.references:resolve"),
    ("outcome", "frisian_mcp.outcomes:result"),
    ("finish", "frisian_mcp.results:finish"),
    ("tool_result", "frisian_mcp.jsonrpc:_Exchange.tool_result"),
    ("render", "frisian_mcp.replies:JSONRPCRenderer.render"),
)
#: Rows of the report: label, then the stages (MCP) and the stages (REST)
#: that make it up; "-" subtracts. The rows add up to the whole request.
ROWS = (
    ("Django around the view (handler, middleware, URL)",
     ("whole", "-mcp_view", "-render"), ("whole", "-drf_dispatch", "-rest_render")),
    ("authentication (MCP: the endpoint's; both: DRF's)",
     ("authenticate", "-read", "drf_auth"), ("drf_auth",)),
    ("DRF dispatch without authentication (permissions, action, SQL)",
     ("drf_dispatch", "-drf_auth", "-references"), ("drf_dispatch", "-drf_auth")),
    ("response encoding (MCP: text block + envelope; REST: renderer)",
     ("tool_result", "render"), ("rest_render",)),
    ("body checks (size, chunked)", ("read",), ()),
    ("body read and JSON-RPC parse (the endpoint's parser)", ("parse",), ()),
    ("revision select", ("select",), ()),
    ("OAuth scope check", ("scope",), ()),
    ("argument guards without validation", ("guards", "-validate"), ()),
    ("argument validation (jsonschema / fast check)", ("validate",), ()),
    ("inner request (routing.build_request)", ("build_request",), ()),
    ("inner URL match (routing.resolve)", ("resolve",), ()),
    ("view set-up (invocation._view)", ("view_setup",), ()),
    ("write transaction: BEGIN (Atomic.__enter__)", ("atomic_enter",), ()),
    ("write transaction: COMMIT (Atomic.__exit__)", ("atomic_exit",), ()),
    ("lookup objects (references.resolve)", ("references",), ()),
    ("result shaping (outcomes.result)", ("outcome",), ()),
    ("result finishing (results.finish)", ("finish",), ()),
    ("MCP glue not timed above (dispatch, logging, envelope)",
     ("mcp_view", "-drf_dispatch", "-authenticate", "-parse", "-select",
      "-scope", "-guards", "-build_request", "-resolve", "-view_setup",
      "-atomic_enter", "-atomic_exit", "-outcome", "-finish", "-tool_result"),
     ()),
)  # fmt: skip


class Timers:
    """Inclusive timers around the :data:`STAGES` functions, per request."""

    def __init__(self) -> None:
        self.totals: dict[str, float] = {}
        self.depth: dict[str, int] = {}
        self.missing: list[str] = []
        for label, target in STAGES:
            self._wrap(label, target)

    def _wrap(self, label: str, target: str) -> None:
        module_name, _, path = target.partition(":")
        owner: Any = importlib.import_module(module_name)
        *parents, name = path.split(".")
        try:
            for parent in parents:
                owner = getattr(owner, parent)
            original = getattr(owner, name)
        except AttributeError:
            self.missing.append(f"{label} ({target})")
            return
        # Wall time: a thread's CPU clock costs a system call (microseconds
        # on a VM), too much for timers this fine-grained; requests another
        # process interrupted are dropped instead (see stages()).
        totals, depth, clock = self.totals, self.depth, time.perf_counter

        @functools.wraps(original)  # keeps csrf_exempt and the like
        def timed(*args: Any, **kwargs: Any) -> Any:
            depth[label] = depth.get(label, 0) + 1
            start = clock()
            try:
                return original(*args, **kwargs)
            finally:
                depth[label] -= 1
                if not depth[label]:
                    totals[label] = totals.get(label, 0.0) + clock() - start

        setattr(owner, name, timed)

    def take(self) -> dict[str, float]:
        taken = dict(self.totals)
        self.totals.clear()
        return taken


def wsgi_caller(application: Any) -> Callable[[str, str, bytes, dict[str, str]], bytes]:
    """Call ``application`` with one request; return the checked body."""

    def call(method: str, path: str, body: bytes, extra: dict[str, str]) -> bytes:
        path, _, query = path.partition("?")
        environ = {
            "REQUEST_METHOD": method,
            "PATH_INFO": path,
            "QUERY_STRING": query,
            "SERVER_NAME": "127.0.0.1",
            "SERVER_PORT": "8000",
            "SERVER_PROTOCOL": "HTTP/1.1",
            "REMOTE_ADDR": "127.0.0.1",
            "CONTENT_TYPE": "application/json",
            "CONTENT_LENGTH": str(len(body)),
            "HTTP_HOST": "127.0.0.1:8000",
            "HTTP_AUTHORIZATION": auth_headers()["Authorization"],
            "wsgi.input": io.BytesIO(body),
            "wsgi.url_scheme": "http",
            "wsgi.errors": sys.stderr,
            **extra,
        }
        status: list[str] = []
        chunks = application(environ, lambda line, headers, *_: status.append(line))
        content = b"".join(chunks)
        chunks.close()
        if status[0][:3] not in ("200", "201") or b'"isError":true' in content:
            raise BenchError(f"stages: {method} {path}: {status[0]} {content[:300]!r}")
        return content

    return call


def stages(setup: Setup, requests: int) -> dict[str, Any]:
    """Time each part of the call path, MCP and REST interleaved, in-process."""
    import os

    os.environ.update(setup.env())
    sys.path[:0] = [str(setup.work_dir), str(ROOT)]
    from django.db import connection, connections

    from demo_project.wsgi import application

    timers = Timers()
    call = wsgi_caller(application)
    mcp_extra = {"HTTP_ACCEPT": MCP_HEADERS["Accept"]}
    mcp_extra["HTTP_MCP_PROTOCOL_VERSION"] = PROTOCOL_VERSION
    rest_extra = {"HTTP_ACCEPT": "application/json"}
    run_id, created = uuid.uuid4().hex[:8], []
    statements: list[tuple[str, float]] = []

    def count(execute: Any, sql: str, *args: Any) -> Any:
        start = time.perf_counter()
        try:
            return execute(sql, *args)
        finally:
            verb = sql.split(None, 1)[0].upper()
            statements.append((verb, time.perf_counter() - start))

    def send(kind: str, side: str, i: int) -> None:
        if kind == "create":
            sent = contact_fields("bench_review.py", "stage", run_id, i, side)
            if side == "mcp":
                body = call(
                    "POST", "/mcp", call_body("contacts__create", sent), mcp_extra
                )
                created.append(json.loads(body)["result"]["structuredContent"]["id"])
            else:
                body = call(
                    "POST", "/api/contacts/", json.dumps(sent).encode(), rest_extra
                )
                created.append(json.loads(body)["id"])
        elif kind == "retrieve":
            pk = created[i % len(created)]
            if side == "mcp":
                body = call_body("contacts__retrieve", {"id": pk})
                call("POST", "/mcp", body, mcp_extra)
            else:
                call("GET", f"/api/contacts/{pk}/", b"", rest_extra)
        elif side == "mcp":
            body = call_body("contacts__list", {"page_size": LIST_SIZE})
            call("POST", "/mcp", body, mcp_extra)
        else:
            call("GET", "/api/contacts/", b"", rest_extra)

    samples: dict[str, dict[str, list[dict[str, float]]]] = {}
    queries: dict[str, dict[str, list[str]]] = {}
    sql: dict[str, dict[str, dict[str, list[float]]]] = {}
    sent: dict[str, int] = {}
    try:
        with connection.execute_wrapper(count):
            for kind in KINDS:
                samples[kind] = {"mcp": [], "rest": []}
                queries[kind] = {}
                sql[kind] = {"mcp": {}, "rest": {}}
                i = 0
                while min(map(len, samples[kind].values())) < requests:
                    if i > 20 + 20 * requests:
                        raise BenchError("stages: the machine is too busy.")
                    for side in ("mcp", "rest") if i % 2 else ("rest", "mcp"):
                        gc.collect(0)
                        timers.take()
                        statements.clear()
                        cpu = time.thread_time()
                        send(kind, side, i)
                        cpu = time.thread_time() - cpu
                        taken = timers.take()
                        # Kept: past the 20 warm-up rounds, and not interrupted
                        # (its wall time within 10% of its CPU time).
                        if i >= 20 and taken["whole"] <= cpu * 1.1 + 50e-6:
                            samples[kind][side].append(taken)
                            per_verb: dict[str, float] = {}
                            for verb, seconds in statements:
                                per_verb[verb] = per_verb.get(verb, 0.0) + seconds
                            for verb, seconds in per_verb.items():
                                sql[kind][side].setdefault(verb, []).append(seconds)
                        queries[kind][side] = [verb for verb, _ in statements]
                    i += 1
                sent[kind] = i - 20
    finally:
        connections.close_all()
    return {
        "requests": requests,
        "sent": sent,
        "missing": timers.missing,
        "queries": queries,
        "sql_us": {
            kind: {
                side: {
                    verb: statistics.median(times) * 1e6
                    for verb, times in verbs.items()
                }
                for side, verbs in sides.items()
            }
            for kind, sides in sql.items()
        },
        "rows": {kind: stage_rows(samples[kind]) for kind in KINDS},
    }


def stage_rows(samples: dict[str, list[dict[str, float]]]) -> list[dict[str, Any]]:
    """The median µs of each row per side (a row's value is taken per request)."""

    def median(side: str, terms: tuple[str, ...]) -> float:
        values = []
        for sample in samples[side]:
            value = 0.0
            for term in terms:
                sign, name = (-1, term[1:]) if term.startswith("-") else (1, term)
                value += sign * sample.get(name, 0.0)
            values.append(value)
        return statistics.median(values) * 1e6 if values else 0.0

    rows = [
        {"part": label, "mcp_us": median("mcp", m), "rest_us": median("rest", r)}
        for label, m, r in (*ROWS, ("whole request", ("whole",), ("whole",)))
    ]
    return rows


# -- report ----------------------------------------------------------------------


def spread(values: list[float], digits: int = 2, suffix: str = "") -> str:
    """``min / median / max`` of ``values``."""
    low, mid, high = min(values), statistics.median(values), max(values)
    return f"{low:.{digits}f}{suffix} / **{mid:.{digits}f}{suffix}** / {high:.{digits}f}{suffix}"


def summarize(runs: list[Run]) -> dict[str, Any]:
    """Per kind: per-run medians (ms) and ratios; the cold figures per run."""
    kinds = {}
    for kind in KINDS:
        mcp = [statistics.median(run.mcp[kind]) * 1e3 for run in runs]
        rest = [statistics.median(run.rest[kind]) * 1e3 for run in runs]
        kinds[kind] = {
            "mcp_ms": mcp,
            "rest_ms": rest,
            "ratio": [m / r for m, r in zip(mcp, rest, strict=True)],
            "n_per_run": len(runs[0].mcp[kind]),
        }
    names = ("initialize", "tools/list")
    start = {
        name: {
            "cold_ms": [run.cold[name] for run in runs],
            "cold_cpu_ms": [run.cpu[f"cold:{name}"] for run in runs],
            "warm_ms": [run.warm[name] for run in runs],
            "warm_cpu_ms": [run.cpu[f"warm:{name}"] for run in runs],
        }
        for name in names
    }
    return {"kinds": kinds, "start": start}


def markdown(summary: dict[str, Any], runs: int) -> str:
    lines = [
        f"Each figure: min / **median** / max over {runs} runs (a fresh server each).",
        "",
        "| Request | MCP / REST | MCP median ms | REST median ms | n per run and side |",
        "|---|---:|---:|---:|---:|",
    ]
    names = {"create": "create", "retrieve": "retrieve", "list": f"list({LIST_SIZE})"}
    for kind, row in summary["kinds"].items():
        lines.append(
            f"| {names[kind]} | {spread(row['ratio'], 3, 'x')} | "
            f"{spread(row['mcp_ms'])} | {spread(row['rest_ms'])} | {row['n_per_run']} |"
        )
    lines += [
        "",
        "A fresh worker's first request, and the same request warm (the median "
        "of 20 on the same server): wall ms at the client, and the CPU ms of "
        "the worker that served it (gunicorn's pre/post_request hooks), which "
        "other processes on the machine barely move:",
        "",
        "| Request | first: ms | first: worker CPU ms | warm: ms | warm: worker CPU ms |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, row in summary["start"].items():
        cells = [
            spread(row[key], 1)
            for key in ("cold_ms", "cold_cpu_ms", "warm_ms", "warm_cpu_ms")
        ]
        lines.append(f"| `{name}` | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def stages_markdown(result: dict[str, Any]) -> str:
    lines = [
        f"In-process stage timing: median µs of each part over "
        f"{result['requests']} requests per kind and side that ran "
        "uninterrupted (wall time within 10% of CPU time), out of "
        f"{', '.join(f'{n} {k}' for k, n in result['sent'].items())} "
        "interleaved rounds. Rows are medians, so they add up to the whole "
        "only roughly; each timer adds about a microsecond:",
        "",
        "| Part of the call path | "
        + " | ".join(f"{k}: MCP | REST | +" for k in KINDS)
        + " |",
        "|---|" + "---:|" * (3 * len(KINDS)),
    ]
    for index, row in enumerate(result["rows"][KINDS[0]]):
        cells = []
        for kind in KINDS:
            other = result["rows"][kind][index]
            m, r = other["mcp_us"], other["rest_us"]
            cells += [f"{m:.0f}", f"{r:.0f}" if r else "", f"{m - r:+.0f}"]
        lines.append(f"| {row['part']} | " + " | ".join(cells) + " |")
    lines.append("")
    lines.append("SQL statements per request, and the median µs spent in each kind:")
    lines.append("")
    for kind in KINDS:
        sides, spent = result["queries"][kind], result["sql_us"][kind]
        cells = [
            f"{side.upper()} {' '.join(sides[side])} ("
            + ", ".join(f"{verb} {us:.0f}" for verb, us in spent[side].items())
            + ")"
            for side in ("mcp", "rest")
        ]
        lines.append(f"- {kind}: {'; '.join(cells)}")
    if result["missing"]:
        lines.append(f"\nNot found, not timed: {', '.join(result['missing'])}.")
    return "\n".join(lines)


# -- main ------------------------------------------------------------------------


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="MCP / REST over gunicorn (2 sync workers, SQLite WAL), "
        "and a fresh worker's first initialize and tools/list.",
    )
    parser.add_argument(
        "--runs", type=int, default=3, help="fresh servers (0: --stages only)"
    )
    parser.add_argument(
        "--rounds", type=int, default=20, help="measured rounds per run"
    )
    parser.add_argument("--block", type=int, default=10, help="requests per block")
    parser.add_argument("--warmup", type=int, default=3, help="unmeasured rounds")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers")
    parser.add_argument(
        "--stages", type=int, default=0, metavar="N", help="in-process stage timing"
    )
    parser.add_argument(
        "--no-audit", action="store_true", help="the demo without its audit trail"
    )
    parser.add_argument("--json", type=Path, metavar="PATH", help="write raw figures")
    args = parser.parse_args(argv)
    if args.runs < 0 or args.rounds < 1 or args.block < 1 or args.warmup < 0:
        parser.error("--rounds and --block must be positive")
    if args.runs == 0 and not args.stages:
        parser.error("--runs 0 (no HTTP runs) needs --stages")
    return args


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    raise_on_sigterm()
    started = dt.datetime.now(dt.UTC)
    report: dict[str, Any] = {"args": {k: str(v) for k, v in vars(args).items()}}
    with (
        temporary_database(None, prefix="frisian-review-") as database,
        tempfile.TemporaryDirectory(prefix="frisian-review-") as work,
    ):
        setup = Setup(database.url, Path(work))
        settings = SETTINGS + (NO_AUDIT if args.no_audit else "")
        (setup.work_dir / "review_settings.py").write_text(settings)
        (setup.work_dir / "gunicorn_review.py").write_text(GUNICORN_CONFIG)
        progress(f"Preparing {database.label} ...")
        manage(database.url, MIGRATE, SEED)
        path = database.url.removeprefix("sqlite:///")
        with sqlite3.connect(path) as db:
            mode = db.execute("PRAGMA journal_mode").fetchone()[0]
        if mode != "wal":
            raise BenchError(f"The database is in {mode!r} mode, not WAL.")
        runs = []
        for number in range(args.runs):
            progress(f"Run {number + 1} of {args.runs}: a fresh gunicorn ...")
            runs.append(http_run(setup, args, number))
        report["summary"] = summarize(runs) if runs else None
        report["samples_ms"] = [
            {side: {k: [round(t * 1e3, 3) for t in v] for k, v in getattr(run, side).items()}
             for side in ("mcp", "rest")} | {"cold": run.cold, "warm": run.warm, "cpu": run.cpu}
            for run in runs
        ]  # fmt: skip
        if args.stages:
            progress("Timing the stages in-process ...")
            report["stages"] = stages(setup, args.stages)

    import django

    if runs:
        print(
            f"## The call path as the outside review measured it ({database.label}, WAL)\n\n"
            f"{started.isoformat(timespec='seconds')}, {machine()}, Python "
            f"{platform.python_version()}, Django {django.__version__}; gunicorn "
            f"{args.workers} sync workers; {args.rounds} rounds of blocks of "
            f"{args.block} per kind and side after {args.warmup} warm-up rounds; "
            "token auth as the seeded `demo` user"
            f"{', without the audit trail' if args.no_audit else ''}.\n\n"
            f"{markdown(report['summary'], args.runs)}\n"
        )
    if "stages" in report:
        print(stages_markdown(report["stages"]) + "\n")
    if args.json:
        write_json(args.json, report, "Raw figures")
    return 0


if __name__ == "__main__":
    run_script(main, "bench_review")
