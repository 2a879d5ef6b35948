"""Cleanup at scale: ``frisian_mcp_cleanup`` vs a hand-written SQL ``DELETE``.

Run from the repository root::

    python3 dev.py bench bench/bench_cleanup.py [--rows N] [--empty-percent P]
        [--rounds R] [--batch-size N] [--database-url URL] [--json PATH]

(``dev.py bench`` runs the script with ``.venv``'s Python, so
``.venv/bin/python bench/bench_cleanup.py ...`` is the same thing.)

What it does:

1. Creates a throw-away PostgreSQL database (default
   ``postgres://postgres@127.0.0.1:5432/frisian_bench_cleanup``; it must not
   exist yet, the script refuses to touch an existing one) and migrates it
   with the demo project's migrations (``DJANGO_DEBUG=0``).
2. Fills ``contacts_contact`` with ``--rows`` rows (default 1,000,000) in one
   ``INSERT ... SELECT ... FROM generate_series``: every 100th row (1%) is an
   orphaned empty record, the others hold a mix of fields, some of them with
   an empty email or name so no single column tells the two kinds apart. The
   empty rows' ids are kept in a side table, so every refill puts back the
   very same rows. Then ``VACUUM ANALYZE``.
3. Measures ``--rounds`` rounds (default 3), each of:

   * **dry run**: ``frisian_mcp_cleanup --format json`` in a subprocess;
   * **scan+delete**: ``frisian_mcp_cleanup --delete --yes --format json``;
     then the empty rows are put back and the table vacuumed (not timed);
   * **raw DELETE**: one hand-written ``DELETE ... WHERE email = '' AND ...``
     on a fresh connection, as an operator would type it into psql; then the
     rows are put back and the table vacuumed again.

   The two deleting runs alternate which goes first from round to round.
   Every result is checked: the dry run must report exactly the empty rows
   and delete nothing, each delete must remove exactly them (row counts
   before and after), or the run stops.
4. Reports, per kind of run, the median wall time and the peak RSS of the
   process that did the work. The command runs in a child process
   (``python -c``: ``django.setup()`` then ``call_command``, which is what
   ``manage.py`` does); its peak RSS is read with ``os.wait4`` for that child
   alone. The child also reports how long it took to start (Django set up,
   the tool registry built: discovery and tool schemas, a per-process cost
   that depends on the API, not on the table) and how long
   ``call_command`` then ran, so the command's own time is shown apart. A
   run that matches no row (``--created-before 1970-01-01``) gives the
   floor: the RSS and time of the process with nothing to do. The goal's
   ratio is taken on the command's own time; the whole-process ratio is
   shown beside it.
5. Drops the database on exit, also on errors, Ctrl-C and SIGTERM.

Goals (issue #5): peak RSS below 150 MB whatever the table size, and
scan+delete within 3x the time of the raw DELETE.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from _common import (
    MIGRATE,
    ROOT,
    BenchError,
    django_env,
    manage,
    postgres_database,
    progress,
    raise_on_sigterm,
    run_script,
    write_json,
)

DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/frisian_bench_cleanup"
RSS_GOAL_MB = 150.0
RATIO_GOAL = 3.0
EMPTY_WHERE = (
    "email = '' AND first_name = '' AND last_name = '' AND phone = '' AND notes = ''"
)

#: What the child process runs: ``manage.py``'s work, timed from the inside.
#: It writes its timings as JSON to the file named by BENCH_TIMINGS.
DRIVER = """
import json, os, sys, time
started = time.perf_counter()
import django
django.setup()
from django.core.management import call_command
from django.core.management.base import CommandError
from frisian_mcp.contrib.cleanup.plans import exposed_models
exposed_models()  # discovery and tool schemas: once per process, any table size
ready = time.perf_counter()
code = 0
try:
    call_command("frisian_mcp_cleanup", *sys.argv[1:])
except CommandError as exc:
    print(f"CommandError: {exc}", file=sys.stderr)
    code = exc.returncode
done = time.perf_counter()
with open(os.environ["BENCH_TIMINGS"], "w") as out:
    json.dump({"setup_s": ready - started, "command_s": done - ready}, out)
