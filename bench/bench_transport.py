"""Transport overhead: the same work through MCP ``tools/call`` and through REST.

Run from the repository root::

    python3 dev.py bench bench/bench_transport.py [--requests N] [--warmup N]
        [--database-url URL] [--json PATH] [--profile-calls N]

(``dev.py bench`` runs the script with ``.venv``'s Python, so
``.venv/bin/python bench/bench_transport.py ...`` is the same thing.)

What it does:

1. Creates a fresh, throw-away database: a temporary SQLite file by default,
   or the database named by ``--database-url`` (``sqlite:////tmp/x.sqlite3``
   or ``postgres://user@host:5432/name``; a PostgreSQL database is created and
   dropped through the server's ``postgres`` database and must not exist yet).
   It is migrated and seeded (``migrate``, ``seed_demo``) in subprocesses with
   ``DJANGO_DEBUG=0``: with DEBUG on, Django keeps every SQL query in memory
   and the numbers would measure that.
2. Starts the demo under gunicorn (``demo_project.wsgi:application``, one sync
   worker, 127.0.0.1, a free port) and waits until it answers.
3. Measures, with one ``httpx.Client``, three pairs of requests. The demo
   requires authentication and applies ``DjangoModelPermissions``, so every
   request, MCP and REST alike, carries ``Authorization: Token <DEMO_TOKEN>``
   (the ``demo`` user's token from ``seed_demo``, read from its source):

   * **create**: MCP ``tools/call contacts__create`` vs REST
     ``POST /api/contacts/``, same payload shape, a unique email each time;
   * **retrieve**: MCP ``tools/call contacts__retrieve`` vs REST
     ``GET /api/contacts/<id>/``, on the same ids (the rows just created);
   * **tools/list** vs REST ``GET /api/contacts/`` (its first page): a
     reference point only, the two do different work.

   Each response is checked (HTTP 200/201, ``isError`` false, the expected
   object back) and the run aborts on the first wrong one, so the figures
   never time error paths. Times are wall-clock per request, body read
   included; request bodies are encoded before the clock starts.
4. Prints a Markdown table (median, p90, p99 per request kind; the ratio of
   MCP's median to REST's; the median of the per-pair ratios with a bootstrap
   95% interval), and optionally writes every sample as JSON (``--json``).
   With ``--profile-calls N`` it then calls the WSGI application in-process
   (no socket): N interleaved MCP and REST creates timed without a profiler,
   then N of each under cProfile, to show where MCP's extra time goes.
5. Stops gunicorn and deletes the database, also on errors, Ctrl-C and
   SIGTERM.

Why interleave: the machine this runs on is shared and noisy, and its speed
drifts over seconds (other jobs, CPU frequency, the table growing). Running
all MCP requests and then all REST requests would fold that drift into the
comparison. Here every iteration sends one request of each kind back to back,
alternating which goes first, so both see the same conditions, and only the
ratio of the two is reported as the result; absolute milliseconds are shown
for context and are not comparable between runs or machines.

Note that gunicorn's sync worker closes the connection after every response,
so each request includes a TCP connect over loopback, the same for both kinds.
"""

from __future__ import annotations

import argparse
import cProfile
import datetime as dt
import io
import json
import os
import platform
import pstats
import random
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
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
    Database,
    auth_headers,
    call_body,
    check_contact,
    check_id,
    contact_fields,
    django_env,
    expect_json,
    gunicorn,
    jsonrpc_body,
    machine,
    manage,
    percentile,
    progress,
    raise_on_sigterm,
    run_script,
    show,
    temporary_database,
    write_json,
)

#: The project's target for MCP create over REST create (ratio of medians).
CREATE_TARGET = 1.05


# -- requests ------------------------------------------------------------------


@dataclass
class Sample:
    """One timed request: wall time and response size."""

    seconds: float
    size: int


@dataclass
class Series:
    """Every sample of one request kind."""

    label: str
    samples: list[Sample] = field(default_factory=list)

    @property
    def times(self) -> list[float]:
        return [s.seconds for s in self.samples]


@dataclass
class Pair:
    """An MCP request kind and the REST request it is compared with."""

    name: str
    mcp: Series
    rest: Series
    reference_only: bool = False


