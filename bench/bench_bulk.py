"""Bulk create: one MCP call with N objects vs N single calls vs DRF's own save.

Run from the repository root::

    python3 dev.py bench bench/bench_bulk.py [--items N] [--repeat R] [--pairs P]
        [--single-calls K] [--database-url URL] [--json PATH] [--profile]

(``dev.py bench`` runs the script with ``.venv``'s Python, so
``.venv/bin/python bench/bench_bulk.py ...`` is the same thing.)

Issue #3 asks that a bulk create of 10,000 contacts fit in one call under the
default request-size limit (``MAX_REQUEST_BYTES``, 1 MiB), be at least 20x
faster than 10,000 single calls, and cost at most 1.5x what the host
serializer's own ``many=True`` save costs when called directly. What it does:

1. Creates a fresh, throw-away database: a temporary SQLite file by default,
   or the database named by ``--database-url`` (``sqlite:////tmp/x.sqlite3``
   or ``postgres://user@host:5432/name``; a PostgreSQL database is created and
   dropped through the server's ``postgres`` database and must not exist
   yet), and migrates and seeds it (``migrate``, ``seed_demo``) in
   subprocesses. Every Django process runs with ``DJANGO_DEBUG=0``: with
   DEBUG on, Django would keep 10,000 queries in memory and the numbers
   would measure that. The demo requires authentication and applies
   ``DjangoModelPermissions``: every MCP request, over HTTP and in-process,
   carries ``Authorization: Token <DEMO_TOKEN>``, the token ``seed_demo``
   gives the ``demo`` user (who may add contacts). The server runs the
   demo's own settings, so ``MAX_REQUEST_BYTES`` is the default; a bulk body
   over it is refused before anything is measured.
2. Starts the demo under gunicorn (``demo_project.wsgi:application``, one
   sync worker, 127.0.0.1, a free port) and a second Django process, the
   *worker*, that this script drives over a pipe: it empties the contacts
   table, counts it, and runs the in-process variants.
3. Runs ``--repeat`` rounds. Each round runs every variant once, from an
   empty table, in an order that rotates from round to round:

   a. **MCP bulk over HTTP**: one ``tools/call contacts__create`` with
      ``{"objects": [N items]}``, timed on the client from sending the
      (pre-encoded) body to the last byte of the response;
   b. **MCP single calls over HTTP**: N ``tools/call contacts__create`` with
      one item each over one ``httpx.Client``; the sum of the per-request
      times. With ``--single-calls K`` (K < N) only K calls are made and the
      sum is scaled by N/K (reported as extrapolated);
   c. **direct serializer save** (worker): the host serializer's own
      ``ContactSerializer(data=items, many=True)``, ``is_valid(
      raise_exception=True)`` and ``save()`` inside ``transaction.atomic()``;
   d. **MCP bulk in-process** (worker): the same bulk call as (a) through
      ``frisian_mcp.contrib.testing.MCPTestClient`` (Django's test ``Client``, no
      socket, no gunicorn), the body encoded and the response decoded off
      the clock.

   (c) and (d) run back to back in the worker, ``--pairs`` times per round
   (they are cheap next to (b), and noisier), alternating which goes first,
   after a warm-up of both. Every variant is checked: the response (HTTP 200,
   ``isError`` false, ``created`` and the ids, or the contact sent back) and
   the row count of the table afterwards. The run stops at the first wrong
   one, so no error path is timed.
4. Prints Markdown: the request body size against the limit, the medians per
   variant, and the goal ratios: single calls / bulk over HTTP (b/a, goal
   >= 20), bulk / direct save in one process (d/c, goal <= 1.5; the fair
   reading of "1.5x the direct serializer save", as both sides skip the
   socket) and, for reference, bulk over HTTP / direct save (a/c). Each
   ratio is given as the ratio of medians and per pair (d/c: each in-process
   pair; the others: each round). With
   ``--profile``, the worker then runs one more in-process bulk call under
   cProfile and the script prints where its time goes.
5. Stops gunicorn and the worker and deletes the database, also on errors,
   Ctrl-C and SIGTERM.

Machines this runs on are shared and noisy: read the ratios, measured in the
same run, not the absolute seconds. Note that gunicorn's sync worker closes
the connection after every response, so each single call also pays a TCP
connect over loopback; that is what a client of such a server pays.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import datetime as dt
import gc
import json
import os
import platform
import pstats
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import httpx
from _common import (
    MCP_HEADERS,
    MIGRATE,
    PROTOCOL_VERSION,
    ROOT,
    SEED,
    BenchError,
    Database,
    django_env,
    gunicorn,
    machine,
    manage,
    progress,
    raise_on_sigterm,
    run_script,
    stop_process,
    temporary_database,
    write_json,
)
from _common import call_body as _call_body

TOOL = "contacts__create"
#: Issue #3: single calls / bulk must be at least this ...
SPEEDUP_GOAL = 20.0
#: ... and bulk / the direct serializer save at most this.
OVERHEAD_GOAL = 1.5
FIRST_NAMES = ("Ann", "Bob", "Cees", "Dirk", "Eva", "Fenna", "Geert", "Hinke")
VARIANTS = {
    "bulk_http": "(a) MCP bulk, 1 call over HTTP",
    "single_http": "(b) MCP single calls over HTTP",
    "direct": "(c) `ContactSerializer(many=True)` save, in-process",
    "bulk_inprocess": "(d) MCP bulk, 1 call in-process (`MCPTestClient`)",
}


# -- payloads (shared by this script and its worker) -------------------------


def make_items(count: int) -> list[dict[str, str]]:
    """``count`` small, realistic contacts with unique emails."""
    width = max(5, len(str(count - 1)))
    return [
        {
            "email": f"u{i:0{width}d}@example.com",
            "first_name": FIRST_NAMES[i % len(FIRST_NAMES)],
        }
        for i in range(count)
    ]


def call_body(arguments: dict[str, Any], request_id: int = 1) -> bytes:
    """A compact ``tools/call`` request for :data:`TOOL`."""
    return _call_body(TOOL, arguments, request_id, compact=True)


def bulk_body(items: list[dict[str, str]]) -> bytes:
    """The bulk create request: ``{"objects": items}``."""
    return call_body({"objects": items})


def check_result(status: int, content: bytes, what: str) -> dict[str, Any]:
    """The ``structuredContent`` of a successful call, or :class:`BenchError`."""
    shown = content[:500].decode("utf-8", "replace")
    if status != 200:
        raise BenchError(f"{what}: HTTP {status}: {shown}")
    try:
        message = json.loads(content)
    except ValueError as exc:
        raise BenchError(f"{what}: not JSON: {shown}") from exc
    result = message.get("result") if isinstance(message, dict) else None
    if not isinstance(result, dict) or result.get("isError") is not False:
        raise BenchError(f"{what} failed: {shown}")
    structured = result.get("structuredContent")
    if not isinstance(structured, dict):
        raise BenchError(f"{what}: no structuredContent: {shown}")
    return structured


def check_bulk(status: int, content: bytes, count: int, what: str) -> None:
    """Check a bulk response: ``created`` is ``count``, with as many ids."""
    structured = check_result(status, content, what)
    created = structured.get("created")
    rows = structured.get("ids", structured.get("results"))
    if created != count or not isinstance(rows, list) or len(rows) != count:
        raise BenchError(
            f"{what}: expected {count} created, got created={created!r} and "
            f"{len(rows) if isinstance(rows, list) else 'no'} ids"
        )


class Worker:
    """The benchmark's own Django process, driven by JSON lines over a pipe."""

    def __init__(self, database: Database, work_dir: Path) -> None:
        self.log_path = work_dir / "worker.log"
        with self.log_path.open("wb") as log:
            self.process = subprocess.Popen(
                [sys.executable, str(Path(__file__).resolve()), "--worker"],
                cwd=ROOT,
                env=django_env(database.url),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=log,
                text=True,
            )

    def call(self, command: str, **args: Any) -> Any:
        """Run ``command`` in the worker; return its result."""
        stdin, stdout = self.process.stdin, self.process.stdout
        if stdin is None or stdout is None:
            raise BenchError("The worker has no pipes.")
        stdin.write(json.dumps({"command": command, "args": args}) + "\n")
        stdin.flush()
        line = stdout.readline()
        if not line:
            raise BenchError(f"The worker died:\n{self.log_path.read_text()[-3000:]}")
        reply = json.loads(line)
        if not reply["ok"]:
            raise BenchError(f"worker {command}: {reply['error']}")
        return reply["result"]

    def close(self) -> None:
        """Stop the worker (end of input, then a signal if need be)."""
        if self.process.stdin is not None:
            with contextlib.suppress(OSError):
                self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            stop_process(self.process)