sys.exit(code)
"""


# -- the table ---------------------------------------------------------------


class Table:
    """The contacts table of the benchmark database, filled and refilled."""

    def __init__(self, url: str) -> None:
        import psycopg

        self.url = url
        self.conn = psycopg.connect(url, autocommit=True)

    def close(self) -> None:
        self.conn.close()

    def count(self, where: str = "TRUE") -> int:
        row = self.conn.execute(
            f"SELECT count(*) FROM contacts_contact WHERE {where}"
        ).fetchone()
        return int(row[0]) if row else 0

    def fill(self, rows: int, every: int) -> int:
        """Insert ``rows`` contacts, every ``every``-th one empty; return how many."""
        self.conn.execute(
            """
            INSERT INTO contacts_contact
                (id, email, first_name, last_name, phone, notes, created_at)
            SELECT
                gen_random_uuid(),
                CASE WHEN mod(i, %(every)s) = 0 OR mod(i, 7) = 0 THEN ''
                     ELSE 'person' || i || '@example.com' END,
                CASE WHEN mod(i, %(every)s) = 0 OR mod(i, 5) = 0 THEN '' ELSE 'First' || i END,
                CASE WHEN mod(i, %(every)s) = 0 THEN '' ELSE 'Last' || mod(i, 1000) END,
                CASE WHEN mod(i, %(every)s) = 0 OR mod(i, 3) = 0 THEN ''
                     ELSE '+31 58 ' || lpad(mod(i, 1000000)::text, 7, '0') END,
                CASE WHEN mod(i, 11) = 0 AND mod(i, %(every)s) <> 0 THEN 'Met at a conference.'
                     ELSE '' END,
                now() - make_interval(secs => %(rows)s - i)
            FROM generate_series(1, %(rows)s) AS i
            """,
            {"rows": rows, "every": every},
        )
        self.conn.execute(
            "CREATE TABLE bench_empty AS SELECT id, created_at FROM contacts_contact "
            f"WHERE {EMPTY_WHERE}"
        )
        self.vacuum()
        return self.count("id IN (SELECT id FROM bench_empty)")

    def refill(self) -> None:
        """Put the empty rows back (same ids), then vacuum; not timed."""
        self.conn.execute(
            """
            INSERT INTO contacts_contact
                (id, email, first_name, last_name, phone, notes, created_at)
            SELECT id, '', '', '', '', '', created_at FROM bench_empty
            ON CONFLICT (id) DO NOTHING
            """
        )
        self.vacuum()

    def vacuum(self) -> None:
        self.conn.execute("VACUUM ANALYZE contacts_contact")

    def size(self) -> str:
        row = self.conn.execute(
            "SELECT pg_size_pretty(pg_total_relation_size('contacts_contact')), "
            "current_setting('server_version'), current_setting('shared_buffers')"
        ).fetchone()
        if row is None:
            raise BenchError("could not read the table size")
        return f"{row[0]} on disk (indexes included); PostgreSQL {row[1]}, shared_buffers {row[2]}"


# -- runs ----------------------------------------------------------------------


@dataclass
class Run:
    """One measured run: wall time, peak RSS, and the command's own split."""

    wall_s: float
    rss_mb: float | None = None
    setup_s: float | None = None
    command_s: float | None = None


@dataclass
class Series:
    """Every run of one kind."""

    label: str
    runs: list[Run] = field(default_factory=list)

    def median(self, attr: str) -> float | None:
        values = [getattr(r, attr) for r in self.runs if getattr(r, attr) is not None]
        return statistics.median(values) if values else None

    def peak(self, attr: str) -> float | None:
        values = [getattr(r, attr) for r in self.runs if getattr(r, attr) is not None]
        return max(values) if values else None


def run_command(url: str, args: list[str], work: Path) -> tuple[Run, dict[str, Any]]:
    """Run the command in a child process; return the run and its JSON output."""
    out_path, err_path = work / "stdout.json", work / "stderr.txt"
    timings = work / "timings.json"
    timings.unlink(missing_ok=True)
    env = {**django_env(url, work / "pycache"), "BENCH_TIMINGS": str(timings)}
    argv = [sys.executable, "-c", DRIVER, "--format", "json", *args]
    with out_path.open("wb") as out, err_path.open("wb") as err:
        start = time.perf_counter()
        process = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=out, stderr=err)
        try:
            _, status, usage = os.wait4(process.pid, 0)
        except BaseException:
            process.kill()
            process.wait()
            raise
        wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise BenchError(
            f"frisian_mcp_cleanup {' '.join(args)} exited {process.returncode}:\n"
            f"{err_path.read_text()[-2000:]}"
        )
    inner = json.loads(timings.read_text())
    run = Run(
        wall_s=wall,
        rss_mb=usage.ru_maxrss / 1024,  # kilobytes on Linux
        setup_s=inner["setup_s"],
        command_s=inner["command_s"],
    )
    return run, json.loads(out_path.read_text())


