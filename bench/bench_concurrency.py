"""Throughput under concurrency: MCP vs REST, 16 clients, 4 gunicorn workers.

Run from the repository root::

    python3 dev.py bench bench/bench_concurrency.py [--clients N] [--workers N]
        [--rounds N] [--seconds S] [--warmup S] [--database-url URL]
        [--json PATH]

(``dev.py bench`` runs the script with ``.venv``'s Python, so
``.venv/bin/python bench/bench_concurrency.py ...`` is the same thing.)

Issue #6 asks that, under the same concurrent load, the demo answer at least
0.9x as many MCP ``tools/call`` requests per second as REST requests. What
it does:

1. Creates a fresh, throw-away PostgreSQL database (``--database-url``,
   default ``postgres://postgres@127.0.0.1:5432/frisian_bench_concurrency``;
   created and dropped through the server's ``postgres`` database, and
   refused if it exists already), migrates and seeds it (``migrate``,
   ``seed_demo``) in subprocesses. Every Django process runs with
   ``DJANGO_DEBUG=0``: with DEBUG on, Django keeps every query in memory.
   SQLite is not offered: its database-wide write lock would be measured.
2. Starts the demo under gunicorn (``demo_project.wsgi:application``,
   ``--workers`` sync workers, default 4, on 127.0.0.1, a free port) and
   waits until every worker has booted and the API answers.
3. Runs phases of ``--seconds`` (default 4) each. In a phase,
   ``--clients`` threads (default 16, each with its own ``httpx.Client``)
   start together and repeat, until the phase's time is up, a fixed mix of
   one create and one retrieve:

   * MCP: ``tools/call contacts__create`` (a unique email each time), then
     ``tools/call contacts__retrieve`` of one of the client's own rows;
   * REST: ``POST /api/contacts/`` with the same fields, then
     ``GET /api/contacts/<id>/``.

   Both sides authenticate as the demo user (``Authorization: Token``, the
   token ``seed_demo`` creates). Every response is checked (HTTP 200/201, a
   JSON-RPC 2.0 result with ``isError`` false, the contact sent or asked
   for) and the run stops at the first wrong one, so the figures never time
   error paths. A phase's throughput is its checked requests divided by the
   time from its start to its last response.
4. After one warm-up phase per side (``--warmup`` seconds, not counted),
   runs ``--rounds`` rounds (default 5) of one MCP and one REST phase,
   alternating which side goes first (MCP, REST, REST, MCP, MCP, REST...),
   so drift over the run (other jobs, the table growing) hits both sides
   alike.
5. Around every phase it also reads (Linux ``/proc``) the CPU time used by
   this process (the clients), the gunicorn workers and the PostgreSQL
   backends of the database. CPU time per request hardly depends on what
   else runs on the machine, so its MCP/REST ratio is the steady figure on
   a shared host; REST's CPU per request over MCP's is the throughput ratio
   to expect when the machine is CPU-bound.
6. Checks that the contacts table grew by exactly the number of successful
   creates, prints Markdown (per-phase table, totals per side, CPU per
   request, the MCP/REST ratio of requests per second overall and per
   round, and whether the 0.9 goal is met) and optionally writes every
   figure and latency sample as JSON (``--json``).
7. Stops gunicorn and drops the database, also on errors, Ctrl-C and
   SIGTERM.

The clients run in this process, on the same machine as gunicorn and
PostgreSQL; they cost the same on both sides (MCP bodies are a little larger
to encode and decode). gunicorn's sync worker closes the connection after
each response, so every request includes a TCP connect over loopback, alike
for both sides. Read the ratio, not the absolute requests per second: the
machines this runs on are shared and noisy.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import random
import resource
import statistics
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx
from _common import MCP_HEADERS as _MCP_HEADERS
from _common import (
    MIGRATE,
    SEED,
    BenchError,
    auth_headers,
    call_body,
    check_contact,
    check_id,
    contact_fields,
    expect_json,
    gunicorn,
    machine,
    manage,
    percentile,
    postgres_database,
    progress,
    raise_on_sigterm,
    run_script,
    show,
    write_json,
)
from _common import REST_HEADERS as _REST_HEADERS

#: Every request authenticates as the seeded ``demo`` user.
MCP_HEADERS = {**_MCP_HEADERS, **auth_headers()}
REST_HEADERS = {**_REST_HEADERS, **auth_headers()}
DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/frisian_bench_concurrency"
#: Issue #6's goal: MCP requests/s at least this share of REST's.
GOAL = 0.9
SIDES = ("MCP", "REST")


def count_contacts(url: str) -> int:
    """Rows in the demo's contacts table, read directly."""
    import psycopg

    dsn = urlunsplit(urlsplit(url)._replace(scheme="postgresql"))
    with psycopg.connect(dsn) as conn:
        row = conn.execute("SELECT count(*) FROM contacts_contact").fetchone()
    return int(row[0]) if row else 0