@contextlib.contextmanager
def worker(database: Database, work_dir: Path) -> Iterator[Worker]:
    """Start the worker; stop it on exit."""
    process = Worker(database, work_dir)
    try:
        yield process
    finally:
        process.close()


# -- the worker's side -------------------------------------------------------


class InProcess:
    """The worker's commands: run in a Django process of their own."""

    def __init__(self) -> None:
        # Django is set up here, not at import: the parent process never
        # imports it, and the worker only once its environment is set.
        import django

        django.setup()
        from demo_project.contacts.models import Contact
        from demo_project.contacts.views import ContactViewSet
        from demo_project.management.commands.seed_demo import DEMO_TOKEN
        from frisian_mcp.contrib.testing import MCPTestClient

        self.model = Contact
        self.serializer_class = ContactViewSet.serializer_class
        self.authorization = f"Token {DEMO_TOKEN}"
        self.client = MCPTestClient(
            headers={
                "MCP-Protocol-Version": PROTOCOL_VERSION,
                "Authorization": self.authorization,
            }
        )

    def info(self) -> dict[str, Any]:
        """Versions, database and request limit, for the report."""
        import django
        import rest_framework
        from django.db import connection

        from frisian_mcp import __version__
        from frisian_mcp.conf import mcp_settings

        with connection.cursor():
            pass  # connect, so the server version is known
        return {
            "django": django.__version__,
            "djangorestframework": rest_framework.VERSION,
            "frisian_mcp": __version__,
            "vendor": connection.vendor,
            "max_request_bytes": int(mcp_settings.MAX_REQUEST_BYTES),
            "authorization": self.authorization,
        }

    def reset(self) -> None:
        """Empty the contacts table."""
        from django.db import connection

        table = connection.ops.quote_name(self.model._meta.db_table)
        with connection.cursor() as cursor:
            if connection.vendor == "postgresql":
                cursor.execute(f"TRUNCATE {table}")
            else:
                cursor.execute(f"DELETE FROM {table}")

    def count(self) -> int:
        """Rows in the contacts table."""
        return int(self.model.objects.count())

    def _expect_rows(self, count: int, what: str) -> None:
        rows = self.count()
        if rows != count:
            raise BenchError(f"{what}: expected {count} rows, the table has {rows}")

    def direct(self, items: int) -> float:
        """Time the host serializer's own ``many=True`` validate and save."""
        from django.db import transaction

        data = make_items(items)
        self.reset()
        gc.collect()
        start = time.perf_counter()
        with transaction.atomic():
            serializer = self.serializer_class(data=data, many=True)
            serializer.is_valid(raise_exception=True)
            serializer.save()
        seconds = time.perf_counter() - start
        self._expect_rows(items, "direct save")
        return seconds

    def bulk(self, items: int) -> float:
        """Time one bulk ``tools/call`` through ``MCPTestClient``."""
        body = bulk_body(make_items(items)).decode()
        self.reset()
        gc.collect()
        start = time.perf_counter()
        response = self.client.post(body, raw=True)
        seconds = time.perf_counter() - start
        check_bulk(response.status_code, response.content, items, "in-process bulk")
        self._expect_rows(items, "in-process bulk")
        return seconds

    def pair(self, items: int, direct_first: bool) -> dict[str, float]:
        """(c) and (d) back to back, from an empty table each."""
        if direct_first:
            direct = self.direct(items)
            bulk = self.bulk(items)
        else:
            bulk = self.bulk(items)
            direct = self.direct(items)
        self.reset()
        return {"direct": direct, "bulk_inprocess": bulk}

    def profile(self, items: int) -> dict[str, Any]:
        """One in-process bulk call under cProfile, summarised."""
        profiler = cProfile.Profile()
        profiler.enable()
        try:
            seconds = self.bulk(items)
        finally:
            profiler.disable()
            self.reset()
        return {"seconds": seconds, **profile_summary(pstats.Stats(profiler))}