def raw_delete(url: str) -> tuple[Run, int]:
    """The hand-written DELETE on a fresh connection; return the run and rowcount."""
    import psycopg

    start = time.perf_counter()
    with psycopg.connect(url, autocommit=True) as conn:
        cursor = conn.execute(f"DELETE FROM contacts_contact WHERE {EMPTY_WHERE}")
        deleted = cursor.rowcount
    return Run(wall_s=time.perf_counter() - start), deleted


def check(document: dict[str, Any], *, key: str, expected: int, what: str) -> None:
    counts = document.get("counts", {})
    if counts.get(key) != expected or counts.get("candidates") != expected:
        raise BenchError(f"{what}: expected {expected} {key}, got {counts}")


def measure(url: str, args: argparse.Namespace, work: Path) -> dict[str, Any]:
    """Fill the table, then run the rounds; return every run and the setup."""
    table = Table(url)
    try:
        progress(f"Filling {args.rows:,} rows ...")
        started = time.perf_counter()
        every = round(100 / args.empty_percent)
        empty = table.fill(args.rows, every)
        fill_s = time.perf_counter() - started
        total = table.count()
        print(
            f"  {total:,} rows, {empty:,} empty, {fill_s:.1f}s; {table.size()}",
            file=sys.stderr,
            flush=True,
        )
        batch = ["--batch-size", str(args.batch_size)]
        series = {
            "floor": Series("run that matches no row (process floor)"),
            "dry": Series("dry run (scan, report)"),
            "delete": Series("scan+delete (--delete --yes)"),
            "raw": Series("hand-written SQL DELETE"),
        }
        # One unmeasured run: fills the bytecode cache, warms the table.
        run_command(url, [*batch, "--created-before", "1970-01-01"], work)
        for number in range(1, args.rounds + 1):
            progress(f"Round {number}/{args.rounds} ...")
            run, doc = run_command(
                url, [*batch, "--created-before", "1970-01-01"], work
            )
            check(doc, key="candidates", expected=0, what="floor run")
            series["floor"].runs.append(run)

            run, doc = run_command(url, batch, work)
            check(doc, key="candidates", expected=empty, what="dry run")
            if table.count() != total:
                raise BenchError("the dry run changed the table")
            series["dry"].runs.append(run)

            order = ("delete", "raw") if number % 2 else ("raw", "delete")
            for kind in order:
                if kind == "delete":
                    run, doc = run_command(url, [*batch, "--delete", "--yes"], work)
                    check(doc, key="deleted", expected=empty, what="scan+delete")
                else:
                    run, deleted = raw_delete(url)
                    if deleted != empty:
                        raise BenchError(f"raw DELETE removed {deleted}, not {empty}")
                if table.count() != total - empty:
                    raise BenchError(f"{kind}: wrong number of rows left")
                series[kind].runs.append(run)
                table.refill()
                if table.count() != total:
                    raise BenchError("refill did not restore the table")
            print(
                "  dry {:.2f}s, scan+delete {:.2f}s, raw DELETE {:.2f}s".format(
                    series["dry"].runs[-1].wall_s,
                    series["delete"].runs[-1].wall_s,
                    series["raw"].runs[-1].wall_s,
                ),
                file=sys.stderr,
                flush=True,
            )
        return {
            "rows": total,
            "empty": empty,
            "fill_s": fill_s,
            "table": table.size(),
            "series": series,
        }
    finally:
        table.close()


# -- report --------------------------------------------------------------------