# -- CPU time ------------------------------------------------------------------

#: Process groups whose CPU time is measured, in report order.
CPU_GROUPS = ("client", "gunicorn", "postgres")


class CpuMeter:
    """CPU seconds used by this process, the gunicorn workers and the backends.

    Reads ``/proc`` (Linux); elsewhere :attr:`available` is false and no CPU
    figures are reported. CPU time per request hardly depends on what else
    runs on the machine, unlike requests per second, so it is the steadier
    figure on a shared host. A backend or worker that exits during a phase
    takes its CPU time of that phase with it (PostgreSQL connections are
    recycled after 60 s, ``CONN_MAX_AGE`` of the demo): a small undercount,
    alike for both sides.
    """

    def __init__(self, gunicorn_pid: int, database_url: str) -> None:
        self.gunicorn_pid = gunicorn_pid
        parts = urlsplit(database_url)
        self.database = parts.path.lstrip("/")
        self.admin_url = urlunsplit(
            parts._replace(scheme="postgresql", path="/postgres")
        )
        self.tick = float(os.sysconf("SC_CLK_TCK")) if hasattr(os, "sysconf") else 0.0
        self.available = Path("/proc/self/stat").exists() and self.tick > 0

    def snapshot(self) -> dict[str, dict[int, float]]:
        """CPU seconds so far per process, by group."""
        if not self.available:
            return {}
        import psycopg

        usage = resource.getrusage(resource.RUSAGE_SELF)
        workers = {}
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                stat = self._stat(int(entry.name))
                if stat is not None and stat[0] == self.gunicorn_pid:
                    workers[int(entry.name)] = stat[1]
        with psycopg.connect(self.admin_url, autocommit=True) as admin:
            pids = admin.execute(
                "SELECT pid FROM pg_stat_activity WHERE datname = %s",
                (self.database,),
            ).fetchall()
        backends = {}
        for (pid,) in pids:
            stat = self._stat(pid)
            if stat is not None:
                backends[pid] = stat[1]
        return {
            "client": {0: usage.ru_utime + usage.ru_stime},
            "gunicorn": workers,
            "postgres": backends,
        }

    def _stat(self, pid: int) -> tuple[int, float] | None:
        """Parent pid and user + system CPU seconds of ``pid``."""
        try:
            text = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            return None
        # Fields after "(comm)": state ppid ... utime (12th) stime (13th).
        fields = text[text.rindex(")") + 2 :].split()
        return int(fields[1]), (int(fields[11]) + int(fields[12])) / self.tick

    @staticmethod
    def used(
        before: dict[str, dict[int, float]], after: dict[str, dict[int, float]]
    ) -> dict[str, float]:
        """CPU seconds per group between two snapshots."""
        return {
            group: sum(
                seconds - before.get(group, {}).get(pid, 0.0)
                for pid, seconds in after[group].items()
            )
            for group in after
        }


# -- load ----------------------------------------------------------------------