def worker_main() -> int:
    """Answer JSON-line commands on stdin until it closes."""
    out: IO[str] = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # stray prints must not corrupt the replies
    sys.path.insert(0, str(ROOT))
    app = InProcess()
    commands: dict[str, Callable[..., Any]] = {
        "info": app.info,
        "reset": app.reset,
        "count": app.count,
        "pair": app.pair,
        "profile": app.profile,
    }
    for line in sys.stdin:
        request = json.loads(line)
        try:
            reply = {
                "ok": True,
                "result": commands[request["command"]](**request["args"]),
            }
        except Exception:
            reply = {"ok": False, "error": traceback.format_exc()}
        out.write(json.dumps(reply) + "\n")
    return 0


#: Self time is attributed to the first owner whose path marker matches.
_OWNERS = (
    ("frisian_mcp", "/frisian_mcp/"),
    ("DRF serializers and fields", "/rest_framework/"),
    ("Django ORM and database driver", "/django/db/"),
    ("Django ORM and database driver", "/psycopg"),
    ("Django (other: handler, test client, utils)", "/django/"),
    ("jsonschema (argument validation)", "/jsonschema/"),
    ("jsonschema (argument validation)", "/referencing/"),
)
#: Inclusive times worth naming: (path suffix, function, label).
_KEY_FUNCTIONS = (
    ("rest_framework/serializers.py", "is_valid", "DRF `ListSerializer.is_valid`"),
    ("rest_framework/mixins.py", "perform_create", "DRF `perform_create` (save)"),
    ("rest_framework/serializers.py", "data", "DRF `serializer.data` (render rows)"),
    ("frisian_mcp/registry/core.py", "validate", "frisian_mcp `ToolRegistry.validate`"),
    ("frisian_mcp/registry/results.py", "bulk_result", "frisian_mcp `bulk_result`"),
    ("frisian_mcp/views.py", "_render", "frisian_mcp `views._render` (encode reply)"),
    ("frisian_mcp/jsonrpc.py", "_parse", "frisian_mcp `jsonrpc._parse` (decode body)"),
)