class Bench:
    """Sends and checks the benchmark's requests over one client."""

    def __init__(self, client: httpx.Client) -> None:
        self.client = client
        self.run_id = uuid.uuid4().hex[:8]
        self.counter = 0
        self.created: list[str] = []
        self.next_id = 0

    def timed(
        self, method: str, url: str, body: bytes | None, headers: dict[str, str]
    ) -> tuple[httpx.Response, Sample]:
        """Send one request; time it up to the last byte of the body."""
        start = time.perf_counter()
        response = self.client.request(method, url, content=body, headers=headers)
        seconds = time.perf_counter() - start
        return response, Sample(seconds, len(response.content))

    def contact(self, side: str) -> dict[str, str]:
        """A new contact's fields; the email is unique in the run."""
        self.counter += 1
        return contact_fields(
            "bench_transport.py", "bench", self.run_id, self.counter, side
        )

    def mcp(self, tool: str, arguments: dict[str, Any]) -> tuple[Any, Sample]:
        """Call a tool; return its structuredContent and the sample."""
        response, sample = self.timed(
            "POST", "/mcp", call_body(tool, arguments), MCP_HEADERS
        )
        message = expect_json(response, 200, f"tools/call {tool}")
        result = message.get("result")
        if not isinstance(result, dict) or result.get("isError") is not False:
            raise BenchError(f"tools/call {tool} failed: {show(response)}")
        return result.get("structuredContent"), sample

    # The request kinds; each returns the sample of one checked request.

    def mcp_create(self) -> Sample:
        fields = self.contact("mcp")
        data, sample = self.mcp("contacts__create", fields)
        self.created.append(check_contact(data, fields, "MCP create"))
        return sample

    def rest_create(self) -> Sample:
        fields = self.contact("rest")
        body = json.dumps(fields).encode()
        response, sample = self.timed("POST", "/api/contacts/", body, REST_HEADERS)
        data = expect_json(response, 201, "REST create")
        self.created.append(check_contact(data, fields, "REST create"))
        return sample

    def pick_id(self) -> str:
        """The next id to retrieve (cycles through the created rows)."""
        if not self.created:
            raise BenchError("No contacts were created to retrieve.")
        contact_id = self.created[self.next_id % len(self.created)]
        self.next_id += 1
        return contact_id

    def mcp_retrieve(self, contact_id: str) -> Sample:
        data, sample = self.mcp("contacts__retrieve", {"id": contact_id})
        check_id(data, contact_id, "MCP retrieve")
        return sample

    def rest_retrieve(self, contact_id: str) -> Sample:
        url = f"/api/contacts/{contact_id}/"
        response, sample = self.timed("GET", url, None, REST_HEADERS)
        check_id(
            expect_json(response, 200, "REST retrieve"), contact_id, "REST retrieve"
        )
        return sample

    def tools_list(self) -> Sample:
        body = jsonrpc_body("tools/list", {})
        response, sample = self.timed("POST", "/mcp", body, MCP_HEADERS)
        result = expect_json(response, 200, "tools/list").get("result")
        tools = result.get("tools") if isinstance(result, dict) else None
        if not tools or not any(t.get("name") == "contacts__create" for t in tools):
            raise BenchError(f"tools/list lacks contacts__create: {show(response)}")
        return sample

    def rest_list(self) -> Sample:
        response, sample = self.timed("GET", "/api/contacts/", None, REST_HEADERS)
        if not isinstance(expect_json(response, 200, "REST list").get("results"), list):
            raise BenchError(f"REST list has no results: {show(response)}")
        return sample

    def handshake(self) -> dict[str, Any]:
        """``initialize`` once: checks the endpoint and names the server."""
        params = {
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "bench", "version": "1"},
        }
        response, _ = self.timed(
            "POST", "/mcp", jsonrpc_body("initialize", params), MCP_HEADERS
        )
        result = expect_json(response, 200, "initialize").get("result")
        if not isinstance(result, dict) or "serverInfo" not in result:
            raise BenchError(f"initialize failed: {show(response)}")
        return result


def interleave(
    pair: Pair,
    iterations: int,
    warmup: int,
    send_mcp: Callable[[int], Sample],
    send_rest: Callable[[int], Sample],
) -> None:
    """Run ``warmup`` + ``iterations`` rounds, alternating which side goes first.

    Round ``i`` calls both senders with ``i``; warm-up rounds are not kept.
    """
    for i in range(warmup + iterations):
        if i % 2:
            rest = send_rest(i)
            mcp = send_mcp(i)
        else:
            mcp = send_mcp(i)
            rest = send_rest(i)
        if i >= warmup:
            pair.mcp.samples.append(mcp)
            pair.rest.samples.append(rest)


