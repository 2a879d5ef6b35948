"""A fleet under load: the demo on gunicorn, PostgreSQL and Redis (issue 29).

The demo (contacts, dcim) served by gunicorn with ``--workers`` sync workers
on a temporary PostgreSQL database, with Django's ``RedisCache`` as the
default cache (the fleet store and the listing cache live there), seeded with
``--contacts`` contacts and ``--devices`` devices. ``--clients`` threads, each
with its own keep-alive httpx client, then drive a mix for ``--seconds`` in
all, split into alternating MCP and REST phases of equal length (at least two
of each):

* 60 % list/filter/page (contacts or devices, a random page, a filter);
* 25 % retrieve (a seeded contact or device);
* 10 % create/update (a new contact, or a seeded contact's notes);
* 5 % bulk create of ``--bulk`` (100) contacts: one ``contacts__create`` call with
  ``objects`` over MCP; 100 POSTs on one connection over REST, which has no
  bulk create (so the REST side's bulk operations are far slower).

``--bulk-share PERCENT`` sets the bulk creates' share (default 5), taken from
the 15 % writes: with ``--bulk-share 0`` the mix is 60 % lists, 25 %
retrieves and 15 % single creates or updates, every operation one request on
either side, and the report judges the issue's goals (MCP's throughput >=
0.9x REST's, p99 <= 1.2x) on the ratios it prints (``mcp_over_rest``).
With bulk creates in the mix the ratios are printed but not judged.

Per side also the workers' CPU time per operation (user + system, read from
``/proc`` around each phase: a figure the machine's other load disturbs far
less than the wall clock), and each measured phase's own figures (their
spread is the run's noise). MCP lists ask for REST's page size (25 rows).

An HTTP 503 or a tool's ``unavailable`` is retried with backoff (at most
``RETRIES`` times). Per side: operations and HTTP requests per second (a
phase ends when each client's last operation does), p50/p95/p99 latency,
errors by code, the workers' RSS at the start and end of each phase, the most
PostgreSQL connections seen to the database; at the end, the rows against the
acknowledged creates (lost, duplicated, unacknowledged but present).

Every MCP client lists the tools (``tools/list``) as its phase starts, as
an agent does when it connects. A refused connection is retried too (the
request was never sent); any other transport error is final.

Faults (``--fault``, repeatable; bench/_fleet_faults.py), each fired in the
middle of every phase (several spread over it), with what happened recorded
beside the side's figures:

* ``rolling-restart``: SIGHUP to the master (gunicorn starts new workers and
  stops the old ones gracefully; uvicorn restarts its workers one by one);
* ``scale-workers``: SIGTTIN to the master (a worker more), and once it
  runs SIGTTOU (one fewer), as an autoscaler does;
* ``redis-restart``: the bench's own redis-server (on a free port, never a
  shared one) stopped and started empty a second later, with ``tools/list``
  before and after compared;
* ``pg-terminate``: ``pg_terminate_backend`` on every backend of the bench's
  database;
* ``slow-client``: a client that reads 64 bytes of a 200-row page and resets
  the connection, and one that sends half a body and stalls: the seconds
  until the server lets go of it (``--worker-timeout``, gunicorn's
  ``--timeout``).

A probe app the bench's settings install (it counts, it changes nothing)
reports per worker the schemas it built and the listing cache's hits and
misses. ``--server uvicorn`` serves ``demo_project.asgi`` with
``uvicorn --workers`` instead of gunicorn; ``--preload`` passes gunicorn's
``--preload`` (the master warms up once, before it forks). ``--app
inventory`` serves the demo plus the scale app's 300 viewsets (1,812 more
tools, bench/_fleet_scale.py): the same mix, on a registry of a large host.
``--machines N`` starts N such servers one after the other (each its own
master, port and log; the database and Redis shared, as several machines
behind a load balancer share them): client ``i`` talks to server ``i % N``,
and the faults act on the first.
``--pgbouncer``
puts a pgbouncer of the bench's own (transaction pooling) between the
workers and PostgreSQL. The run's database is a copy of a template the
bench migrates and seeds once per server, code and counts
(``--no-template``: seed anew); ``seconds_by_step`` in the result says
where a run's time went.

Loopback only; the load stops by itself (``--seconds`` at most 300); the
servers, the database and the bench's Redis are removed on any error.

Usage::

    .venv/bin/python bench/bench_fleet_load.py          # full form: 4 workers,
        # 32 clients, 200,000 contacts, 50,000 devices, 60 s
    .venv/bin/python bench/bench_fleet_load.py --contacts 20000 --devices 5000 \\
        --workers 2 --clients 16 --seconds 80
    .venv/bin/python bench/bench_fleet_load.py --bulk-share 0 --preload \\
        --warmup 10 --seconds 120   # the goals' run

    .venv/bin/python bench/bench_fleet_load.py --contacts 500 --devices 200 \\
        --workers 2 --clients 8 --seconds 12 --bulk 20 --preload \\
        --fault rolling-restart --fault pg-terminate   # the CI short form

Needs PostgreSQL on 127.0.0.1:5432 (user ``postgres``) and ``redis-server``
on the PATH (or ``--redis-url`` for a running Redis, without
``redis-restart``). Exits 1 if a write was lost or doubled.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import httpx
from _common import (
    MCP_HEADERS,
    REST_HEADERS,
    ROOT,
    Server,
    auth_headers,
    call_body,
    jsonrpc_body,
    machine,
    manage,
    percentile,
    postgres_database,
    postgres_template,
    progress,
    raise_on_sigterm,
    run_script,
    schema_digest,
    server,
    write_json,
)
from _fleet_faults import (
    FAULTS,
    PGBOUNCER_SETTINGS,
    PROBE,
    Connections,
    Faults,
    Target,
    own_pgbouncer,
    own_redis,
    probe_counts,
    worker_rss_mb,
    workers_cpu_s,
)
from _fleet_scale import ENV as SCALE_ENV
from _fleet_scale import SETTINGS as SCALE_SETTINGS
from _fleet_scale import URLCONF as SCALE_URLCONF

SIDES = ("MCP", "REST")
#: The issue's mix, in percent: bulk creates take ``--bulk-share`` of the 15 %
#: writes (5 by default), single writes the rest (see :func:`mix_weights`).
MIX = {"list": 60, "retrieve": 25, "write": 10, "bulk": 5}
WRITES = MIX["write"] + MIX["bulk"]
#: The goals of issue 29 for MCP against REST in the same run.
GOALS = {"ops_per_s": 0.9, "p99_ms": 1.2}
RETRIES = 5
MAX_SECONDS = 300
SETTINGS = '''"""Written by bench/bench_fleet_load.py: the demo with a Redis cache."""
from demo_project.settings import *  # noqa: F403

INSTALLED_APPS = ["fleet_load_probe.ProbeConfig", *INSTALLED_APPS]  # noqa: F405

CACHES = {{
    "default": {{
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": {redis!r},
        "KEY_PREFIX": {prefix!r},
    }}
}}
'''
SEED_SCRIPT = """
from django.core.management import call_command
call_command("migrate", interactive=False, verbosity=0)  # one process: one start-up
call_command("seed_demo")
from demo_project.contacts.models import Contact
from demo_project.dcim.models import Device, Site
n, d = {contacts}, {devices}
Contact.objects.bulk_create(
    (Contact(email=f"seed-{{i}}@example.com", first_name="Seed",
             last_name=f"Name {{i % 1000}}", notes="seeded") for i in range(n)),
    batch_size=5000)