def _owner(filename: str, function: str) -> str:
    if filename == "~":  # a built-in function
        lowered = function.lower()
        if "sqlite" in lowered or "psycopg" in lowered:
            return "Django ORM and database driver"
        return "built-ins (json, str, dict...)"
    for name, marker in _OWNERS:
        if marker in filename:
            return name
    return "other (stdlib...)"


def profile_summary(stats: pstats.Stats) -> dict[str, Any]:
    """Self time by owner, key inclusive times, the top frisian_mcp functions."""
    raw: dict[Any, Any] = stats.stats  # type: ignore[attr-defined]
    owners: dict[str, float] = {}
    key: dict[str, float] = {}
    ours: list[tuple[float, float, str]] = []
    for (filename, line, function), (_, _, tottime, cumtime, _) in raw.items():
        owner = _owner(filename, function)
        owners[owner] = owners.get(owner, 0.0) + tottime
        for suffix, name, label in _KEY_FUNCTIONS:
            if function == name and filename.endswith(suffix):
                key[label] = key.get(label, 0.0) + cumtime
        if "/frisian_mcp/" in filename:
            where = f"{filename.split('/frisian_mcp/')[-1]}:{line} {function}"
            ours.append((cumtime, tottime, where))
    ours.sort(reverse=True)
    return {
        "total": sum(owners.values()),
        "self_by_owner": dict(sorted(owners.items(), key=lambda kv: -kv[1])),
        "key_functions": {label: key.get(label, 0.0) for *_, label in _KEY_FUNCTIONS},
        "frisian_mcp_functions": [
            {"function": where, "cum": cum, "self": own} for cum, own, where in ours
        ][:20],
    }


# -- the client's side -------------------------------------------------------


