"""The explorer's page at scale: 300 generated viewsets, 1,812 tools (issue 20).

Run from the repository root::

    .venv/bin/python bench/bench_explorer.py [--processes 3] [--warm 20]

Each process is fresh (``DJANGO_SETTINGS_MODULE=tests.settings_scale``, the
flat layout, so every tool is listed): it sets Django up, discovers the tools
(``warm_up()``, what a worker does at start, ADR 0019; timed apart),
then times the server side of the page: the endpoint's view called with a
browser's GET, as a logged-in superuser, from the first request (the
caller's visible tools not cached yet: it probes every tool's permissions) to ``--warm`` more; then a quarter as many with the
shared cache cleared first (the caller's visible tools probed again, as
when ``CACHE_TTL_MS`` has passed); then the first opening of one tool's
details (which builds that tool's schema). The goal: the page in
under 300 ms of server time. No measurement touches the database.

Output is Markdown on stdout: min / median / max over every process (for
the warm page, over every request of every process).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOOL = "group0__thing000__create"

_CHILD = """
import json, os, sys, time
import django
django.setup()
from django.conf import settings
from django.contrib.auth.models import User
from django.core.cache import cache
from django.test import RequestFactory, override_settings
from frisian_mcp.warmup import warm_up
from frisian_mcp.views import MCPView

warm = int(sys.argv[1])
view = MCPView.as_view()
user = User(username="bench", is_superuser=True, is_active=True)
options = {**settings.FRISIAN_MCP, "TOOL_LAYOUT": "flat"}


def get(query=""):
    request = RequestFactory().get("/mcp" + query, HTTP_ACCEPT="text/html")
    request.user = user
    started = time.perf_counter()
    response = view(request)
    elapsed = (time.perf_counter() - started) * 1000
    assert response.status_code == 200, response.status_code
    return elapsed, response


with override_settings(FRISIAN_MCP=options):
    started = time.perf_counter()
    warm_up()
    discovery = (time.perf_counter() - started) * 1000
    first, response = get()
    listed = response.content.count(b'<li class="tool"')
    pages = [get()[0] for _ in range(warm)]
    probed = []
    for _ in range(max(1, warm // 4)):
        cache.clear()  # the caller's visible tools: probed again
        probed.append(get()[0])
    detail = get("?tool=%s&part=detail")[0]
print(json.dumps({"discovery": discovery, "first": first, "warm": pages,
                  "probed": probed,
                  "detail": detail, "listed": listed,
                  "bytes": len(response.content)}))
"""


def run_process(warm: int) -> dict[str, object]:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tests.settings_scale",
        "PYTHONPATH": str(ROOT),
    }
    done = subprocess.run(
        [sys.executable, "-c", _CHILD % TOOL, str(warm)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def row(name: str, values: list[float]) -> str:
    low, mid, high = min(values), statistics.median(values), max(values)
    return f"| {name} | {low:.0f} | {mid:.0f} | {high:.0f} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=3)
    parser.add_argument("--warm", type=int, default=20)
    options = parser.parse_args()
    runs = []
    for index in range(options.processes):
        print(f"process {index + 1}/{options.processes}", file=sys.stderr)
        runs.append(run_process(options.warm))
    listed = {run["listed"] for run in runs}
    size = {run["bytes"] for run in runs}
    print(f"Tools listed: {', '.join(map(str, listed))}; page bytes: {size}\n")
    print("| server time (ms) | min | median | max |")
    print("|---|---|---|---|")
    print(row("discovery (at worker start)", [float(r["discovery"]) for r in runs]))  # type: ignore[arg-type]
    print(row("first page of a process", [float(r["first"]) for r in runs]))  # type: ignore[arg-type]
    warm = [float(t) for r in runs for t in r["warm"]]  # type: ignore[attr-defined]
    print(row("page, warm", warm))
    probed = [float(t) for r in runs for t in r["probed"]]  # type: ignore[attr-defined]
    print(row("page, the caller's tools probed again", probed))
    print(row("first opening of a tool", [float(r["detail"]) for r in runs]))  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