sites = Site.objects.bulk_create(
    Site(name=f"load-site-{{i}}", slug=f"load-site-{{i}}") for i in range(50))
statuses = ("active", "planned", "offline", "decommissioning")
Device.objects.bulk_create(
    (Device(name=f"dev-{{i}}", site=sites[i % 50], status=statuses[i % 4],
            serial=f"S{{i}}") for i in range(d)),
    batch_size=5000)
"""


@dataclass
class Stats:
    """What one side's clients did: latencies, errors, acknowledged emails."""

    ops: Counter[str] = field(default_factory=Counter)
    latencies: list[float] = field(default_factory=list)
    by_kind: dict[str, list[float]] = field(default_factory=dict)
    errors: Counter[str] = field(default_factory=Counter)
    retried: int = 0
    requests: int = 0
    acked: list[str] = field(default_factory=list)

    def add(self, other: Stats) -> None:
        self.ops.update(other.ops)
        self.latencies += other.latencies
        for kind, seconds in other.by_kind.items():
            self.by_kind.setdefault(kind, []).extend(seconds)
        self.errors.update(other.errors)
        self.retried += other.retried
        self.requests += other.requests
        self.acked += other.acked


class Failed(Exception):
    """An operation's final answer was an error; ``code`` names it."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


# -- one operation -----------------------------------------------------------------


def _error_code(response: httpx.Response) -> str | None:
    """``None`` for a success; else ``HTTP 503 JSON-RPC -32000 unavailable``,
    ``tool not_found``, ``HTTP 404``, ..."""
    status = f"HTTP {response.status_code}"
    failed = response.status_code >= 300
    if "/mcp" not in str(response.request.url):
        return status if failed else None
    try:
        message = response.json()
    except ValueError:
        return status if failed else f"{status} not JSON"
    if isinstance(message, dict) and isinstance(message.get("error"), dict):
        error = message["error"]
        data = error.get("data") if isinstance(error.get("data"), dict) else {}
        return f"{status} JSON-RPC {error.get('code')} {data.get('code', '')}".rstrip()
    result = message.get("result") if isinstance(message, dict) else None
    if failed or not isinstance(result, dict):
        return status if failed else f"{status} no result"
    if result.get("isError"):
        # The text block holds the error object (ADR 0038), structured or not.
        try:
            error = json.loads(result["content"][0]["text"])["error"]
        except (KeyError, IndexError, TypeError, ValueError):
            return "tool error ?"
        return f"tool {error.get('code') if isinstance(error, dict) else '?'}"
    return None


def _send(http: httpx.Client, stats: Stats, method: str, path: str, body: Any) -> Any:
    """Send one request, retrying ``unavailable``; the answer's data.

    A refused connection (a restarting server) is retried too: the request
    was never sent. Any other transport error is final: it may have written.
    """
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    headers = MCP_HEADERS if path == "/mcp" else REST_HEADERS
    for attempt in range(RETRIES + 1):
        stats.requests += 1
        code: str | None = "transport ConnectError"
        try:
            response = http.request(
                method,
                path,
                content=content if body is not None else None,
                headers=headers,
            )
            code = _error_code(response)
        except httpx.ConnectError:
            pass
        except httpx.TransportError as exc:
            raise Failed(f"transport {type(exc).__name__}") from exc
        if code is None:
            data = response.json()
            if path == "/mcp":
                return data["result"].get("structuredContent")
            return data
        retryable = code.startswith(("HTTP 503", "transport")) or code.endswith(
            " unavailable"
        )
        if not retryable or attempt == RETRIES:
            raise Failed(code)
        stats.errors[f"{code} (retried)"] += 1
        stats.retried += 1
        time.sleep(0.05 * 2**attempt)
    raise AssertionError("unreachable")


class Mix:
    """The operations of the mix over one side, with the seeded ids."""

    def __init__(
        self,
        side: str,
        run_id: str,
        ids: dict[str, list[str]],
        pages: dict[str, int],
        bulk: int,
        weights: Mapping[str, float] = MIX,
    ) -> None:
        self.side = side
        self.bulk = bulk
        self.weights = {kind: share for kind, share in weights.items() if share}
        self.pages = pages
        self.run_id = run_id
        self.ids = ids
        self.counter = 0
        self.lock = threading.Lock()

    def _contact(self) -> dict[str, str]:
        with self.lock:
            self.counter += 1
            number = self.counter
        return {
            "email": f"fleet-{self.run_id}-{self.side.lower()}-{number}@example.com",
            "first_name": "Load",
            "last_name": f"Contact {number}",
            "notes": "Created by bench/bench_fleet_load.py.",
        }

    def run(self, kind: str, http: httpx.Client, rng: random.Random, s: Stats) -> None:
        getattr(self, f"_{kind}")(http, rng, s)

    def _call(
        self,
        http: httpx.Client,
        s: Stats,
        tool: str,
        args: dict[str, Any],
        rest: tuple[str, str, Any],
    ) -> Any:
        if self.side == "MCP":
            return _send(http, s, "POST", "/mcp", call_body(tool, args))
        return _send(http, s, *rest)

    def _list(self, http: httpx.Client, rng: random.Random, s: Stats) -> None:
        """A page of contacts (half of them filtered by last name) or devices."""
        if rng.random() < 0.5:
            tool, path = "contacts__list", "/api/contacts/"
            page = rng.randint(1, self.pages["contacts"])
            filters = {}
            if rng.random() < 0.5:
                filters, page = {"last_name": f"Name {rng.randrange(1000)}"}, 1
        else:
            tool, path = "dcim__devices__list", "/api/dcim/devices/"
            page = rng.randint(1, self.pages["devices"])
            filters = {"status": rng.choice(("active", "planned"))}
        # The demo's REST PAGE_SIZE: the same rows on both sides (the tool's
        # own default, frisian_mcp's PAGE_SIZE, is 50).
        args: dict[str, Any] = {"page": page, "page_size": 25, "filters": filters}
        query = urlencode({"page": page, **filters})
        self._call(http, s, tool, args, ("GET", f"{path}?{query}", None))

    def _retrieve(self, http: httpx.Client, rng: random.Random, s: Stats) -> None:
        if rng.random() < 0.5:
            pk = rng.choice(self.ids["contacts"])
            self._call(
                http,
                s,
                "contacts__retrieve",
                {"id": pk},
                ("GET", f"/api/contacts/{pk}/", None),
            )
        else:
            pk = rng.choice(self.ids["devices"])
            self._call(
                http,
                s,
                "dcim__devices__retrieve",
                {"id": int(pk)},
                ("GET", f"/api/dcim/devices/{pk}/", None),
            )

    def _write(self, http: httpx.Client, rng: random.Random, s: Stats) -> None:
        if rng.random() < 0.5:
            fields = self._contact()
            self._call(
                http, s, "contacts__create", fields, ("POST", "/api/contacts/", fields)
            )
            s.acked.append(fields["email"])
        else:
            pk = rng.choice(self.ids["contacts"])
            notes = {"notes": f"updated {rng.random()}"}
            self._call(
                http,
                s,
                "contacts__partial_update",
                {"id": pk, **notes},
                ("PATCH", f"/api/contacts/{pk}/", notes),
            )

    def _bulk(self, http: httpx.Client, rng: random.Random, s: Stats) -> None:
        items = [self._contact() for _ in range(self.bulk)]
        if self.side == "MCP":
            _send(
                http,
                s,
                "POST",
                "/mcp",
                call_body("contacts__create", {"objects": items}),
            )
            s.acked += [item["email"] for item in items]
            return
        for item in items:  # REST has no bulk create: one POST each
            _send(http, s, "POST", "/api/contacts/", item)
            s.acked.append(item["email"])


# -- the load --------------------------------------------------------------------------


def mix_weights(bulk_share: float) -> dict[str, float]:
    """The mix with ``bulk_share`` percent of bulk creates.

    The bulk share is taken from the writes and given to them: the mix keeps
    60 % lists, 25 % retrieves and 15 % writes whatever the share, so with
    ``0`` the 5 % of bulk creates are single creates or updates. REST has no
    bulk create (a bulk operation is ``--bulk`` POSTs there, one request
    over MCP): only then is each operation one request on both sides.
    """
    return {**MIX, "write": WRITES - bulk_share, "bulk": bulk_share}


def phase(
    base_urls: list[str], mix: Mix, clients: int, seconds: float
) -> tuple[Stats, float]:
    """Run the mix with ``clients`` threads for ``seconds``; stats and wall time.

    Client ``i`` talks to ``base_urls[i % len(base_urls)]`` (the machines).
    """
    per_client = [Stats() for _ in range(clients)]
    kinds, weights = list(mix.weights), list(mix.weights.values())
    deadline = time.monotonic() + seconds
    headers = auth_headers()

    def client(index: int) -> None:
        rng = random.Random(f"{mix.run_id}-{mix.side}-{index}-{deadline}")
        stats = per_client[index]
        base_url = base_urls[index % len(base_urls)]
        with httpx.Client(base_url=base_url, headers=headers, timeout=60) as http:
            if mix.side == "MCP":  # an agent lists the tools as it starts
                try:
                    _send(http, stats, "POST", "/mcp", jsonrpc_body("tools/list", {}))
                except Failed as exc:
                    stats.errors[f"{exc.code} (tools/list)"] += 1
            while time.monotonic() < deadline:
                kind = rng.choices(kinds, weights)[0]
                start = time.perf_counter()
                try:
                    mix.run(kind, http, rng, stats)
                except Failed as exc:
                    stats.errors[f"{exc.code} ({kind})"] += 1
                seconds = time.perf_counter() - start
                stats.latencies.append(seconds)
                stats.by_kind.setdefault(kind, []).append(seconds)
                stats.ops[kind] += 1

    started = time.monotonic()
    threads = [
        threading.Thread(target=client, args=(i,), daemon=True) for i in range(clients)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    total = Stats()
    for stats in per_client:
        total.add(stats)
    return total, time.monotonic() - started


def seeded_ids(dsn: str) -> dict[str, list[str]]:
    """A sample of seeded contact and device ids to retrieve and update."""
    import psycopg

    with psycopg.connect(dsn) as conn:
        contacts = conn.execute(
            "SELECT id FROM contacts_contact WHERE email LIKE 'seed-%' LIMIT 5000"
        ).fetchall()
        devices = conn.execute("SELECT id FROM dcim_device LIMIT 5000").fetchall()
    return {
        "contacts": [str(row[0]) for row in contacts],
        "devices": [str(row[0]) for row in devices],
    }


def check_rows(dsn: str, run_id: str, acked: list[str]) -> dict[str, int]:
    """Rows of this run's creates against the acknowledged ones."""
    import psycopg

    with psycopg.connect(dsn) as conn:
        rows = conn.execute(
            "SELECT email, count(*) FROM contacts_contact WHERE email LIKE %s "
            "GROUP BY email",
            (f"fleet-{run_id}-%",),
        ).fetchall()
    present: dict[str, int] = dict(rows)
    acked_set = set(acked)
    return {
        "acknowledged": len(acked),
        "rows": sum(present.values()),
        "lost": sum(1 for email in acked_set if email not in present),
        "duplicated": sum(count - 1 for count in present.values()),
        "unacknowledged_present": sum(1 for e in present if e not in acked_set),
    }