@dataclass
class Run:
    """The times of one round, in seconds, by variant.

    The HTTP variants have one time per round; the in-process pair (c, d)
    runs ``--pairs`` times per round and has as many.
    """

    seconds: dict[str, list[float]] = field(default_factory=dict)

    def add(self, variant: str, seconds: float) -> None:
        """Record one time of ``variant``."""
        self.seconds.setdefault(variant, []).append(seconds)


def bulk_http(client: httpx.Client, body: bytes, items: int) -> tuple[float, int]:
    """(a): one bulk call; its time and the response size."""
    start = time.perf_counter()
    response = client.post("/mcp", content=body, headers=MCP_HEADERS)
    seconds = time.perf_counter() - start
    check_bulk(response.status_code, response.content, items, "HTTP bulk")
    return seconds, len(response.content)


def single_http(client: httpx.Client, items: list[dict[str, str]], calls: int) -> float:
    """(b): ``calls`` single creates; the sum of their times."""
    bodies = [call_body(item, i + 1) for i, item in enumerate(items[:calls])]
    total = 0.0
    for body, item in zip(bodies, items, strict=False):
        start = time.perf_counter()
        response = client.post("/mcp", content=body, headers=MCP_HEADERS)
        total += time.perf_counter() - start
        structured = check_result(response.status_code, response.content, "single")
        if structured.get("email") != item["email"]:
            raise BenchError(f"single create: got {structured!r} for {item!r}")
    return total


def measure(
    base_url: str,
    work: Worker,
    items: int,
    calls: int,
    repeat: int,
    pairs: int,
    headers: dict[str, str],
) -> tuple[list[Run], int]:
    """Run ``repeat`` rounds, the variants' order rotating; return them."""
    data = make_items(items)
    body = bulk_body(data)
    response_bytes = 0
    runs: list[Run] = []
    with httpx.Client(base_url=base_url, headers=headers, timeout=600) as client:
        # Warm-up: both processes build their tool registry, open their
        # database connection and import what the calls need.
        work.call("pair", items=min(items, 100), direct_first=True)
        bulk_http(client, bulk_body(data[:100]), min(items, 100))
        single_http(client, data, min(calls, 20))
        work.call("reset")
        order = ["bulk_http", "single_http", "in_process"]
        for index in range(repeat):
            run = Run()
            shift = index % len(order)
            for variant in order[shift:] + order[:shift]:
                print(
                    f"  round {index + 1}: {variant} ...", file=sys.stderr, flush=True
                )
                if variant == "bulk_http":
                    seconds, response_bytes = bulk_http(client, body, items)
                    run.add("bulk_http", seconds)
                    _expect_rows(work, items, "HTTP bulk")
                elif variant == "single_http" and calls:
                    total = single_http(client, data, calls)
                    run.add("single_http", total * items / calls)
                    _expect_rows(work, calls, "single calls")
                elif variant == "in_process":
                    for number in range(pairs):
                        direct_first = (index * pairs + number) % 2 == 0
                        pair = work.call("pair", items=items, direct_first=direct_first)
                        for name, seconds in pair.items():
                            run.add(name, seconds)
                work.call("reset")
            runs.append(run)
    return runs, response_bytes


def _expect_rows(work: Worker, count: int, what: str) -> None:
    rows = work.call("count")
    if rows != count:
        raise BenchError(f"{what}: expected {count} rows, the table has {rows}")


# -- report ------------------------------------------------------------------


def ratios(runs: list[Run], top: str, bottom: str) -> dict[str, Any] | None:
    """``top``/``bottom``: ratio of medians, and per measured pair.

    Variants measured back to back as many times in a round (the in-process
    pair) are paired one to one; otherwise a round's median of each is.
    """
    pairs: list[tuple[float, float]] = []
    for run in runs:
        tops, bottoms = run.seconds.get(top), run.seconds.get(bottom)
        if not tops or not bottoms:
            continue
        if len(tops) == len(bottoms):
            pairs.extend(zip(tops, bottoms, strict=True))
        else:
            pairs.append((statistics.median(tops), statistics.median(bottoms)))
    if not pairs:
        return None
    per_pair = [t / b for t, b in pairs]
    return {
        "of_medians": statistics.median(t for t, _ in pairs)
        / statistics.median(b for _, b in pairs),
        "per_pair": per_pair,
        "median_per_pair": statistics.median(per_pair),
    }


