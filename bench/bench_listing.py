"""A warm ``tools/list`` with no extra installed: kept answers vs probed ones.

Issue 25 item 8: without any extra, each caller's permission answers are
kept in the process (``frisian_mcp.rights.Answers``, ADR 0032), so a warm
listing probes no view's permission classes again. Measured on the scale
app (``tests.urls_scale``) with ``FRISIAN_SCALE_VIEWSETS`` viewsets (166:
1,004 tools) and the host's own permission class on each
(``FRISIAN_SCALE_PERMISSION=custom``), under ``tests.settings_core`` (no
extra installed: flat tools, no store). Each variant runs in a fresh
process: the kept answers (the default), and every listing probing
(``CACHE_TTL_MS = 0``, as before the change). Warm listings are sampled
interleaved with an HTTP ``ping`` over the same test client, the reference
of the same run: the first page, and the whole listing (every page, by
``nextCursor``), the server's time: the answers' bytes are not decoded.
The listing's size per tool (compact JSON) is reported too.
Goal: a warm listing at about 1,000 tools <= 25 ms.

Usage: ``.venv/bin/python bench/bench_listing.py [--viewsets 166] [--requests 30]``
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time
from typing import Any

from _common import ROOT, BenchError, progress, run_script

_RESULT = "RESULT "
_CURSOR = re.compile(rb'"nextCursor":\s*"([^"]+)"')
VARIANTS = {"kept": {}, "probed": {"CACHE_TTL_MS": 0}}
CALLERS = {"anonymous": "an anonymous caller", "superuser": "a superuser"}


def _worker(variant: str, caller: str, requests: int) -> dict[str, Any]:
    sys.path.insert(0, str(ROOT))
    import django
    from django.conf import settings

    django.setup()
    settings.ROOT_URLCONF = "tests.urls_scale"
    settings.FRISIAN_MCP = {**settings.FRISIAN_MCP, **VARIANTS[variant]}
    from django.urls import get_resolver

    from frisian_mcp.conf import mcp_settings
    from frisian_mcp.contrib.testing import MCPTestClient
    from frisian_mcp.invocation import Probe

    mcp_settings.reload()
    get_resolver().resolve("/mcp")  # the host's URLconf, as a request loads it
    probes = [0]
    check = Probe._check

    def counted(self: Any, endpoint: Any) -> bool:
        probes[0] += 1
        return check(self, endpoint)

    Probe._check = counted  # type: ignore[method-assign]
    client = MCPTestClient()
    if caller == "superuser":  # every tool listed: 1,004 at 166 viewsets
        from django.contrib.auth.models import User
        from django.core.management import call_command

        call_command("migrate", run_syncdb=True, verbosity=0)
        client.client.force_login(User.objects.create_superuser("admin"))
    client.initialize()
    listed = client.list_tools()  # builds every schema, probes once
    tools = len(listed)
    size = sum(len(json.dumps(t, separators=(",", ":"))) for t in listed)

    def post(method: str, params: dict[str, Any]) -> bytes:
        body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
        response = client.post(body)
        if response.status_code != 200 or b'"error"' in response.content[:40]:
            raise BenchError(f"{method}: {response.content[:300]!r}")
        return response.content

    def listing() -> None:
        # Every page, as a client does; the bytes are not decoded (that is
        # the client's time), the cursor is read from them.
        params: dict[str, Any] = {}
        while True:
            found = _CURSOR.search(post("tools/list", params))
            if found is None:
                return
            params = {"cursor": found[1].decode()}

    samples: dict[str, list[float]] = {"ping": [], "page": [], "listing": []}
    before = probes[0]
    for _ in range(requests):
        for name, run in (
            ("ping", lambda: post("ping", {})),
            ("page", lambda: post("tools/list", {})),
            ("listing", listing),
        ):
            start = time.perf_counter()
            run()
            samples[name].append((time.perf_counter() - start) * 1000)
    per_listing = (probes[0] - before) / (2 * requests)
    return {"tools": tools, "samples": samples, "probes": per_listing, "bytes": size}


def _subprocess(variant: str, caller: str, requests: int, viewsets: int) -> Any:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tests.settings_core",
        "FRISIAN_SCALE_VIEWSETS": str(viewsets),
        "FRISIAN_SCALE_PERMISSION": "custom",
        "PYTHONHASHSEED": "0",
    }
    env.pop("DATABASE_URL", None)
    args = [sys.executable, __file__, "--worker", variant, "--caller", caller]
    args += ["--requests", str(requests)]
    done = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True)
    lines = [line for line in done.stdout.splitlines() if line.startswith(_RESULT)]
    if done.returncode or not lines:
        raise BenchError(f"worker {variant} failed:\n{done.stderr[-3000:]}")
    return json.loads(lines[-1][len(_RESULT) :])


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--viewsets", type=int, default=166)
    parser.add_argument("--requests", type=int, default=30)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--caller", choices=CALLERS, help=argparse.SUPPRESS)
    options = parser.parse_args(argv)
    if options.worker:
        found = _worker(options.worker, options.caller, options.requests)
        print(_RESULT + json.dumps(found))
        return 0
    for caller in CALLERS:
        _report(caller, options)
    return 0


def _report(caller: str, options: argparse.Namespace) -> None:
    """Both variants for one caller, alternating; a table."""
    found: dict[str, list[dict[str, Any]]] = {name: [] for name in VARIANTS}
    for round_ in range(options.repeat):
        for variant in VARIANTS:  # alternate, so both see the same load
            progress(f"{caller}, round {round_ + 1}: {variant}")
            found[variant].append(
                _subprocess(variant, caller, options.requests, options.viewsets)
            )
    tools = found["kept"][0]["tools"]
    print(f"\n{tools} tools listed to {CALLERS[caller]}, {options.viewsets} viewsets\n")
    print(
        "| Warm, median ms (x a ping) | kept answers | probed every listing | probed / kept |"
    )
    print("|---|---:|---:|---:|")
    for measure, label in (("page", "first page"), ("listing", "whole listing")):
        cells = {}
        for variant, runs in found.items():
            value = statistics.median(
                statistics.median(r["samples"][measure]) for r in runs
            )
            ping = statistics.median(
                statistics.median(r["samples"]["ping"]) for r in runs
            )
            cells[variant] = (value, value / ping)
        kept, probed = cells["kept"], cells["probed"]
        print(
            f"| {label} | {kept[0]:.1f} ({kept[1]:.1f}x) | {probed[0]:.1f} "
            f"({probed[1]:.1f}x) | {probed[0] / kept[0]:.1f}x |"
        )
    for variant, runs in found.items():
        print(
            f"- {variant}: {runs[0]['probes']:.0f} permission probes per warm listing"
        )
    per_tool = found["kept"][0]["bytes"] / tools
    print(f"- the listing: {per_tool:,.1f} B per tool (compact JSON)")


if __name__ == "__main__":
    run_script(main, "bench_listing")