# -- the run and its report ------------------------------------------------------------


def summary(
    stats: Stats, seconds: float, rss: dict[str, list[float]], cpu_s: float
) -> dict[str, Any]:
    """One side's figures."""
    ordered = sorted(stats.latencies)
    count = sum(stats.ops.values())
    return {
        "worker_cpu_ms_per_op": round(cpu_s * 1000 / count, 2) if count else None,
        "operations": count,
        "by_kind": dict(stats.ops),
        "seconds": round(seconds, 2),
        "ops_per_s": round(count / seconds, 1) if seconds else 0.0,
        "http_requests": stats.requests,
        "http_requests_per_s": round(stats.requests / seconds, 1) if seconds else 0.0,
        "p50_ms": round(percentile(ordered, 50) * 1000, 1) if ordered else None,
        "p95_ms": round(percentile(ordered, 95) * 1000, 1) if ordered else None,
        "p99_ms": round(percentile(ordered, 99) * 1000, 1) if ordered else None,
        "p50_p99_ms_by_kind": {
            kind: [round(percentile(sorted(values), p) * 1000, 1) for p in (50, 99)]
            for kind, values in stats.by_kind.items()
        },
        "errors": dict(stats.errors),
        "retried": stats.retried,
        "worker_rss_mb": rss,
    }