def run_http(base_url: str, iterations: int, warmup: int) -> tuple[list[Pair], str]:
    """Measure the three pairs; return them and the server's name."""
    pairs = [
        Pair(
            "create",
            Series("MCP tools/call contacts__create"),
            Series("REST POST /api/contacts/"),
        ),
        Pair(
            "retrieve",
            Series("MCP tools/call contacts__retrieve"),
            Series("REST GET /api/contacts/<id>/"),
        ),
        Pair(
            "tools/list",
            Series("MCP tools/list (all tools)"),
            Series("REST GET /api/contacts/ (page 1, 25 rows)"),
            reference_only=True,
        ),
    ]
    create, retrieve, listing = pairs
    with httpx.Client(base_url=base_url, headers=auth_headers(), timeout=30) as client:
        bench = Bench(client)
        info = bench.handshake()["serverInfo"]
        server = f"{info.get('name')} {info.get('version')}"
        interleave(
            create,
            iterations,
            warmup,
            lambda i: bench.mcp_create(),
            lambda i: bench.rest_create(),
        )
        ids = [bench.pick_id() for _ in range(warmup + iterations)]
        interleave(
            retrieve,
            iterations,
            warmup,
            lambda i: bench.mcp_retrieve(ids[i]),
            lambda i: bench.rest_retrieve(ids[i]),
        )
        interleave(
            listing,
            iterations,
            warmup,
            lambda i: bench.tools_list(),
            lambda i: bench.rest_list(),
        )
    return pairs, server


# -- statistics ----------------------------------------------------------------


def summary(series: Series) -> dict[str, Any]:
    """Median, p90 and p99 in milliseconds, and the median response size."""
    times = sorted(series.times)
    return {
        "label": series.label,
        "n": len(times),
        "median_ms": statistics.median(times) * 1e3,
        "p90_ms": percentile(times, 90) * 1e3,
        "p99_ms": percentile(times, 99) * 1e3,
        "mean_ms": statistics.fmean(times) * 1e3,
        "bytes": int(statistics.median(s.size for s in series.samples)),
    }


def compare(pair: Pair, resamples: int = 1000) -> dict[str, Any]:
    """Ratios MCP/REST: of medians, and the median per-round ratio.

    The 95% interval of the median per-round ratio comes from resampling the
    rounds (each keeps its MCP and REST time together).
    """
    mcp, rest = pair.mcp.times, pair.rest.times
    per_round = [m / r for m, r in zip(mcp, rest, strict=True)]
    rng = random.Random(0)
    boot = sorted(
        statistics.median(rng.choices(per_round, k=len(per_round)))
        for _ in range(resamples)
    )
    return {
        "median_ratio": statistics.median(mcp) / statistics.median(rest),
        "paired_ratio": statistics.median(per_round),
        "paired_ratio_ci95": [
            boot[int(0.025 * resamples)],
            boot[int(0.975 * resamples) - 1],
        ],
        "p90_ratio": percentile(sorted(mcp), 90) / percentile(sorted(rest), 90),
        "p99_ratio": percentile(sorted(mcp), 99) / percentile(sorted(rest), 99),
    }


