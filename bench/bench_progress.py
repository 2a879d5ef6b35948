"""Progress notifications: a bulk create of N rows with and without a token.

Run from the repository root::

    python3 dev.py bench bench/bench_progress.py [--items N] [--rounds R]
        [--database-url URL] [--json PATH]

(``.venv/bin/python bench/bench_progress.py ...`` is the same thing.)

Issue 28 item 4 asks that a bulk create of 10,000 rows with a progress
token send between 5 and 100 ``notifications/progress`` and cost at most
5 % more than without one (ADR 0044). What it does:

1. Creates a throw-away database (a temporary SQLite file by default, or
   ``--database-url``), migrates and seeds it in subprocesses, then sets
   Django up in this process on it with the demo's settings and
   ``DJANGO_DEBUG=0``, its audit trail off (the audit counts the rows of
   the request thread's connection, so a streamed call's worker would be
   spared that cost).
2. Runs ``--rounds`` rounds of two calls each, the order alternating: one
   ``tools/call contacts__create`` with ``{"objects": [N items]}`` through
   Django's test ``Client`` (no socket), as the seeded ``demo`` user,
   ``Accept: application/json, text/event-stream``; once without a token
   (a JSON answer) and once with ``_meta.progressToken`` (the call in a
   worker thread, the SSE stream read to its end). Each is timed from the
   POST to the last byte, from an empty contacts table, after a warm-up
   of both. Every answer is checked (not an error, the rows there, the
   stream's progress increasing and ending at N, the response last).
3. Prints Markdown: the medians, the ratio of medians and per round (goal
   <= 1.05), of wall time and of this process's CPU time (every thread's;
   steadier than wall time on a loaded machine), and the notification
   count (goal 5..100).

Machines this runs on are shared and noisy: read the ratio, not the
absolute seconds.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any, cast

from django.http import StreamingHttpResponse

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import (
    MIGRATE,
    ROOT,
    SEED,
    BenchError,
    django_env,
    machine,
    manage,
    progress,
    raise_on_sigterm,
    run_script,
    temporary_database,
    write_json,
)

ACCEPT = "application/json, text/event-stream"


def make_items(count: int, side: str) -> list[dict[str, str]]:
    return [
        {"email": f"p{i}-{side}@example.com", "last_name": f"Progress {i}"}
        for i in range(count)
    ]


def body(items: list[dict[str, str]], token: str | None) -> str:
    params: dict[str, Any] = {"name": "contacts__create", "arguments": {}}
    params["arguments"]["objects"] = items
    if token is not None:
        params["_meta"] = {"progressToken": token}
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}
    return json.dumps(message)


class Bench:
    """The calls, in this process once Django is set up on the database."""

    def __init__(self) -> None:
        import logging

        import django

        django.setup()
        from django.test import Client

        # The audit trail counts the rows of the request thread's connection
        # only; a streamed call's worker would skip that cost. Off for both.
        logging.getLogger("frisian_mcp.audit").setLevel(logging.WARNING)

        from demo_project.contacts.models import Contact
        from demo_project.management.commands.seed_demo import DEMO_TOKEN

        self.model = Contact
        self.client = Client(
            headers={
                "Authorization": f"Token {DEMO_TOKEN}",
                "Accept": ACCEPT,
                "MCP-Protocol-Version": "2025-11-25",
            }
        )

    def reset(self) -> None:
        self.model.objects.all()._raw_delete(self.model.objects.db)

    def run(self, items: int, token: str | None) -> tuple[float, float, int]:
        """One call from an empty table: its wall and CPU seconds (this
        process's, every thread's) and its notifications."""
        data = body(make_items(items, token or "plain"), token)
        self.reset()
        gc.collect()
        start, cpu = time.perf_counter(), time.process_time()
        response = self.client.post("/mcp", data=data, content_type="application/json")
        raw = (
            b"".join(
                cast(
                    Iterable[bytes],
                    cast(StreamingHttpResponse, response).streaming_content,
                )
            )
            if response.streaming
            else None
        )
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        if raw is None:
            if token is not None:
                raise BenchError("the call with a token was not streamed")
            answer, notified = json.loads(response.content), 0
        else:
            answer, notified = _read_stream(raw, items)
        if "result" not in answer or answer["result"].get("isError"):
            raise BenchError(f"the call failed: {str(answer)[:300]}")
        if self.model.objects.count() != items:
            raise BenchError("the table does not hold the rows created")
        return seconds, cpu, notified


def _read_stream(raw: bytes, items: int) -> tuple[dict[str, Any], int]:
    found = [
        json.loads(line[6:])
        for line in raw.decode().split("\n")
        if line.startswith("data: ") and len(line) > 6
    ]
    done = [m["params"]["progress"] for m in found[:-1]]
    if done != sorted(set(done)) or not done or done[-1] != items:
        raise BenchError(f"progress {done} does not rise to {items}")
    return found[-1], len(done)


def measure(bench: Bench, items: int, rounds: int) -> dict[str, Any]:
    bench.run(min(items, 500), None)
    bench.run(min(items, 500), "warm")
    times: dict[str, list[float]] = {}
    counts: set[int] = set()
    for number in range(rounds):
        order = [None, f"t{number}"] if number % 2 == 0 else [f"t{number}", None]
        for token in order:
            seconds, cpu, notified = bench.run(items, token)
            side = "plain" if token is None else "streamed"
            times.setdefault(side, []).append(seconds)
            times.setdefault(f"{side}_cpu", []).append(cpu)
            if token is not None:
                counts.add(notified)
        progress(
            f"round {number + 1}: {times['plain'][-1]:.3f} s, "
            f"{times['streamed'][-1]:.3f} s"
        )
    bench.reset()
    return {**times, "notifications": sorted(counts)}


def report(result: dict[str, Any], items: int) -> str:
    lines = [
        f"Bulk create of {items:,} contacts, {len(result['plain'])} rounds, "
        f"in-process, {machine()}.",
        "",
        "| Variant | median s | min s | max s | median CPU s |",
        "|---|---|---|---|---|",
    ]
    for side, label in (
        ("plain", "without a token (JSON)"),
        ("streamed", "with a progress token (SSE)"),
    ):
        wall, cpu = result[side], result[f"{side}_cpu"]
        lines.append(
            f"| {label} | {statistics.median(wall):.3f} | {min(wall):.3f} "
            f"| {max(wall):.3f} | {statistics.median(cpu):.3f} |"
        )
    lines.append("")
    for suffix, what in (("", "wall"), ("_cpu", "CPU")):
        plain, streamed = result[f"plain{suffix}"], result[f"streamed{suffix}"]
        ratio = statistics.median(streamed) / statistics.median(plain)
        per_round = [s / p for s, p in zip(streamed, plain, strict=True)]
        lines.append(
            f"- {what} time, ratio of medians: {ratio:.3f}x (goal <= 1.05); "
            f"per round: min {min(per_round):.3f}x, "
            f"median {statistics.median(per_round):.3f}x, max {max(per_round):.3f}x"
        )
    counts = ", ".join(map(str, result["notifications"]))
    lines.append(f"- notifications per call: {counts} (goal 5..100)")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    raise_on_sigterm()
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--database-url")
    parser.add_argument("--json", type=Path)
    options = parser.parse_args(argv)
    with temporary_database(options.database_url, prefix="frisian-progress-") as db:
        progress(f"Migrating and seeding {db.label} ...")
        manage(db.url, MIGRATE, SEED)
        os.environ.update(django_env(db.url))
        sys.path.insert(0, str(ROOT))
        result = measure(Bench(), options.items, options.rounds)
        from django import db as django_db

        django_db.connections.close_all()
    print(report(result, options.items))
    if options.json is not None:
        write_json(options.json, result, "Timings")
    return 0


if __name__ == "__main__":
    run_script(main, "bench_progress")