@dataclass
class Phase:
    """One side's load for a while: what was sent and how long it took."""

    side: str
    round: int
    creates: int = 0
    retrieves: int = 0
    seconds: float = 0.0
    latencies: list[float] = field(default_factory=list)
    #: CPU seconds used during the phase, by process group.
    cpu: dict[str, float] = field(default_factory=dict)

    @property
    def requests(self) -> int:
        return self.creates + self.retrieves

    @property
    def rate(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0


class Load:
    """``clients`` threads that create and retrieve contacts over one side."""

    def __init__(self, base_url: str, clients: int, meter: CpuMeter) -> None:
        self.base_url = base_url
        self.clients = clients
        self.meter = meter
        self.run_id = uuid.uuid4().hex[:8]
        self.failure: str | None = None
        self.counter = 0
        self.lock = threading.Lock()

    def phase(self, side: str, round_: int, seconds: float) -> Phase:
        """Run the mix over ``side`` for ``seconds``; every response checked."""
        phase = Phase(side, round_)
        per_client: list[Phase] = [Phase(side, round_) for _ in range(self.clients)]
        ends = [0.0] * self.clients
        clock: dict[str, float] = {}
        cpu: dict[str, dict[int, float]] = {}

        def start() -> None:  # run once, as the threads are released together
            cpu.update(self.meter.snapshot())
            clock["start"] = time.perf_counter()
            clock["deadline"] = clock["start"] + seconds

        barrier = threading.Barrier(self.clients, action=start, timeout=60)

        def client(index: int) -> None:
            rng = random.Random(f"{self.run_id}-{side}-{round_}-{index}")
            stats = per_client[index]
            with httpx.Client(base_url=self.base_url, timeout=60) as http:
                own: list[str] = []
                barrier.wait()
                try:
                    while (
                        time.perf_counter() < clock["deadline"] and self.failure is None
                    ):
                        own.append(self._create(http, side, stats))
                        self._retrieve(http, side, rng.choice(own), stats)
                except BenchError as exc:
                    self.failure = self.failure or str(exc)
                except httpx.HTTPError as exc:
                    self.failure = (
                        self.failure or f"{side}: {type(exc).__name__}: {exc}"
                    )
                ends[index] = time.perf_counter()

        threads = [
            threading.Thread(target=client, args=(i,), daemon=True)
            for i in range(self.clients)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        if self.failure is not None:
            raise BenchError(self.failure)
        phase.seconds = max(ends) - clock["start"]
        if self.meter.available:
            phase.cpu = self.meter.used(cpu, self.meter.snapshot())
        for stats in per_client:
            phase.creates += stats.creates
            phase.retrieves += stats.retrieves
            phase.latencies += stats.latencies
        return phase

    def _fields(self, side: str) -> dict[str, str]:
        with self.lock:
            self.counter += 1
            n = self.counter
        return contact_fields(
            "bench_concurrency.py", "conc", self.run_id, n, side.lower()
        )

    def _create(self, http: httpx.Client, side: str, stats: Phase) -> str:
        fields = self._fields(side)
        if side == "MCP":
            body = call_body("contacts__create", fields)
            data = self._mcp(http, body, "contacts__create", stats)
        else:
            body = json.dumps(fields).encode()
            data = self._rest(http, "POST", "/api/contacts/", body, 201, stats)
        contact_id = check_contact(data, fields, f"{side} create")
        stats.creates += 1
        return contact_id

    def _retrieve(
        self, http: httpx.Client, side: str, contact_id: str, stats: Phase
    ) -> None:
        if side == "MCP":
            body = call_body("contacts__retrieve", {"id": contact_id})
            data = self._mcp(http, body, "contacts__retrieve", stats)
        else:
            path = f"/api/contacts/{contact_id}/"
            data = self._rest(http, "GET", path, None, 200, stats)
        check_id(data, contact_id, f"{side} retrieve")
        stats.retrieves += 1

    def _mcp(self, http: httpx.Client, body: bytes, tool: str, stats: Phase) -> Any:
        """POST a pre-encoded ``tools/call``; return its structuredContent."""
        start = time.perf_counter()
        response = http.post("/mcp", content=body, headers=MCP_HEADERS)
        stats.latencies.append(time.perf_counter() - start)
        message = expect_json(response, 200, f"tools/call {tool}")
        result = message.get("result")
        if (
            message.get("jsonrpc") != "2.0"
            or message.get("id") != 1
            or not isinstance(result, dict)
            or result.get("isError") is not False
        ):
            raise BenchError(f"tools/call {tool} failed: {show(response)}")
        return result.get("structuredContent")

    def _rest(
        self,
        http: httpx.Client,
        method: str,
        path: str,
        body: bytes | None,
        status: int,
        stats: Phase,
    ) -> Any:
        start = time.perf_counter()
        response = http.request(method, path, content=body, headers=REST_HEADERS)
        stats.latencies.append(time.perf_counter() - start)
        return expect_json(response, status, f"REST {method} {path}")


def run(
    base_url: str, meter: CpuMeter, args: argparse.Namespace
) -> tuple[list[Phase], int]:
    """Warm up, then run the measured rounds; return them and the creates."""
    load = Load(base_url, args.clients, meter)
    creates = 0
    for side in SIDES:
        progress(f"  warm-up {side} ...")
        creates += load.phase(side, 0, args.warmup).creates
    phases = []
    for round_ in range(1, args.rounds + 1):
        order = SIDES if round_ % 2 else SIDES[::-1]
        for side in order:
            phase = load.phase(side, round_, args.seconds)
            progress(
                f"  round {round_} {side}: {phase.requests} requests, "
                f"{phase.rate:.1f}/s"
            )
            phases.append(phase)
            creates += phase.creates
    return phases, creates


# -- report --------------------------------------------------------------------


def totals(phases: list[Phase], side: str) -> dict[str, Any]:
    """Requests, seconds, requests/s and latency percentiles of one side."""
    mine = [p for p in phases if p.side == side]
    latencies = sorted(t for p in mine for t in p.latencies)
    requests = sum(p.requests for p in mine)
    seconds = sum(p.seconds for p in mine)
    result: dict[str, Any] = {
        "requests": requests,
        "creates": sum(p.creates for p in mine),
        "retrieves": sum(p.retrieves for p in mine),
        "seconds": seconds,
        "rate": requests / seconds,
        "median_ms": statistics.median(latencies) * 1e3,
        "p90_ms": percentile(latencies, 90) * 1e3,
        "p99_ms": percentile(latencies, 99) * 1e3,
    }
    if all(p.cpu for p in mine):
        cpu = {g: sum(p.cpu[g] for p in mine) * 1e3 / requests for g in CPU_GROUPS}
        result["cpu_ms_per_request"] = {**cpu, "total": sum(cpu.values())}
    return result


def round_ratios(phases: list[Phase]) -> list[float]:
    """MCP/REST requests per second within each round."""
    rates: dict[int, dict[str, float]] = {}
    for phase in phases:
        rates.setdefault(phase.round, {})[phase.side] = phase.rate
    return [r["MCP"] / r["REST"] for _, r in sorted(rates.items())]


def markdown(phases: list[Phase], sides: dict[str, dict[str, Any]]) -> str:
    """The per-phase, per-side and CPU tables."""
    lines = [
        "| Round | Side | Requests | Seconds | req/s | median ms | p90 ms | CPU ms/request |",
        "|---:|---|---:|---:|---:|---:|---:|---:|",
    ]
    for phase in phases:
        latencies = sorted(phase.latencies)
        cpu = (
            f"{sum(phase.cpu.values()) * 1e3 / phase.requests:.1f}"
            if phase.cpu
            else "n/a"
        )
        lines.append(
            f"| {phase.round} | {phase.side} | {phase.requests} | "
            f"{phase.seconds:.2f} | {phase.rate:.1f} | "
            f"{statistics.median(latencies) * 1e3:.1f} | "
            f"{percentile(latencies, 90) * 1e3:.1f} | {cpu} |"
        )
    lines += [
        "",
        "| Side | Requests (creates + retrieves) | Seconds | req/s | median ms | p90 ms | p99 ms |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for side, t in sides.items():
        lines.append(
            f"| {side} | {t['requests']} ({t['creates']} + {t['retrieves']}) | "
            f"{t['seconds']:.2f} | **{t['rate']:.1f}** | {t['median_ms']:.1f} | "
            f"{t['p90_ms']:.1f} | {t['p99_ms']:.1f} |"
        )
    if all("cpu_ms_per_request" in t for t in sides.values()):
        mcp, rest = (sides[side]["cpu_ms_per_request"] for side in SIDES)
        lines += [
            "",
            "| CPU ms per request | MCP | REST | MCP/REST |",
            "|---|---:|---:|---:|",
        ]
        for group in (*CPU_GROUPS, "total"):
            name = {
                "client": "client threads (this process)",
                "gunicorn": "gunicorn workers",
                "postgres": "PostgreSQL backends",
                "total": "**total**",
            }[group]
            lines.append(
                f"| {name} | {mcp[group]:.2f} | {rest[group]:.2f} | "
                f"{mcp[group] / rest[group]:.3f}x |"
            )
    return "\n".join(lines)


# -- main ----------------------------------------------------------------------


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="MCP vs REST requests/s under concurrent load (PostgreSQL).",
    )
    parser.add_argument("--clients", type=int, default=16, metavar="N")
    parser.add_argument(
        "--workers", type=int, default=4, metavar="N", help="gunicorn sync workers"
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=5,
        metavar="N",
        help="measured rounds; each is one MCP and one REST phase",
    )
    parser.add_argument(
        "--seconds", type=float, default=4.0, metavar="S", help="length of a phase"
    )
    parser.add_argument(
        "--warmup",
        type=float,
        default=2.0,
        metavar="S",
        help="length of the unmeasured warm-up phase of each side",
    )
    parser.add_argument(
        "--database-url",
        default=DEFAULT_DATABASE_URL,
        metavar="URL",
        help="a PostgreSQL database to create, use and drop "
        f"(default: {DEFAULT_DATABASE_URL})",
    )
    parser.add_argument("--json", type=Path, metavar="PATH", help="write raw stats")
    args = parser.parse_args(argv)
    if min(args.clients, args.workers, args.rounds) < 1 or args.seconds <= 0:
        parser.error("--clients, --workers, --rounds and --seconds must be positive")
    if args.warmup <= 0:
        parser.error("--warmup must be positive")
    return args


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    raise_on_sigterm()
    started = dt.datetime.now(dt.UTC)
    with (
        postgres_database(args.database_url) as database,
        tempfile.TemporaryDirectory() as log_dir,
    ):
        label = database.label
        progress(f"Preparing {label} ...")
        manage(args.database_url, MIGRATE, SEED)
        before = count_contacts(args.database_url)
        with gunicorn(
            args.database_url,
            Path(log_dir),
            headers=REST_HEADERS,
            workers=args.workers,
        ) as server:
            progress(
                f"{args.clients} clients against {server.base_url} "
                f"({args.workers} workers) ..."
            )
            meter = CpuMeter(server.pid, args.database_url)
            phases, creates = run(server.base_url, meter, args)
        after = count_contacts(args.database_url)
        if after != before + creates:
            raise BenchError(
                f"{creates} creates succeeded but the table grew by {after - before}."
            )

    import django
    import rest_framework

    sides = {side: totals(phases, side) for side in SIDES}
    ratio = sides["MCP"]["rate"] / sides["REST"]["rate"]
    per_round = round_ratios(phases)
    verdict = "met" if ratio >= GOAL else "NOT met"
    cpu_bound = ""
    if all("cpu_ms_per_request" in t for t in sides.values()):
        mcp_cpu, rest_cpu = (sides[s]["cpu_ms_per_request"]["total"] for s in SIDES)
        cpu_bound = (
            "Throughput ratio expected when CPU-bound (REST CPU per request / "
            f"MCP CPU per request): {rest_cpu / mcp_cpu:.3f}x.\n"
        )
    host = machine()
    print(
        f"## Throughput under concurrency: MCP vs REST ({label})\n\n"
        f"{started.isoformat(timespec='seconds')}, {host}, Python "
        f"{platform.python_version()}, Django {django.__version__}, DRF "
        f"{rest_framework.VERSION}; gunicorn {args.workers} sync workers; "
        f"{args.clients} client threads; {args.rounds} rounds of one "
        f"{args.seconds:g} s phase per side (order alternating) after a "
        f"{args.warmup:g} s warm-up of each; mix: 1 create + 1 retrieve.\n\n"
        f"{markdown(phases, sides)}\n\n"
        f"MCP/REST requests per second: **{ratio:.3f}x** (per round: "
        f"median {statistics.median(per_round):.3f}x, range "
        f"{min(per_round):.3f}-{max(per_round):.3f}x).\n"
        f"Goal MCP >= {GOAL}x REST: {verdict}.\n"
        f"{cpu_bound}"
        f"Rows check: {creates} creates, the table grew by {after - before}.\n"
    )
    if args.json:
        report = {
            "date": started.isoformat(timespec="seconds"),
            "database": label,
            "machine": host,
            "python": platform.python_version(),
            "django": django.__version__,
            "djangorestframework": rest_framework.VERSION,
            "clients": args.clients,
            "workers": args.workers,
            "rounds": args.rounds,
            "seconds": args.seconds,
            "warmup": args.warmup,
            "sides": sides,
            "ratio": ratio,
            "round_ratios": per_round,
            "goal": GOAL,
            "goal_met": ratio >= GOAL,
            "phases": [
                {
                    "round": p.round,
                    "side": p.side,
                    "creates": p.creates,
                    "retrieves": p.retrieves,
                    "seconds": p.seconds,
                    "rate": p.rate,
                    "samples_ms": [round(t * 1e3, 3) for t in p.latencies],
                }
                for p in phases
            ],
        }
        write_json(args.json, report, "Raw stats")
    return 0


if __name__ == "__main__":
    run_script(main, "bench_concurrency")