def markdown(report: dict[str, Any], runs: list[Run], items: int, calls: int) -> str:
    """The result tables."""
    lines = [
        f"Bulk request body: {report['body_bytes']:,} bytes for {items:,} items "
        f"({100 * report['body_bytes'] / report['max_request_bytes']:.1f}% of "
        f"MAX_REQUEST_BYTES = {report['max_request_bytes']:,}); bulk response: "
        f"{report['response_bytes']:,} bytes.",
        "",
        "| Variant | n | median s | min s | max s | per item µs |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name, label in VARIANTS.items():
        times = [t for run in runs for t in run.seconds.get(name, [])]
        if not times:
            continue
        if name == "single_http" and calls < items:
            label += f" ({calls:,} calls, scaled x{items / calls:g})"
        elif name == "single_http":
            label += f" ({items:,} calls)"
        median = statistics.median(times)
        lines.append(
            f"| {label} | {len(times)} | {median:.3f} | {min(times):.3f} | "
            f"{max(times):.3f} | {1e6 * median / items:.0f} |"
        )
    lines += [
        "",
        "| Ratio | goal | ratio of medians | median of per-pair ratios | per "
        "pair (round order) | goal met |",
        "|---|---|---:|---:|---|---|",
    ]
    checks = (
        ("single calls / bulk, HTTP (b/a)", "single_http", "bulk_http", ">=", True),
        ("bulk / direct, in-process (d/c)", "bulk_inprocess", "direct", "<=", True),
        ("bulk over HTTP / direct (a/c)", "bulk_http", "direct", "<=", False),
    )
    for label, top, bottom, sense, binding in checks:
        ratio = ratios(runs, top, bottom)
        if ratio is None:
            continue
        goal = SPEEDUP_GOAL if sense == ">=" else OVERHEAD_GOAL
        value = ratio["of_medians"]
        met = value >= goal if sense == ">=" else value <= goal
        verdict = ("yes" if met else "**no**") if binding else "(reference)"
        rounds = ", ".join(f"{r:.2f}" for r in ratio["per_pair"])
        lines.append(
            f"| {label} | {sense.replace('>=', '≥').replace('<=', '≤')} "
            f"{goal:g} | **{value:.2f}x** | {ratio['median_per_pair']:.2f}x | "
            f"{rounds} | {verdict} |"
        )
    return "\n".join(lines)


def profile_markdown(profile: dict[str, Any], items: int) -> str:
    """The cProfile tables of one in-process bulk call."""
    total = profile["total"]
    lines = [
        f"cProfile of one in-process bulk call of {items:,} items "
        f"({profile['seconds']:.2f} s under the profiler; it inflates "
        "call-heavy code, so read the shares):",
        "",
        "| Self time in | s | share |",
        "|---|---:|---:|",
    ]
    for owner, seconds in profile["self_by_owner"].items():
        lines.append(f"| {owner} | {seconds:.3f} | {100 * seconds / total:.1f}% |")
    lines += ["", "| Inclusive time of | s | share |", "|---|---:|---:|"]
    for label, seconds in profile["key_functions"].items():
        lines.append(f"| {label} | {seconds:.3f} | {100 * seconds / total:.1f}% |")
    lines += ["", "| frisian_mcp function | inclusive s | self s |", "|---|---:|---:|"]
    for row in profile["frisian_mcp_functions"][:15]:
        lines.append(f"| `{row['function']}` | {row['cum']:.3f} | {row['self']:.3f} |")
    return "\n".join(lines)


# -- main --------------------------------------------------------------------


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="One bulk MCP create vs single calls vs DRF's own save.",
    )
    parser.add_argument(
        "--items", type=int, default=10_000, metavar="N", help="objects per bulk call"
    )
    parser.add_argument(
        "--repeat", type=int, default=3, metavar="R", help="rounds of every variant"
    )
    parser.add_argument(
        "--pairs",
        type=int,
        default=3,
        metavar="P",
        help="in-process (direct save, bulk) pairs per round",
    )
    parser.add_argument(
        "--single-calls",
        type=int,
        metavar="K",
        help="single calls per round (default: N; fewer are scaled to N; 0 skips)",
    )
    parser.add_argument(
        "--database-url",
        metavar="URL",
        help="a database to create, use and drop (default: a temp SQLite file)",
    )
    parser.add_argument("--json", type=Path, metavar="PATH", help="write raw times")
    parser.add_argument(
        "--profile",
        action="store_true",
        help="also profile one in-process bulk call (cProfile)",
    )
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.single_calls is None:
        args.single_calls = args.items
    if (
        args.items < 1
        or args.repeat < 1
        or args.pairs < 1
        or not 0 <= args.single_calls <= args.items
    ):
        parser.error("--items, --repeat, --pairs >= 1; 0 <= --single-calls <= --items")
    return args


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    if args.worker:
        return worker_main()
    raise_on_sigterm()
    started = dt.datetime.now(dt.UTC)
    body_bytes = len(bulk_body(make_items(args.items)))
    with (
        temporary_database(
            args.database_url, prefix="frisian-bulk-", show_directory=True
        ) as database,
        tempfile.TemporaryDirectory(prefix="frisian-bulk-") as work_dir,
    ):
        progress(f"Preparing {database.label} ...")
        manage(database.url, MIGRATE, SEED)
        with worker(database, Path(work_dir)) as work:
            info = work.call("info")
            headers = {"Authorization": info.pop("authorization")}
            if body_bytes > info["max_request_bytes"]:
                raise BenchError(
                    f"The bulk body is {body_bytes:,} bytes, over MAX_REQUEST_BYTES "
                    f"({info['max_request_bytes']:,}): use fewer --items."
                )
            with gunicorn(
                database.url, Path(work_dir), headers=headers, timeout=600
            ) as server:
                progress(
                    f"Measuring {args.repeat} rounds of {args.items:,} items "
                    f"against {server.base_url} ..."
                )
                runs, response_bytes = measure(
                    server.base_url,
                    work,
                    args.items,
                    args.single_calls,
                    args.repeat,
                    args.pairs,
                    headers,
                )
            profile = None
            if args.profile:  # gunicorn has stopped: nothing else runs
                progress("Profiling in-process ...")
                profile = work.call("profile", items=args.items)

    report: dict[str, Any] = {
        "date": started.isoformat(timespec="seconds"),
        "database": database.label,
        "machine": machine(),
        "python": platform.python_version(),
        **info,
        "items": args.items,
        "single_calls": args.single_calls,
        "repeat": args.repeat,
        "pairs": args.pairs,
        "body_bytes": body_bytes,
        "response_bytes": response_bytes,
        "runs": [run.seconds for run in runs],
        "ratios": {
            "single_over_bulk_http": ratios(runs, "single_http", "bulk_http"),
            "bulk_over_direct_inprocess": ratios(runs, "bulk_inprocess", "direct"),
            "bulk_http_over_direct": ratios(runs, "bulk_http", "direct"),
        },
        "profile": profile,
    }
    print(
        f"## Bulk create ({database.label})\n\n{report['date']}, "
        f"{report['machine']}, Python {report['python']}, Django "
        f"{report['django']}, DRF {report['djangorestframework']}, frisian_mcp "
        f"{report['frisian_mcp']}; gunicorn 1 sync worker; {args.repeat} rounds, "
        f"variants in rotating order, the in-process pair {args.pairs} times per "
        "round, each from an empty table; MCP requests "
        "authenticated as the seeded `demo` user (`Authorization: Token`, "
        "`DjangoModelPermissions`); demo settings unchanged "
        f"(`MAX_REQUEST_BYTES` = {report['max_request_bytes']:,}).\n\n"
        f"{markdown(report, runs, args.items, args.single_calls)}\n"
    )
    if profile is not None:
        print(profile_markdown(profile, args.items) + "\n")
    if args.json:
        write_json(args.json, report, "Raw times")
    return 0


if __name__ == "__main__":
    run_script(main, "bench_bulk")