def ratios(sides: dict[str, dict[str, Any]], bulk_share: float) -> dict[str, Any]:
    """MCP's figures over REST's, and the issue's goals judged on them.

    ``comparable`` is false while the mix has bulk creates (one MCP request
    against ``--bulk`` REST POSTs): the goals are judged on a run with
    ``--bulk-share 0`` only.
    """
    mcp, rest = sides["MCP"], sides["REST"]

    def over(a: Any, b: Any) -> float | None:
        return round(a / b, 3) if a is not None and b else None

    keys = (
        "ops_per_s",
        "http_requests_per_s",
        "p50_ms",
        "p95_ms",
        "p99_ms",
        "worker_cpu_ms_per_op",
    )
    found: dict[str, Any] = {key: over(mcp[key], rest[key]) for key in keys}
    found["p99_by_kind"] = {
        kind: over(mcp["p50_p99_ms_by_kind"][kind][1], values[1])
        for kind, values in rest["p50_p99_ms_by_kind"].items()
        if kind in mcp["p50_p99_ms_by_kind"]
    }
    found["comparable"] = bulk_share == 0
    throughput, p99 = found["ops_per_s"], found["p99_ms"]
    found["goals"] = {
        f"throughput >= {GOALS['ops_per_s']}x REST": throughput is not None
        and throughput >= GOALS["ops_per_s"],
        f"p99 <= {GOALS['p99_ms']}x REST": p99 is not None and p99 <= GOALS["p99_ms"],
    }
    return found