def _fmt(value: float | None, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def markdown(result: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The result table and the goal verdicts; also the numbers as a dict."""
    series: dict[str, Series] = result["series"]
    lines = [
        "| Run | median wall s | start s (Django, registry) | command s | peak RSS MB |",
        "|---|---:|---:|---:|---:|",
    ]
    for item in series.values():
        lines.append(
            f"| {item.label} | {_fmt(item.median('wall_s'), '.2f')} | "
            f"{_fmt(item.median('setup_s'), '.2f')} | "
            f"{_fmt(item.median('command_s'), '.2f')} | "
            f"{_fmt(item.peak('rss_mb'), '.1f')} |"
        )
    raw, delete = series["raw"], series["delete"]
    per_round = [
        (d.command_s or 0.0) / r.wall_s
        for d, r in zip(delete.runs, raw.runs, strict=True)
    ]
    raw_s = raw.median("wall_s") or float("nan")
    command_over_raw = (delete.median("command_s") or 0.0) / raw_s
    wall_over_raw = (delete.median("wall_s") or 0.0) / raw_s
    ratios = {
        "command_over_raw": command_over_raw,
        "command_over_raw_per_round": per_round,
        "wall_over_raw": wall_over_raw,
    }
    rss = max(series[k].peak("rss_mb") or 0.0 for k in ("floor", "dry", "delete"))
    goals = {
        "rss_mb": rss,
        "rss_met": rss < RSS_GOAL_MB,
        "ratio_met": command_over_raw <= RATIO_GOAL,
        "ratio_with_startup_met": wall_over_raw <= RATIO_GOAL,
    }
    rounds = ", ".join(f"{r:.2f}x" for r in per_round)
    verdict = [
        "",
        f"scan+delete / raw DELETE: **{command_over_raw:.2f}x** for the "
        f"command itself (ratio of medians; per round: {rounds}), "
        f"{wall_over_raw:.2f}x for the whole process (with interpreter, "
        "Django and registry start-up).",
        "",
        f"- Peak RSS < {RSS_GOAL_MB:.0f} MB: {'met' if goals['rss_met'] else 'NOT met'} "
        f"({rss:.1f} MB at most).",
        f"- scan+delete <= {RATIO_GOAL:.0f}x raw DELETE: "
        f"{'met' if goals['ratio_met'] else 'NOT met'} for the command "
        f"({command_over_raw:.2f}x); "
        f"{'met' if goals['ratio_with_startup_met'] else 'not met'} with "
        f"process start-up included ({wall_over_raw:.2f}x).",
    ]
    return "\n".join(lines + verdict), {"ratios": ratios, "goals": goals}


# -- main ----------------------------------------------------------------------


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="frisian_mcp_cleanup vs a hand-written DELETE on PostgreSQL.",
    )
    parser.add_argument(
        "--rows", type=int, default=1_000_000, metavar="N", help="rows in the table"
    )
    parser.add_argument(
        "--empty-percent",
        type=float,
        default=1.0,
        metavar="P",
        help="share of orphaned empty rows, in percent (default 1)",
    )
    parser.add_argument(
        "--rounds", type=int, default=3, metavar="R", help="measured rounds"
    )
    parser.add_argument(
        "--batch-size",
        type=int,
        default=500,
        metavar="N",
        help="the command's --batch-size (default 500, its own default)",
    )
    parser.add_argument(
        "--database-url",
        default=DEFAULT_URL,
        metavar="URL",
        help=f"a PostgreSQL database to create, use and drop (default {DEFAULT_URL})",
    )
    parser.add_argument("--json", type=Path, metavar="PATH", help="write raw results")
    args = parser.parse_args(argv)
    if args.rows < 100 or args.rounds < 1 or not 0 < args.empty_percent <= 50:
        parser.error("--rows >= 100, --rounds >= 1, 0 < --empty-percent <= 50")
    return args


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    raise_on_sigterm()
    started = dt.datetime.now(dt.UTC)
    with (
        postgres_database(args.database_url) as database,
        tempfile.TemporaryDirectory(prefix="frisian-bench-") as work,
    ):
        url = database.dsn
        progress("Migrating ...")
        manage(url, MIGRATE)
        result = measure(url, args, Path(work))

    import django

    table, numbers = markdown(result)
    header = (
        f"{started.isoformat(timespec='seconds')}, {platform.machine()}, "
        f"{os.cpu_count()} CPUs, Python {platform.python_version()}, Django "
        f"{django.__version__}; {result['rows']:,} contacts, {result['empty']:,} of "
        f"them orphaned empty rows; {result['table']}; --batch-size "
        f"{args.batch_size}; median of {args.rounds} rounds (peak RSS: the "
        f"highest); the table was filled in {result['fill_s']:.1f}s."
    )
    print(f"## Cleanup at scale (bench/bench_cleanup.py)\n\n{header}\n\n{table}\n")
    if args.json:
        report = {
            "date": started.isoformat(timespec="seconds"),
            "rows": result["rows"],
            "empty": result["empty"],
            "table": result["table"],
            "batch_size": args.batch_size,
            "series": {
                key: {"label": s.label, "runs": [vars(r) for r in s.runs]}
                for key, s in result["series"].items()
            },
            **numbers,
        }
        write_json(args.json, report, "Raw results")
    return 0


if __name__ == "__main__":
    run_script(main, "bench_cleanup")
