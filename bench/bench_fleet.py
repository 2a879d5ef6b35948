"""Listings of a large API: per-caller cache, schema build, size, memory, fleet.

The goals of issue 11, on the scale app (``tests.urls_scale``: 300 viewsets,
1,812 tools) with the host's own permission class on every viewset
(``FRISIAN_SCALE_PERMISSION=custom``):

* warm flat ``tools/list`` page for one caller: < 10 ms median, against the
  same page with the visible-set cache off (``CACHE: None``), in one process;
* building every tool schema: <= 0.2x drf-spectacular's ``SchemaGenerator``
  on the same API, each in fresh processes, interleaved;
* flat listing: mean <= 1.0 KB per tool, no tool over 16 KB;
* RSS after a full flat listing: <= 30 MB over the host's own RSS;
* a second gunicorn sharing Redis with the first: its first full listing
  spends <= 0.1 s more than its warm one (no schema built).

Usage: ``python3 dev.py bench bench/bench_fleet.py [--repeat 3] [--requests 50]``
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from _common import ROOT, BenchError, progress, run_script

_RESULT = "RESULT "
PAGE = "HTTP tools/list, first page"


def _setup(cache: bool = True, layout: str = "flat") -> None:
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings_scale")
    os.environ["FRISIAN_SCALE_PERMISSION"] = "custom"
    import django

    django.setup()
    from django.conf import settings
    from django.urls import get_resolver

    options = {
        **settings.FRISIAN_MCP,
        "TOOL_LAYOUT": layout,
        "STORE_BACKEND": "frisian_mcp.contrib.fleet.store.FleetStore",
    }
    if not cache:
        options["CACHE"] = None
    settings.FRISIAN_MCP = options
    get_resolver().resolve("/mcp")  # the host's URLconf, loaded as a request would


def _rss_mb() -> float:
    with open("/proc/self/statm") as statm:
        pages = int(statm.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def _worker(kind: str, requests: int) -> dict[str, Any]:
    cached, _, layout = kind.partition("-")
    _setup(cache=cached != "uncached", layout=layout or "flat")
    if kind == "spectacular":
        from drf_spectacular.generators import SchemaGenerator

        start = time.perf_counter()
        SchemaGenerator().get_schema(request=None, public=True)
        return {"seconds": time.perf_counter() - start}
    from frisian_mcp.registry import get_registry

    started = time.perf_counter()
    registry = get_registry()
    if kind == "adopt":
        return _adopt(registry, time.perf_counter() - started)
    if kind == "build":
        host = _rss_mb()
        start = time.perf_counter()
        listed = registry.definitions(layout="flat")
        seconds = time.perf_counter() - start
        sizes = [len(json.dumps(d, separators=(",", ":"))) for d in listed]
        return {
            "seconds": seconds,
            "tools": len(listed),
            "rss_over_host_mb": _rss_mb() - host,
            "mean_bytes": statistics.mean(sizes),
            "max_bytes": max(sizes),
        }
    from frisian_mcp.contrib.testing import MCPTestClient

    client = MCPTestClient()
    client.initialize()
    client.list_tools()  # build every schema and, cached, the visible set
    samples: dict[str, list[float]] = {"HTTP ping (reference)": [], PAGE: []}
    for _ in range(requests):
        for name, method in (("HTTP ping (reference)", "ping"), (PAGE, "tools/list")):
            start = time.perf_counter()
            client.request(method)
            samples[name].append((time.perf_counter() - start) * 1000)
    return {"samples": samples}


def _adopt(registry: Any, discovery: float) -> dict[str, Any]:
    """What a new worker spends on schemas when its fleet built them."""
    from frisian_mcp.schema import SchemaBuilder

    built = 0
    build = SchemaBuilder.build

    def counted(self: Any, *args: Any, **kwargs: Any) -> Any:
        nonlocal built
        built += 1
        return build(self, *args, **kwargs)

    SchemaBuilder.build = counted  # type: ignore[method-assign]
    # The worker's first use of its cache imports the client library (redis:
    # about 0.13 s) and connects, whatever it caches: the worker pays it
    # once, schemas or not. Measured apart, before the schema work.
    from frisian_mcp.contrib.fleet import cache

    start = time.perf_counter()
    backend = cache.backend()
    assert backend is not None, "the fleet settings configure a shared cache"
    backend.get("frisian_mcp:bench:connect")
    client = time.perf_counter() - start
    start = time.perf_counter()
    fingerprint = registry.store.fingerprint
    digest = time.perf_counter() - start
    registry.share_schemas()
    loaded = time.perf_counter() - start - digest
    from django.contrib.auth.models import AnonymousUser
    from django.test import RequestFactory

    from frisian_mcp.types import CallContext

    caller = CallContext(request=RequestFactory().post("/mcp"), user=AnonymousUser())
    registry.definitions(layout="flat", context=caller)  # as the fleet's caller
    return {
        "discovery_s": discovery,
        "client_s": client,
        "fingerprint_s": digest,
        "load_s": loaded,
        "schemas_s": time.perf_counter() - start,
        "built": built,
        "adopted": sum(t.built for t in registry) - built,
        "key": fingerprint,
    }


def _subprocess(kind: str, requests: int = 0, settings: str | None = None) -> Any:
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    if settings:
        env["DJANGO_SETTINGS_MODULE"] = settings
    args = [sys.executable, __file__, "--worker", kind, "--requests", str(requests)]
    done = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True)
    lines = [line for line in done.stdout.splitlines() if line.startswith(_RESULT)]
    if done.returncode or not lines:
        raise BenchError(f"worker {kind} failed:\n{done.stderr[-3000:]}")
    return json.loads(lines[-1][len(_RESULT) :])


def _fleet() -> dict[str, Any]:
    """Two gunicorn instances on one Redis: cold, adopting, and warm listings."""
    import httpx

    prefix = f"frisian-fleet-{uuid.uuid4().hex[:8]}"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tests.settings_fleet",
        "FRISIAN_SCALE_PERMISSION": "custom",
        "FRISIAN_FLEET_PREFIX": prefix,
        "PYTHONPATH": str(ROOT),
    }
    procs, bases = [], []
    with tempfile.TemporaryDirectory() as tmp:
        try:
            for name in ("a", "b"):
                log = Path(tmp, f"{name}.log")
                args = [sys.executable, "-m", "gunicorn", "-b", "127.0.0.1:0"]
                args += ["django.core.wsgi:get_wsgi_application()"]
                with log.open("w") as out:
                    procs.append(
                        subprocess.Popen(
                            args, cwd=ROOT, env=env, stdout=out, stderr=out
                        )
                    )
                bases.append(_listening(log))
            with httpx.Client(timeout=120) as http:
                cold = _list_all(http, bases[0])
                adopting = _list_all(http, bases[1])
                warm = min(_list_all(http, bases[1]) for _ in range(5))
            os.environ["FRISIAN_FLEET_PREFIX"] = prefix
            os.environ["FRISIAN_SCALE_PERMISSION"] = "custom"
            adopt = _subprocess("adopt", settings="tests.settings_fleet")
        finally:
            for proc in procs:
                proc.terminate()
                proc.wait(timeout=15)
    return {"a_cold_s": cold, "b_first_s": adopting, "b_warm_s": warm, **adopt}


def _listening(log: Path) -> str:
    import re

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = re.search(r"Listening at: (http://127\.0\.0\.1:\d+)", log.read_text())
        if found and "Booting worker" in log.read_text():
            return found[1]
        time.sleep(0.1)
    raise BenchError(f"gunicorn did not start:\n{log.read_text()[-2000:]}")


def _list_all(http: Any, base: str) -> float:
    headers = {
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2025-11-25",
    }
    params: dict[str, str] = {}
    start, count = time.perf_counter(), 0
    while True:
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": params}
        result = http.post(f"{base}/mcp", json=body, headers=headers).json()["result"]
        count += len(result["tools"])
        if not result.get("nextCursor"):
            break
        params = {"cursor": result["nextCursor"]}
    if count < 500:  # anonymous: the read tools of 1,812
        raise BenchError(f"{base} listed only {count} tools")
    return time.perf_counter() - start


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--requests", type=int, default=50)
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--no-fleet", action="store_true", help="skip gunicorn+Redis")
    options = parser.parse_args(argv)
    if options.worker:
        print(_RESULT + json.dumps(_worker(options.worker, options.requests)))
        return 0
    builds, spectacular = [], []
    for round_ in range(options.repeat):
        progress(f"round {round_ + 1}: full build, spectacular")
        builds.append(_subprocess("build"))
        spectacular.append(_subprocess("spectacular")["seconds"])
    progress("warm listings, cached and uncached, flat and default layout")
    warm = {
        f"{layout} layout, cache {state}": _subprocess(
            f"{'cached' if state == 'on' else 'uncached'}-{layout}", options.requests
        )["samples"]
        for layout in ("auto", "flat")
        for state in ("on", "off")
    }
    build_s = statistics.median(b["seconds"] for b in builds)
    spec_s = statistics.median(spectacular)
    last = builds[-1]
    print("| Measure | Value | Goal |\n|---|---|---|")
    print(
        f"| Full schema build / spectacular | {build_s / spec_s:.2f}x "
        f"({build_s:.2f} s / {spec_s:.2f} s) | <= 0.2x |"
    )
    for label, samples in warm.items():
        page = statistics.median(samples[PAGE])
        ping = statistics.median(samples["HTTP ping (reference)"])
        print(
            f"| Warm tools/list (first page), {label} | {page:.1f} ms "
            f"({page / ping:.1f}x a ping) | < 10 ms |"
        )
    print(
        f"| Mean / largest tool in the flat listing ({last['tools']} tools) | "
        f"{last['mean_bytes']:.0f} B / {last['max_bytes']} B | <= 1,024 B / 16 KB |"
    )
    print(
        f"| RSS after a full flat listing, over the host's | "
        f"{last['rss_over_host_mb']:.1f} MB | <= 30 MB |"
    )
    if not options.no_fleet:
        progress("fleet: two gunicorn instances on one Redis")
        fleet = _fleet()
        spent = fleet["b_first_s"] - fleet["b_warm_s"]
        print(
            f"| A new worker's time on schemas the fleet built "
            f"({fleet['adopted']} adopted, {fleet['built']} built) | "
            f"{fleet['schemas_s']:.2f} s (digest {fleet['fingerprint_s']:.2f} s, "
            f"Redis load {fleet['load_s']:.2f} s; before it, the Redis client's "
            f"import and connection {fleet['client_s']:.2f} s) | <= 0.1 s |"
        )
        print(
            f"| Its first full listing over HTTP, over its warm one | "
            f"{spent:.2f} s (cold first worker: {fleet['a_cold_s']:.2f} s; "
            f"discovery {fleet['discovery_s']:.2f} s) | |"
        )
    return 0


if __name__ == "__main__":
    run_script(main, "bench_fleet")