def unexpected(errors: dict[str, int]) -> dict[str, int]:
    """The errors that are neither retried ``unavailable`` nor a retried
    refused connection: every final error, and any retried other code."""
    allowed = ("HTTP 503", "transport ConnectError", "tool unavailable")
    return {
        code: n
        for code, n in errors.items()
        if not (code.endswith("(retried)") and code.startswith(allowed))
    }


@dataclass
class Loaded:
    """What :func:`load` measured, per side."""

    run_id: str
    totals: dict[str, Stats]
    walls: dict[str, float]
    rss: dict[str, dict[str, list[float]]]
    faults: dict[str, list[dict[str, Any]]]
    #: The creates the unmeasured warm-up had acknowledged (rows checked too).
    warmup_acked: list[str] = field(default_factory=list)
    #: The workers' CPU seconds over each side's phases.
    cpu_s: dict[str, float] = field(default_factory=lambda: dict.fromkeys(SIDES, 0.0))
    #: Each measured phase's own figures: their spread is the run's noise.
    phases: list[dict[str, Any]] = field(default_factory=list)


def load(args: argparse.Namespace, target: Target, dsn: str) -> Loaded:
    """Alternate MCP and REST phases, each with the faults in its middle."""
    run_id = uuid.uuid4().hex[:8]
    ids = seeded_ids(dsn)
    pages = {  # 25 a page; devices filtered by one status of four
        "contacts": max(1, min(400, args.contacts // 25)),
        "devices": max(1, min(400, args.devices // 100)),
    }
    weights = mix_weights(args.bulk_share)
    mixes = {side: Mix(side, run_id, ids, pages, args.bulk, weights) for side in SIDES}
    out = Loaded(
        run_id,
        {side: Stats() for side in SIDES},
        dict.fromkeys(SIDES, 0.0),
        {side: {} for side in SIDES},
        {side: [] for side in SIDES},
    )
    masters = [machine.pid for machine in target.machines]
    urls = [machine.base_url for machine in target.machines]

    def rss() -> list[float]:
        return sorted(v for master in masters for v in worker_rss_mb(master).values())

    def cpu_s() -> dict[int, float]:
        return {
            pid: s for master in masters for pid, s in workers_cpu_s(master).items()
        }

    for side in (
        (SIDES if args.first == "MCP" else SIDES[::-1]) if args.warmup else ()
    ):  # unmeasured, without faults
        progress(f"warm-up: {side} for {args.warmup / 2:g} s")
        stats, _ = phase(urls, mixes[side], args.clients, args.warmup / 2)
        out.warmup_acked += stats.acked
    per_phase = args.seconds / (2 * args.rounds)
    for round_ in range(args.rounds):
        first = SIDES if args.first == "MCP" else SIDES[::-1]
        order = first if round_ % 2 == 0 else first[::-1]
        for side in order:
            progress(f"round {round_ + 1}: {side} for {per_phase:g} s")
            before = rss()
            cpu_before = cpu_s()
            with Faults(target, args.fault, per_phase) as faults:
                stats, wall = phase(urls, mixes[side], args.clients, per_phase)
            cpu_after = cpu_s()
            after = rss()
            # Workers that lived through the phase (a restart's are left out).
            cpu = sum(
                cpu_after[p] - cpu_before[p] for p in cpu_before if p in cpu_after
            )
            out.cpu_s[side] += cpu
            ops = sum(stats.ops.values())
            out.phases.append(
                {
                    "side": side,
                    "ops_per_s": round(ops / wall, 1) if wall else 0.0,
                    "p99_ms": round(percentile(sorted(stats.latencies), 99) * 1000, 1)
                    if stats.latencies
                    else None,
                    "worker_cpu_ms_per_op": round(cpu * 1000 / ops, 2) if ops else None,
                }
            )
            out.rss[side].setdefault("start", [round(v, 1) for v in before])
            out.rss[side]["end"] = [round(v, 1) for v in after]
            out.totals[side].add(stats)
            out.walls[side] += wall
            out.faults[side] += faults.events
    return out


def list_tools(base_url: str) -> list[str]:
    """The names ``tools/list`` gives the demo user (first page)."""
    response = httpx.post(
        f"{base_url}/mcp",
        content=jsonrpc_body("tools/list", {}),
        headers={**MCP_HEADERS, **auth_headers()},
        timeout=30,
    )
    return sorted(t["name"] for t in response.json()["result"]["tools"])


def table(result: dict[str, Any]) -> str:
    """A short text table of the two sides."""
    rows = [
        "side   ops/s  req/s   p50 ms   p95 ms   p99 ms  errors  RSS MB start -> end"
    ]
    for side in SIDES:
        s = result["sides"][side]
        rss = s["worker_rss_mb"]
        rows.append(
            f"{side:<5} {s['ops_per_s']:>6} {s['http_requests_per_s']:>6} "
            f"{s['p50_ms']:>8} {s['p95_ms']:>8} "
            f"{s['p99_ms']:>8} {sum(s['errors'].values()):>7}  "
            f"{rss.get('start')} -> {rss.get('end')}"
        )
        rows.append(f"  errors: {s['errors']}")
        rows.append(f"  faults: {s['faults']}")
    ratio = result["mcp_over_rest"]
    rows.append(
        f"MCP / REST: throughput {ratio['ops_per_s']}x, p50 {ratio['p50_ms']}x, "
        f"p95 {ratio['p95_ms']}x, p99 {ratio['p99_ms']}x, workers' CPU per "
        f"operation {ratio['worker_cpu_ms_per_op']}x; p99 by kind {ratio['p99_by_kind']}"
    )
    rows.append(
        "per phase: "
        + "; ".join(
            f"{p['side']} {p['ops_per_s']}/s p99 {p['p99_ms']} ms "
            f"CPU {p['worker_cpu_ms_per_op']} ms/op"
            for p in result["phases"]
        )
    )
    if ratio["comparable"]:
        met = ", ".join(
            f"{goal}: {'met' if ok else 'NOT met'}"
            for goal, ok in ratio["goals"].items()
        )
        rows.append(f"goals (--bulk-share 0, one request an operation): {met}")
    else:
        rows.append(
            "goals not judged: bulk creates are one MCP request against "
            "--bulk REST POSTs (run with --bulk-share 0)"
        )
    rows.append(f"PostgreSQL connections (max seen): {result['pg_connections_max']}")
    rows.append(f"Redis keys of the run at the end: {result['redis_keys_at_end']}")
    per_worker = {
        pid: {k: v for k, v in counts.items() if k != "built"}
        for pid, counts in result["per_worker"].items()
    }
    rows.append(f"per worker (probe): {per_worker}")
    rows.append(f"rows: {result['rows']}")
    rows.append(f"load average: {result['load_average']}")
    return "\n".join(rows)


def clear_redis(url: str, prefix: str) -> int:
    """Delete the run's keys from Redis; how many there were."""
    import redis

    client = redis.Redis.from_url(url)
    keys = list(client.scan_iter(match=f"{prefix}:*", count=1000))
    for key in keys:
        client.delete(key)
    return len(keys)


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--server", choices=("gunicorn", "uvicorn"), default="gunicorn")
    parser.add_argument(
        "--app",
        choices=("demo", "inventory"),
        default="demo",
        help="inventory: the demo plus the scale app's 300 viewsets (bench/_fleet_scale.py)",
    )
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument(
        "--machines",
        type=int,
        default=1,
        help="servers of --workers each, sharing the database and Redis only",
    )
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--contacts", type=int, default=200_000)
    parser.add_argument("--devices", type=int, default=50_000)
    parser.add_argument("--seconds", type=float, default=60.0, help="load in all")
    parser.add_argument("--rounds", type=int, default=2, help="MCP+REST pairs")
    parser.add_argument(
        "--first",
        choices=SIDES,
        default="MCP",
        help="the side of the first phase (the order then alternates)",
    )
    parser.add_argument(
        "--warmup",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="an unmeasured MCP and REST phase first, half each, without faults: "
        "each worker's first calls and growth stay out of the figures",
    )
    parser.add_argument("--bulk", type=int, default=100, help="contacts a bulk create")
    parser.add_argument(
        "--bulk-share",
        type=float,
        default=MIX["bulk"],
        metavar="PERCENT",
        help=f"the share of bulk creates in the mix, taken from the {WRITES} %% "
        "writes (default %(default)s); 0: single writes only, so that every "
        "operation is one request on both sides and the MCP/REST ratios compare "
        "like with like",
    )
    parser.add_argument(
        "--fault",
        action="append",
        choices=FAULTS,
        default=[],
        help="fired in the middle of every phase (repeat for several)",
    )
    parser.add_argument(
        "--worker-timeout", type=int, default=30, help="gunicorn --timeout"
    )
    parser.add_argument(
        "--preload", action="store_true", help="gunicorn --preload (warm-up once)"
    )
    parser.add_argument(
        "--pgbouncer",
        action="store_true",
        help="the workers connect through a pgbouncer of the bench's own, in "
        "transaction mode (DISABLE_SERVER_SIDE_CURSORS on)",
    )
    parser.add_argument(
        "--database-url",
        default=f"postgres://postgres@127.0.0.1:5432/frisian_fleet_load_{uuid.uuid4().hex[:8]}",
    )
    parser.add_argument(
        "--redis-url",
        help="a Redis to use (default: a redis-server of the bench's own)",
    )
    parser.add_argument(
        "--template",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="copy a migrated, seeded template database kept on the server "
        "(built on first use, per code and counts) instead of seeding anew",
    )
    parser.add_argument("--json", type=Path, help="also write the result here")
    args = parser.parse_args(argv)
    if not 0 < args.seconds <= MAX_SECONDS:
        parser.error(f"--seconds must be in (0, {MAX_SECONDS}]")
    if not 1 <= args.machines <= 4:
        parser.error("--machines must be in [1, 4]")
    if not 0 <= args.warmup <= 60:
        parser.error("--warmup must be in [0, 60]")
    if args.rounds < 2 or not 1 <= args.clients <= 256 or args.workers < 1:
        parser.error("--rounds >= 2, 1 <= --clients <= 256, --workers >= 1")
    if not 0 <= args.bulk_share <= WRITES:
        parser.error(f"--bulk-share must be in [0, {WRITES}]")
    if not 1 <= args.bulk <= 1000:
        parser.error("--bulk must be in [1, 1000]")
    if args.preload and args.server != "gunicorn":
        parser.error("--preload is gunicorn's")
    if args.redis_url and "redis-restart" in args.fault:
        parser.error(
            "--fault redis-restart restarts the bench's own Redis: no --redis-url"
        )
    return args


@contextlib.contextmanager
def serve(
    args: argparse.Namespace, url: str, work_dir: Path, env: dict[str, str]
) -> Iterator[list[Server]]:
    """The demo under ``--server`` with ``--workers`` workers, on each of
    ``--machines`` servers: started one after the other, sharing the
    database and Redis and nothing else (their own masters, ports and logs)."""
    preload = {"GUNICORN_CMD_ARGS": "--preload"} if args.preload else {}
    with contextlib.ExitStack() as stack:
        machines = []
        for index in range(args.machines):
            machine_dir = work_dir / f"machine-{index}"
            machine_dir.mkdir()
            machines.append(
                stack.enter_context(
                    server(
                        args.server,
                        url,
                        machine_dir,
                        headers=auth_headers(),
                        workers=args.workers,
                        timeout=args.worker_timeout
                        if args.server == "gunicorn"
                        else None,
                        env={**env, **preload},
                    )
                )
            )
        yield machines


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Bring the fleet up, seed it, load it with the faults; the result."""
    prefix = f"fleet-load-{uuid.uuid4().hex[:8]}"
    began = time.monotonic()
    laps = Laps()
    with contextlib.ExitStack() as stack:
        redis = None if args.redis_url else stack.enter_context(own_redis())
        redis_url = args.redis_url or (redis.url if redis else "")
        laps("redis")
        progress(f"Seeding {args.contacts} contacts, {args.devices} devices ...")
        seeded = time.monotonic()
        script = SEED_SCRIPT.format(contacts=args.contacts, devices=args.devices)
        template = None
        if args.template:  # migrated and seeded once per server, then copied
            template = postgres_template(
                args.database_url,
                schema_digest(script),
                lambda url: manage(url, ("shell", "-c", script)),
            )
        database = stack.enter_context(
            postgres_database(args.database_url, template=template)
        )
        if template is None:
            manage(database.url, ("shell", "-c", script))
        seed_s = time.monotonic() - seeded
        laps("seed")
        work_dir = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        served_url, bouncer = database.url, None
        settings = SETTINGS.format(redis=redis_url, prefix=prefix)
        if args.pgbouncer:  # the workers connect through it; the bench does not
            bouncer = stack.enter_context(own_pgbouncer(database.url))
            served_url = bouncer.url(database.url)
            settings += PGBOUNCER_SETTINGS
        if args.app == "inventory":
            settings += SCALE_SETTINGS
            (work_dir / "fleet_load_urls.py").write_text(SCALE_URLCONF)
        (work_dir / "fleet_load_settings.py").write_text(settings)
        (work_dir / "fleet_load_probe.py").write_text(PROBE)
        load_start = list(os.getloadavg())
        env = {
            "DJANGO_SETTINGS_MODULE": "fleet_load_settings",
            "PYTHONPATH": f"{work_dir}:{ROOT}",
            "FLEET_LOAD_PROBE_DIR": str(work_dir),
            **(SCALE_ENV if args.app == "inventory" else {}),
        }
        name = database.url.rsplit("/", 1)[1]
        admin = database.dsn.rsplit("/", 1)[0] + "/postgres"
        try:
            with (
                serve(args, served_url, work_dir, env) as machines,
                Connections(admin, name) as connections,
            ):
                laps("serve")
                server = machines[0]
                target = Target(
                    server,
                    admin,
                    name,
                    redis,
                    args.worker_timeout,
                    lambda: list_tools(server.base_url),
                    machines,
                )
                loaded = load(args, target, database.dsn)
                laps("load")
                log = _server_log(work_dir, args.json)
            laps("stop")
            totals = loaded.totals
            acked = totals["MCP"].acked + totals["REST"].acked + loaded.warmup_acked
            rows = check_rows(database.dsn, loaded.run_id, acked)
        finally:
            redis_keys = clear_redis(redis_url, prefix)
        per_worker = probe_counts(work_dir)
        laps("rows")
    laps("clean_up")
    sides = {}
    for side in SIDES:
        sides[side] = summary(
            totals[side], loaded.walls[side], loaded.rss[side], loaded.cpu_s[side]
        )
        sides[side]["faults"] = loaded.faults[side]
        sides[side]["unexpected_errors"] = unexpected(totals[side].errors)
    mcp_over_rest = ratios(sides, args.bulk_share)
    return {
        "benchmark": "bench_fleet_load.py",
        "machine": machine(),
        "database": database.label,
        "options": {k: str(v) for k, v in vars(args).items() if k != "database_url"},
        "seed_seconds": round(seed_s, 1),
        "seeded_from_template": template,
        "elapsed_seconds": round(time.monotonic() - began, 1),
        "seconds_by_step": laps.seconds,
        "load_average": {"start": load_start, "end": list(os.getloadavg())},
        "sides": sides,
        "mcp_over_rest": mcp_over_rest,
        "phases": loaded.phases,
        "pg_connections_max": max(connections.samples, default=0),
        "redis_keys_at_end": redis_keys,
        "redis_restarts_s": redis.restarts if redis else [],
        "pgbouncer": bouncer.version + ", pool_mode transaction" if bouncer else None,
        "server_log": log,
        "per_worker": per_worker,
        "rows": rows,
    }


class Laps:
    """Seconds each step of a run took: ``laps("seed")`` ends the step."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self.mark = time.monotonic()

    def __call__(self, step: str) -> None:
        now = time.monotonic()
        self.seconds[step] = round(now - self.mark, 2)
        self.mark = now


def _server_log(work_dir: Path, keep: Path | None) -> dict[str, int]:
    """Worker boots and timeouts the server logged; the log is kept beside
    the ``--json`` file (``<name>.server.log``), with the audit records."""
    text = "".join(
        path.read_text(errors="replace") for path in work_dir.glob("**/*corn.log")
    )
    if keep is not None:
        keep.parent.mkdir(parents=True, exist_ok=True)
        keep.with_suffix(".server.log").write_text(text)
    return {
        "workers_booted": text.count("Booting worker")
        + text.count("Started server process"),
        "worker_timeouts": text.count("WORKER TIMEOUT"),
    }


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    raise_on_sigterm()
    result = run(args)
    print(json.dumps(result, indent=2))
    print(table(result))
    if args.json:
        write_json(args.json, result, "Result")
    rows = result["rows"]
    return 1 if rows["lost"] or rows["duplicated"] else 0


if __name__ == "__main__":
    run_script(main, "bench_fleet_load.py")