def markdown(pairs: list[Pair]) -> str:
    """The result table, one row per request kind."""
    lines = [
        "| Request | n | median ms | p90 ms | p99 ms | bytes | MCP/REST median "
        "| per-round ratio (95% CI) |",
        "|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for pair in pairs:
        ratio = compare(pair)
        low, high = ratio["paired_ratio_ci95"]
        note = " (reference only)" if pair.reference_only else ""
        for side, series in (("mcp", pair.mcp), ("rest", pair.rest)):
            s = summary(series)
            cells = ["", ""]
            if side == "mcp":
                cells = [
                    f"**{ratio['median_ratio']:.3f}x**{note}",
                    f"{ratio['paired_ratio']:.3f}x ({low:.3f}-{high:.3f})",
                ]
            lines.append(
                f"| {s['label']} | {s['n']} | {s['median_ms']:.2f} | "
                f"{s['p90_ms']:.2f} | {s['p99_ms']:.2f} | {s['bytes']} | "
                f"{cells[0]} | {cells[1]} |"
            )
    return "\n".join(lines)


# -- in-process profile --------------------------------------------------------

DB = "database (ORM, driver, waits)"
_BUCKETS = (
    ("frisian_mcp", "/frisian_mcp/"),
    ("DRF", "/rest_framework/"),
    (DB, "/django/db/"),
    (DB, "/psycopg"),
    ("Django (other)", "/django/"),
    ("jsonschema", "/jsonschema/"),
    ("jsonschema", "/referencing/"),
)
#: Framework functions whose inclusive time the profile reports for both sides:
#: (path suffix, function name, label).
_KEY_FUNCTIONS = (
    ("django/core/handlers/wsgi.py", "__call__", "whole request (WSGIHandler)"),
    ("rest_framework/viewsets.py", "view", "the DRF action (viewset view)"),
    ("django/db/transaction.py", "__enter__", "transaction.atomic enter"),
    ("django/db/transaction.py", "__exit__", "transaction.atomic exit (COMMIT)"),
    ("django/urls/resolvers.py", "resolve", "URL resolving (all)"),
)


def _bucket(filename: str, function: str) -> str:
    if filename == "~":  # a built-in: name it by what it is
        lowered = function.lower()
        if "sqlite" in lowered or "psycopg" in lowered or "wait" in lowered:
            return DB
        return "built-ins (json, str, dict...)"
    for name, marker in _BUCKETS:
        if marker in filename:
            return name
    return "other Python (stdlib, ...)"


def profile(database: Database, calls: int) -> dict[str, Any]:
    """Time, then profile, ``calls`` MCP and REST creates in this process.

    Requests go straight to the demo's WSGI application (no socket, no
    gunicorn), so only server-side work is measured. First an interleaved
    timing without the profiler, then one cProfile run per side. cProfile
    slows call-heavy code more than the rest: read its shares, not its
    absolute times.
    """
    os.environ.update(
        {k: v for k, v in django_env(database.url).items() if k != "PYTHONPATH"}
    )
    sys.path.insert(0, str(ROOT))
    from django.db import connections

    from demo_project.wsgi import application

    def request(method: str, path: str, body: bytes, extra: dict[str, str]) -> int:
        environ = {
            "REQUEST_METHOD": method,
            "PATH_INFO": path,
            "QUERY_STRING": "",
            "SERVER_NAME": "127.0.0.1",
            "SERVER_PORT": "8000",
            "SERVER_PROTOCOL": "HTTP/1.1",
            "REMOTE_ADDR": "127.0.0.1",
            "CONTENT_TYPE": "application/json",
            "CONTENT_LENGTH": str(len(body)),
            "HTTP_HOST": "127.0.0.1:8000",
            "wsgi.input": io.BytesIO(body),
            "wsgi.url_scheme": "http",
            "wsgi.errors": sys.stderr,
            "wsgi.version": (1, 0),
            "wsgi.multithread": False,
            "wsgi.multiprocess": False,
            "wsgi.run_once": False,
            **extra,
        }
        status: list[str] = []

        def start_response(
            line: str, headers: list[tuple[str, str]], exc_info: Any = None, /
        ) -> Callable[[bytes], object]:
            status.append(line)
            return lambda data: None  # the unused WSGI write() callable

        chunks = application(environ, start_response)
        try:
            content = b"".join(chunks)
        finally:
            chunks.close()
        code = int(status[0].split()[0])
        if code not in (200, 201) or b'"isError":true' in content:
            raise BenchError(f"profile: {method} {path}: {status[0]} {content[:300]!r}")
        return code

    authorization = auth_headers()["Authorization"]
    mcp_headers = {
        "HTTP_ACCEPT": MCP_HEADERS["Accept"],
        "HTTP_MCP_PROTOCOL_VERSION": PROTOCOL_VERSION,
        "HTTP_AUTHORIZATION": authorization,
    }
    rest_headers = {
        "HTTP_ACCEPT": "application/json",
        "HTTP_AUTHORIZATION": authorization,
    }
    fields = {"first_name": "Profile", "last_name": "Run", "phone": "+31 58 555 0100"}
    run_id = uuid.uuid4().hex[:8]

    def mcp_create(i: int) -> Sample:
        email = f"profile-{run_id}-{i}-mcp@example.com"
        body = call_body("contacts__create", {**fields, "email": email})
        start = time.perf_counter()
        request("POST", "/mcp", body, mcp_headers)
        return Sample(time.perf_counter() - start, 0)

    def rest_create(i: int) -> Sample:
        email = f"profile-{run_id}-{i}-rest@example.com"
        body = json.dumps({**fields, "email": email}).encode()
        start = time.perf_counter()
        request("POST", "/api/contacts/", body, rest_headers)
        return Sample(time.perf_counter() - start, 0)

    timing = Pair("create", Series("MCP create"), Series("REST create"))
    results: dict[str, Any] = {"calls": calls}
    try:
        # Warm-up, then unprofiled interleaved timing (rounds numbered apart).
        interleave(timing, calls, 20, mcp_create, rest_create)
        results["unprofiled"] = {
            "mcp_median_us": statistics.median(timing.mcp.times) * 1e6,
            "rest_median_us": statistics.median(timing.rest.times) * 1e6,
            **compare(timing),
        }
        # Profile the same way: one profiler per side, switched on around
        # each request, the sides alternating, so noise hits both alike.
        profilers = {"mcp": cProfile.Profile(), "rest": cProfile.Profile()}
        senders = {"mcp": mcp_create, "rest": rest_create}
        for i in range(calls):
            for name in ("mcp", "rest") if i % 2 else ("rest", "mcp"):
                profilers[name].enable()
                senders[name](10 * (calls + 20) + i)
                profilers[name].disable()
        for name, profiler in profilers.items():
            results[name] = _profile_summary(pstats.Stats(profiler), calls)
    finally:
        connections.close_all()
    return results


def _profile_summary(stats: pstats.Stats, calls: int) -> dict[str, Any]:
    raw: dict[Any, Any] = stats.stats  # type: ignore[attr-defined]
    buckets: dict[str, float] = {}
    key: dict[str, float] = {}
    own: list[tuple[float, float, str]] = []
    total = 0.0
    for (filename, line, function), (_, _, tottime, cumtime, _) in raw.items():
        bucket = _bucket(filename, function)
        buckets[bucket] = buckets.get(bucket, 0.0) + tottime
        total += tottime
        for suffix, name, label in _KEY_FUNCTIONS:
            if function == name and filename.endswith(suffix):
                key[label] = key.get(label, 0.0) + cumtime
        if "/frisian_mcp/" in filename:
            where = f"{filename.split('/frisian_mcp/')[-1]}:{line} {function}"
            own.append((cumtime, tottime, where))
    own.sort(reverse=True)
    per_call = 1e6 / calls
    return {
        "total_us": total * per_call,
        "self_us_by_bucket": {
            k: v * per_call for k, v in sorted(buckets.items(), key=lambda kv: -kv[1])
        },
        "key_functions_cum_us": {
            label: key.get(label, 0.0) * per_call for _, _, label in _KEY_FUNCTIONS
        },
        "frisian_mcp_functions": [
            {"function": where, "cum_us": cum * per_call, "self_us": s * per_call}
            for cum, s, where in own[:25]
        ],
    }


def profile_markdown(results: dict[str, Any]) -> str:
    """The in-process timing and profile tables."""
    mcp, rest, plain = results["mcp"], results["rest"], results["unprofiled"]
    low, high = plain["paired_ratio_ci95"]
    lines = [
        f"In-process (WSGI app called directly, no socket), {results['calls']} "
        "interleaved creates each, no profiler: MCP median "
        f"{plain['mcp_median_us']:.0f} µs, REST {plain['rest_median_us']:.0f} µs, "
        f"ratio of medians {plain['median_ratio']:.3f}x, per-round ratio "
        f"{plain['paired_ratio']:.3f}x ({low:.3f}-{high:.3f}).",
        "",
        "cProfile, µs per create (inflated by the profiler; compare, don't quote):",
        "",
        "| Self time in | MCP create | REST create | MCP - REST |",
        "|---|---:|---:|---:|",
    ]
    names = dict.fromkeys([*mcp["self_us_by_bucket"], *rest["self_us_by_bucket"]])
    for name in names:
        m = mcp["self_us_by_bucket"].get(name, 0.0)
        r = rest["self_us_by_bucket"].get(name, 0.0)
        lines.append(f"| {name} | {m:.0f} | {r:.0f} | {m - r:+.0f} |")
    m, r = mcp["total_us"], rest["total_us"]
    lines += [
        f"| **total** | **{m:.0f}** | **{r:.0f}** | **{m - r:+.0f}** |",
        "",
        "| Inclusive time of | MCP create | REST create | MCP - REST |",
        "|---|---:|---:|---:|",
    ]
    for label, m in mcp["key_functions_cum_us"].items():
        r = rest["key_functions_cum_us"][label]
        lines.append(f"| {label} | {m:.0f} | {r:.0f} | {m - r:+.0f} |")
    lines += [
        "",
        "| frisian_mcp function (MCP create) | inclusive µs | self µs |",
        "|---|---:|---:|",
    ]
    for row in mcp["frisian_mcp_functions"][:20]:
        lines.append(
            f"| `{row['function']}` | {row['cum_us']:.0f} | {row['self_us']:.0f} |"
        )
    return "\n".join(lines)


# -- main ----------------------------------------------------------------------


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="MCP tools/call vs REST: interleaved latency ratios.",
    )
    parser.add_argument(
        "--requests",
        type=int,
        default=1000,
        metavar="N",
        help="measured rounds per pair (each round: one MCP + one REST request)",
    )
    parser.add_argument(
        "--warmup", type=int, default=100, metavar="N", help="unmeasured rounds first"
    )
    parser.add_argument(
        "--database-url",
        metavar="URL",
        help="a database to create, use and drop (default: a temp SQLite file)",
    )
    parser.add_argument("--json", type=Path, metavar="PATH", help="write raw stats")
    parser.add_argument(
        "--profile-calls",
        type=int,
        default=0,
        metavar="N",
        help="also profile N MCP and N REST creates in-process (cProfile)",
    )
    args = parser.parse_args(argv)
    if args.requests < 1 or args.warmup < 0 or args.profile_calls < 0:
        parser.error("--requests must be positive; --warmup, --profile-calls >= 0")
    return args


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    raise_on_sigterm()
    started = dt.datetime.now(dt.UTC)
    report: dict[str, Any] = {}
    with (
        temporary_database(args.database_url) as database,
        tempfile.TemporaryDirectory() as log_dir,
    ):
        progress(f"Preparing {database.label} ...")
        manage(database.url, MIGRATE, SEED)
        with gunicorn(database.url, Path(log_dir), headers=auth_headers()) as served:
            progress(
                f"Measuring {args.warmup} + {args.requests} rounds per pair "
                f"against {served.base_url} ..."
            )
            pairs, server = run_http(served.base_url, args.requests, args.warmup)
        if args.profile_calls:  # gunicorn has stopped: nothing else runs
            progress("Profiling in-process ...")
            report["profile"] = profile(database, args.profile_calls)

    import django
    import rest_framework

    report.update(
        {
            "date": started.isoformat(timespec="seconds"),
            "database": database.label,
            "server": server,
            "python": platform.python_version(),
            "django": django.__version__,
            "djangorestframework": rest_framework.VERSION,
            "machine": machine(),
            "requests": args.requests,
            "warmup": args.warmup,
            "pairs": {
                pair.name: {
                    "reference_only": pair.reference_only,
                    "mcp": summary(pair.mcp),
                    "rest": summary(pair.rest),
                    "ratio": compare(pair),
                    "samples_ms": {
                        "mcp": [round(t * 1e3, 4) for t in pair.mcp.times],
                        "rest": [round(t * 1e3, 4) for t in pair.rest.times],
                    },
                }
                for pair in pairs
            },
        }
    )
    print(
        f"## Transport overhead: MCP vs REST ({database.label})\n\n"
        f"{report['date']}, {report['machine']}, Python {report['python']}, "
        f"Django {report['django']}, DRF {report['djangorestframework']}, "
        f"{server}; gunicorn 1 sync worker; {args.requests} interleaved rounds "
        f"per pair after {args.warmup} warm-up rounds; every request "
        "authenticated as the seeded `demo` user (`Authorization: Token`, "
        "`DjangoModelPermissions`).\n\n"
        f"{markdown(pairs)}\n"
    )
    create_ratio = report["pairs"]["create"]["ratio"]["median_ratio"]
    verdict = "met" if create_ratio <= CREATE_TARGET else "NOT met"
    print(
        f"Target MCP/REST create median <= {CREATE_TARGET}x: {verdict} "
        f"({create_ratio:.3f}x).\n"
    )
    if "profile" in report:
        print(profile_markdown(report["profile"]) + "\n")
    if args.json:
        write_json(args.json, report, "Raw stats")
    return 0


if __name__ == "__main__":
    run_script(main, "bench_transport")
