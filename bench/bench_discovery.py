"""Discovery and tools/list at scale: 300 generated viewsets, 1,812 tools.

Run from the repository root::

    .venv/bin/python bench/bench_discovery.py [--repeat 3] [--requests 30]  # 0: skip
        [--sizes 50,100,200,300] [--profile] [--json PATH]

The API is ``tests.urls_scale`` (``DJANGO_SETTINGS_MODULE=tests.settings_scale``):
300 ``ModelViewSet``\\ s on the table-less models of ``tests.scaleapp``, with
django-filter filtersets, search, ordering, relations and a few ``@action``\\ s.
No measurement touches the database.

What it measures:

1. **Cold**, each in a fresh interpreter (a subprocess), the kinds interleaved
   and their order rotated every repeat:

   * ``discovery``: ``ToolRegistry.from_settings()`` (endpoints and names,
     no schemas), what every process pays before its first ``tools/list``;
   * ``flat``: ``from_settings()`` then ``definitions()`` under
     ``TOOL_LAYOUT="flat"``: every tool's schema;
   * ``dispatcher``: the same under ``TOOL_LAYOUT="dispatcher"``;
   * ``spectacular``: drf-spectacular's
     ``SchemaGenerator().get_schema(request=None, public=True)``, the full
     OpenAPI document of the same API: the baseline of the ratios.

   ``django.setup()``, the imports both sides need (frisian_mcp.registry,
   drf_spectacular's generator, django-filter's DRF backend) and the
   resolution of drf-spectacular's extension targets (which imports pydantic,
   GIS and authtoken modules on first use, 0.2-0.4 s whoever maps first) run
   before the clock starts; importing the URLconf (which generates the
   serializers and viewsets) is timed and reported on its own.
2. **Warm** ``tools/list``, in one process after a warm-up, as the anonymous
   caller of the test settings (``REQUIRE_AUTHENTICATION: False``; the
   viewsets have no permission classes, so every tool is visible): each round
   POSTs, through Django's test ``Client`` (``MCPTestClient.post``, protocol
   2025-11-25), ``ping`` (the transport's floor), the first flat page, every
   flat page (following ``nextCursor``; each page is also a sample of "each
   page") and the dispatcher list, in rotated order; ``jsonrpc.handle`` alone
   is timed on the first flat page and the dispatcher list, with the default
   ``FILTER_TOOLS_BY_PERMISSION`` and with it off. Every response is checked.
3. **Sizes**: ``tools/list`` response bytes for the flat layout (first page,
   all pages) and dispatchers grouped by app and by path, with the first N
   viewsets (``FRISIAN_SCALE_VIEWSETS``), each N in its own subprocess.
4. With ``--profile``: one cold ``flat`` build under cProfile in a
   subprocess, its top functions and the call counts that show how much
   per-serializer reuse happens; then warm ``tools/list`` calls (flat first
   page, dispatcher) under cProfile.

Output is Markdown on stdout (for docs/performance.md); progress goes to
stderr. Cold figures are reported as ratios to spectacular's time measured in
the same repeat; absolute milliseconds are context only (shared 2-core VM).
"""

from __future__ import annotations

import argparse
import cProfile
import datetime as dt
import importlib
import io
import json
import os
import platform
import pstats
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _common import (
    PROTOCOL_VERSION,
    ROOT,
    BenchError,
    jsonrpc_body,
    machine,
    progress,
    run_script,
)

COLD_KINDS = ("discovery", "first_page", "flat", "dispatcher", "spectacular")
#: Goals of issue #4.
COLD_GOAL = 0.3
WARM_GOAL_MS = 10.0
_RESULT = "RESULT "


# -- the worker (runs in a fresh subprocess) -------------------------------------


def _setup() -> float:
    """Set Django up with the scale settings; return the seconds it took."""
    start = time.perf_counter()
    sys.path.insert(0, str(ROOT))
    os.environ["DJANGO_SETTINGS_MODULE"] = "tests.settings_scale"
    import django

    django.setup()
    # What both sides import anyway, so neither is charged for imports.
    import django_filters.rest_framework  # noqa: F401
    import drf_spectacular.generators
    import drf_spectacular.openapi  # noqa: F401

    _load_spectacular_extensions()
    return time.perf_counter() - start


def _load_spectacular_extensions() -> int:
    """Resolve drf-spectacular's extension targets; return how many.

    Spectacular imports each extension's target (pydantic, GIS, authtoken
    views...) on the first lookup, in whichever process maps a field first:
    a fixed cost of 0.2-0.4 s that both sides would pay inside their clock
    and that has nothing to do with the size of the API.
    """
    from drf_spectacular import extensions

    loaded = 0
    for base in (
        extensions.OpenApiAuthenticationExtension,
        extensions.OpenApiSerializerExtension,
        extensions.OpenApiSerializerFieldExtension,
        extensions.OpenApiViewExtension,
        extensions.OpenApiFilterExtension,
    ):
        for extension in base._registry:
            if isinstance(extension.target_class, str):
                # A classmethod reached through type[T]: mypy does not
                # apply untyped_calls_exclude to it.
                extension._load_class()  # type: ignore[no-untyped-call]
                loaded += 1
    return loaded


def _set_layout(**options: Any) -> None:
    """Switch FRISIAN_MCP options in place, keeping the cached registry.

    ``override_settings`` would send ``setting_changed``, which drops the
    registry; the warm measurement needs one registry serving both layouts.
    The test settings' own options (``REQUIRE_AUTHENTICATION: False``) stay.
    """
    from django.conf import settings

    from frisian_mcp.conf import mcp_settings

    base = _BASE_OPTIONS.setdefault("options", dict(settings.FRISIAN_MCP))
    settings.FRISIAN_MCP.clear()
    settings.FRISIAN_MCP.update(base, **options)
    mcp_settings.reload()


#: The FRISIAN_MCP of the settings module, saved before the first switch.
_BASE_OPTIONS: dict[str, dict[str, Any]] = {}


def _cold(kind: str) -> dict[str, Any]:
    from django.conf import settings

    from frisian_mcp.registry import ToolRegistry

    start = time.perf_counter()
    importlib.import_module(settings.ROOT_URLCONF)
    result: dict[str, Any] = {"urlconf": time.perf_counter() - start}
    if kind == "spectacular":
        from drf_spectacular.generators import SchemaGenerator

        start = time.perf_counter()
        document = SchemaGenerator().get_schema(request=None, public=True)
        result["seconds"] = time.perf_counter() - start
        result["operations"] = sum(len(p) for p in document["paths"].values())
        result["bytes"] = len(json.dumps(document, default=str))
    else:
        if kind != "discovery":
            _set_layout(TOOL_LAYOUT="flat" if kind == "first_page" else kind)
        start = time.perf_counter()
        registry = ToolRegistry.from_settings()
        found = time.perf_counter()
        count = len(registry)
        if kind == "first_page":
            # What a fresh process's first tools/list builds: one page.
            count = len(registry.page(0, 100)[0])
        elif kind != "discovery":
            count = len(registry.definitions())
        result["seconds"] = time.perf_counter() - start
        result["discovery"] = found - start
        result["tools"] = count
    result["max_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return result


def _post(client: Any, body: bytes) -> tuple[float, dict[str, Any], int]:
    start = time.perf_counter()
    response = client.post(body, raw=True)
    elapsed = time.perf_counter() - start
    if response.status_code != 200:
        raise BenchError(f"HTTP {response.status_code}: {response.content[:300]!r}")
    payload = json.loads(response.content)
    if "result" not in payload:
        raise BenchError(f"not a result: {payload!r:.300}")
    return elapsed, payload["result"], len(response.content)


def _message(method: str, params: dict[str, Any] | None = None) -> bytes:
    return jsonrpc_body(method, params or {})


def _list_all(client: Any) -> tuple[list[float], int, int, int]:
    """Every flat page: server time per page, tools, bytes of the first, bytes."""
    seconds: list[float] = []
    tools, first, size = 0, 0, 0
    params: dict[str, Any] = {}
    while True:
        elapsed, result, length = _post(client, _message("tools/list", params))
        seconds.append(elapsed)
        tools += len(result["tools"])
        first = first or length
        size += length
        if "nextCursor" not in result:
            return seconds, tools, first, size
        params = {"cursor": result["nextCursor"]}


#: FRISIAN_MCP options of the warm measurement's variants.
_FLAT = {"TOOL_LAYOUT": "flat"}
_DISPATCHER = {"TOOL_LAYOUT": "dispatcher"}
_UNFILTERED = {"FILTER_TOOLS_BY_PERMISSION": False}
ALL_PAGES = "HTTP tools/list flat, every page (sum of one full listing)"
EACH_PAGE = "HTTP tools/list flat, each page"


def _warm(requests: int, warmup: int) -> dict[str, Any]:
    from django.contrib.auth.models import AnonymousUser
    from django.test import RequestFactory

    from frisian_mcp import jsonrpc
    from frisian_mcp.contrib.testing import MCPTestClient
    from frisian_mcp.registry import get_registry
    from frisian_mcp.types import CallContext

    client = MCPTestClient(protocol_version=PROTOCOL_VERSION)
    client.initialize()
    expected = len(get_registry())
    http_request = RequestFactory().post("/mcp")
    pages: list[float] = []

    def handle(want: int) -> float:
        context = CallContext(request=http_request, user=AnonymousUser())
        start = time.perf_counter()
        reply = jsonrpc.handle(
            _message("tools/list"), context, header_version=PROTOCOL_VERSION
        )
        elapsed = time.perf_counter() - start
        tools = reply.body["result"]["tools"]  # type: ignore[index,call-overload]
        if reply.status != 200 or len(tools) != want:
            raise BenchError(f"jsonrpc.handle answered {reply!r:.300}")
        return elapsed

    def ping() -> float:
        return _post(client, _message("ping"))[0]

    def flat_first() -> float:
        elapsed, result, _ = _post(client, _message("tools/list"))
        if len(result["tools"]) != 100 or "nextCursor" not in result:
            raise BenchError("the first flat page is not 100 tools and a cursor")
        return elapsed

    def flat_all() -> float:
        seconds, tools, _, _ = _list_all(client)
        if tools != expected:
            raise BenchError(f"flat tools/list gave {tools} of {expected} tools")
        pages.extend(seconds)
        return sum(seconds)

    def dispatcher() -> float:
        elapsed, result, _ = _post(client, _message("tools/list"))
        if [t["name"] for t in result["tools"]] != ["scaleapp"]:
            raise BenchError("the dispatcher list is not the one scaleapp tool")
        return elapsed

    ops: dict[str, tuple[dict[str, Any], Callable[[], float]]] = {
        "HTTP ping (reference)": (_FLAT, ping),
        "HTTP tools/list flat, first page": (_FLAT, flat_first),
        ALL_PAGES: (_FLAT, flat_all),
        "HTTP tools/list dispatcher": (_DISPATCHER, dispatcher),
        "`jsonrpc.handle` flat, first page": (_FLAT, lambda: handle(100)),
        "`jsonrpc.handle` dispatcher": (_DISPATCHER, lambda: handle(1)),
        "`jsonrpc.handle` flat, first page, FILTER_TOOLS_BY_PERMISSION off": (
            {**_FLAT, **_UNFILTERED},
            lambda: handle(100),
        ),
        "`jsonrpc.handle` dispatcher, FILTER_TOOLS_BY_PERMISSION off": (
            {**_DISPATCHER, **_UNFILTERED},
            lambda: handle(1),
        ),
    }
    samples: dict[str, list[float]] = {name: [] for name in ops}
    samples[EACH_PAGE] = []
    names = list(ops)
    for round_ in range(warmup + requests):
        shift = round_ % len(names)
        for name in names[shift:] + names[:shift]:
            options, op = ops[name]
            _set_layout(**options)
            pages.clear()
            elapsed = op()
            if round_ >= warmup:
                samples[name].append(elapsed * 1000)
                samples[EACH_PAGE].extend(page * 1000 for page in pages)
    return {"samples": samples, "tools": expected}


def _sizes() -> dict[str, Any]:
    from frisian_mcp.contrib.testing import MCPTestClient
    from frisian_mcp.registry import reset_registry

    result: dict[str, Any] = {}
    for label, options in (
        ("flat", {"TOOL_LAYOUT": "flat"}),
        ("dispatcher_app", {"TOOL_LAYOUT": "dispatcher"}),
        (
            "dispatcher_path",
            {"TOOL_LAYOUT": "dispatcher", "DISPATCHER_GROUP_BY": "path"},
        ),
    ):
        _set_layout(**options)
        reset_registry()
        client = MCPTestClient(protocol_version=PROTOCOL_VERSION)
        client.initialize()
        seconds, tools, first, size = _list_all(client)
        result[label] = {
            "tools": tools,
            "pages": len(seconds),
            "first_page_bytes": first,
            "bytes": size,
        }
        if label == "flat":
            definitions = client.list_tools()
            parts = {"inputSchema": 0, "outputSchema": 0}
            for tool in definitions:
                for key in parts:
                    parts[key] += len(
                        json.dumps(tool.get(key, {}), separators=(",", ":"))
                    )
            result[label].update(parts)
    return result


def _profile() -> dict[str, Any]:
    """cProfile of a cold flat build, then of warm ``tools/list`` calls."""
    from django.contrib.auth.models import AnonymousUser
    from django.test import RequestFactory

    from frisian_mcp import jsonrpc
    from frisian_mcp.registry import get_registry
    from frisian_mcp.types import CallContext

    importlib.import_module("tests.urls_scale")
    _set_layout(TOOL_LAYOUT="flat")
    profiler = cProfile.Profile()
    profiler.enable()
    get_registry().definitions()
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    counts: dict[str, dict[str, Any]] = {}
    for (filename, _, function), row in stats.stats.items():  # type: ignore[attr-defined]
        path = Path(filename)
        key = f"{path.parent.name}/{path.name}:{function}"
        if key in _COUNTED:
            seen = counts.setdefault(key, {"calls": 0, "cumulative_s": 0.0})
            seen["calls"] += row[1]
            seen["cumulative_s"] = round(seen["cumulative_s"] + row[3], 3)
    stats.strip_dirs().sort_stats("cumulative").print_stats(35)
    stats.sort_stats("tottime").print_stats(15)

    # Warm: the registry is built; profile tools/list as the endpoint runs it.
    http_request = RequestFactory().post("/mcp")
    warm: dict[str, str] = {}
    for label, options in (("flat, first page", _FLAT), ("dispatcher", _DISPATCHER)):
        _set_layout(**options)
        profiler = cProfile.Profile()
        for _ in range(_WARM_PROFILE_CALLS):
            context = CallContext(request=http_request, user=AnonymousUser())
            profiler.enable()
            jsonrpc.handle(
                _message("tools/list"), context, header_version=PROTOCOL_VERSION
            )
            profiler.disable()
        text = io.StringIO()
        pstats.Stats(profiler, stream=text).strip_dirs().sort_stats(
            "cumulative"
        ).print_stats(18)
        warm[label] = text.getvalue()
    return {"text": out.getvalue(), "counts": counts, "warm": warm}


_WARM_PROFILE_CALLS = 20


#: Functions whose call counts show what is built once and what per tool.
_COUNTED = frozenset(
    {
        "schema/builder.py:build",
        "schema/builder.py:make_view",
        "schema/builder.py:_body",
        "schema/builder.py:_map_serializer",
        "schema/builder.py:_record",
        "schema/builder.py:_description",
        "drf_spectacular/openapi.py:resolve_serializer",
        "drf_spectacular/openapi.py:_get_parameters",
        "drf_spectacular/openapi.py:_resolve_path_parameters",
        "drf_spectacular/openapi.py:_get_filter_parameters",
        "drf_spectacular/openapi.py:_map_model_field",
        "drf_spectacular/openapi.py:_get_serializer",
        "drf_spectacular/plumbing.py:build_mock_request",
        "contrib/django_filters.py:get_schema_operation_parameters",
        "rest_framework/serializers.py:get_fields",
    }
)


def worker(kind: str, requests: int, warmup: int) -> None:
    """Run one measurement in this (fresh) process; print its JSON result."""
    setup = _setup()
    if kind in COLD_KINDS:
        result = _cold(kind)
    elif kind == "warm":
        result = _warm(requests, warmup)
    elif kind == "sizes":
        result = _sizes()
    elif kind == "profile":
        result = _profile()
    else:
        raise BenchError(f"unknown measurement {kind!r}")
    result["setup"] = setup
    print(_RESULT + json.dumps(result))


# -- the driver ------------------------------------------------------------------


def run(kind: str, *, viewsets: int | None = None, **options: Any) -> dict[str, Any]:
    """Run ``kind`` in a fresh interpreter and return its result."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    if viewsets is not None:
        env["FRISIAN_SCALE_VIEWSETS"] = str(viewsets)
    command = [sys.executable, str(Path(__file__).resolve()), "--worker", kind]
    for key, value in options.items():
        command += [f"--{key}", str(value)]
    process = subprocess.run(
        command, cwd=ROOT, env=env, capture_output=True, text=True, check=False
    )
    lines = [line for line in process.stdout.splitlines() if line.startswith(_RESULT)]
    if process.returncode != 0 or not lines:
        raise BenchError(
            f"{kind} failed ({process.returncode}):\n{process.stderr[-3000:]}"
        )
    result: dict[str, Any] = json.loads(lines[-1][len(_RESULT) :])
    return result


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:,.0f}"


def cold_markdown(runs: dict[str, list[dict[str, Any]]]) -> str:
    """The cold table: medians, and ratios to spectacular per repeat."""
    baseline = [r["seconds"] for r in runs["spectacular"]]
    lines = [
        "| Cold, fresh process | n | median ms | min-max ms | / spectacular "
        "(ratio of medians) | per-repeat ratios | URLconf import ms | max RSS MB |",
        "|---|---:|---:|---:|---:|---|---:|---:|",
    ]
    labels = {
        "discovery": "(a) frisian discovery: `from_settings()`",
        "first_page": "(a') frisian first flat page: `from_settings()` + `page(0, 100)`",
        "flat": "(b) frisian flat: `from_settings()` + `definitions()`",
        "dispatcher": "(c) frisian dispatcher: `from_settings()` + `definitions()`",
        "spectacular": "(d) drf-spectacular `get_schema()` (baseline)",
    }
    for kind in COLD_KINDS:
        seconds = [r["seconds"] for r in runs[kind]]
        median = statistics.median(seconds)
        ratio = median / statistics.median(baseline)
        per_repeat = ", ".join(
            f"{s / b:.3f}" for s, b in zip(seconds, baseline, strict=True)
        )
        lines.append(
            f"| {labels[kind]} | {len(seconds)} | {_ms(median)} | "
            f"{_ms(min(seconds))}-{_ms(max(seconds))} | **{ratio:.3f}x** | "
            f"{per_repeat} | {_ms(statistics.median(r['urlconf'] for r in runs[kind]))} | "
            f"{statistics.median(r['max_rss_mb'] for r in runs[kind]):.0f} |"
        )
    flat = runs["flat"]
    lines += [
        "",
        f"Tools: {flat[0]['tools']:,}; spectacular operations: "
        f"{runs['spectacular'][0]['operations']:,} (document "
        f"{runs['spectacular'][0]['bytes']:,} bytes). Within (b), discovery took "
        f"{_ms(statistics.median(r['discovery'] for r in flat))} ms (median); "
        f"`django.setup()` and shared imports (untimed) "
        f"{_ms(statistics.median(r['setup'] for r in flat))} ms.",
    ]
    return "\n".join(lines)


def _percentile(ordered: list[float], fraction: float) -> float:
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def warm_markdown(warm: dict[str, Any]) -> str:
    """The warm table: median and p90 per request kind."""
    lines = [
        f"| Warm, server-side ({warm['tools']:,} tools) | n | median ms | p90 ms | "
        f"goal < {WARM_GOAL_MS:.0f} ms per page |",
        "|---|---:|---:|---:|---|",
    ]
    names = [n for n in warm["samples"] if n != EACH_PAGE]
    names.insert(names.index(ALL_PAGES) + 1, EACH_PAGE)
    for name in names:
        ordered = sorted(warm["samples"][name])
        median = statistics.median(ordered)
        if "ping" in name:
            verdict = "(transport floor)"
        elif name == ALL_PAGES:
            verdict = "(not one page)"
        else:
            verdict = "met" if median < WARM_GOAL_MS else "**missed**"
        lines.append(
            f"| {name} | {len(ordered)} | {median:.2f} | "
            f"{_percentile(ordered, 0.9):.2f} | {verdict} |"
        )
    return "\n".join(lines)


def sizes_markdown(sizes: dict[int, dict[str, Any]]) -> str:
    """The size table: tools/list bytes against the number of viewsets."""
    lines = [
        "| Viewsets | flat tools | flat pages | flat bytes, first page / all pages "
        "| of which inputSchema / outputSchema | dispatcher (app) tools / bytes | "
        "dispatcher (path) tools / bytes |",
        "|---:|---:|---:|---:|---|---:|---:|",
    ]
    for count, size in sorted(sizes.items()):
        flat, app, by_path = (
            size["flat"],
            size["dispatcher_app"],
            size["dispatcher_path"],
        )
        lines.append(
            f"| {count} | {flat['tools']:,} | {flat['pages']} | "
            f"{flat['first_page_bytes']:,} / {flat['bytes']:,} | "
            f"{flat['inputSchema'] / flat['bytes']:.0%} / "
            f"{flat['outputSchema'] / flat['bytes']:.0%} | "
            f"{app['tools']} / {app['bytes']:,} | {by_path['tools']} / {by_path['bytes']:,} |"
        )
    return "\n".join(lines)


def goals_markdown(
    runs: dict[str, list[dict[str, Any]]],
    warm: dict[str, Any] | None,
    sizes: dict[int, dict[str, Any]],
) -> str:
    """One row per goal of issue #4: the measured value and the verdict."""

    def verdict(met: bool) -> str:
        return "met" if met else "**missed**"

    def cold(kind: str) -> str:
        if not runs[kind]:
            return "not measured (--repeat 0) | -"
        baseline = statistics.median(r["seconds"] for r in runs["spectacular"])
        ratio = statistics.median(r["seconds"] for r in runs[kind]) / baseline
        return f"{ratio:.3f}x | {verdict(ratio <= COLD_GOAL)}"

    def warm_ms(name: str) -> str:
        if warm is None:
            return "not measured (--requests 0) | -"
        median = statistics.median(warm["samples"][name])
        return f"{median:.1f} ms median | {verdict(median < WARM_GOAL_MS)}"

    def growth(layout: str, above: int) -> str:
        # Only the count in "It has N resources" may differ: a few bytes.
        by_count = {
            count: size[layout]["bytes"]
            for count, size in sorted(sizes.items())
            if count > above
        }
        if len(by_count) < 2:
            return "not measured (give --sizes two counts) | -"
        shown = ", ".join(f"{c}: {b:,}" for c, b in by_count.items())
        steady = max(by_count.values()) - min(by_count.values()) <= 16
        return f"{shown} bytes | {verdict(steady)}"

    rows = [
        "| Goal (issue #4) | measured | verdict |",
        "|---|---|---|",
        f"| cold discovery <= {COLD_GOAL}x spectacular's document: the registry, "
        f"schemas lazy (a) | {cold('discovery')} |",
        "| the same with the first flat `tools/list` page built, what a fresh "
        f"process's first `tools/list` costs (a') | {cold('first_page')} |",
        "| the same with every tool schema built, a full flat listing "
        f"(b) | {cold('flat')} |",
        f"| warm `tools/list` < {WARM_GOAL_MS:.0f} ms server-side, flat, each page "
        f"| {warm_ms(EACH_PAGE)} |",
        f"| the same, dispatcher list | {warm_ms('HTTP tools/list dispatcher')} |",
        "| dispatcher `tools/list` size independent of the number of viewsets, "
        f"grouped by app (one group; counts above 50) | "
        f"{growth('dispatcher_app', 50)} |",
        "| the same, grouped by path (10 groups of up to 30 viewsets) | "
        f"{growth('dispatcher_path', 0)} |",
    ]
    return "\n".join(rows)


def profile_markdown(profile: dict[str, Any]) -> str:
    """Call counts of the functions that show schema reuse."""
    lines = ["| Function | calls | cumulative s |", "|---|---:|---:|"]
    for name, row in sorted(
        profile["counts"].items(), key=lambda i: -i[1]["cumulative_s"]
    ):
        lines.append(f"| `{name}` | {row['calls']:,} | {row['cumulative_s']:.3f} |")
    return "\n".join(lines)


def parse_args(argv: list[str]) -> argparse.Namespace:
    """Command-line options."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--repeat", type=int, default=3, help="cold runs per kind (0: skip)"
    )
    parser.add_argument(
        "--requests", type=int, default=30, help="warm rounds (0: skip)"
    )
    parser.add_argument(
        "--warmup", type=int, default=3, help="warm rounds not measured"
    )
    parser.add_argument(
        "--sizes",
        default="50,100,200,300",
        help='viewset counts for the size table ("": skip)',
    )
    parser.add_argument("--profile", action="store_true", help="profile a flat build")
    parser.add_argument("--json", type=Path, help="also write every result as JSON")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def main(argv: list[str]) -> int:
    """Run every measurement and print the Markdown report."""
    args = parse_args(argv)
    if args.worker:
        worker(args.worker, args.requests, args.warmup)
        return 0
    started = dt.datetime.now(dt.UTC)
    runs: dict[str, list[dict[str, Any]]] = {kind: [] for kind in COLD_KINDS}
    for repeat in range(args.repeat):
        shift = repeat % len(COLD_KINDS)
        order = COLD_KINDS[shift:] + COLD_KINDS[:shift]
        for kind in order:
            progress(f"cold {repeat + 1}/{args.repeat}: {kind}")
            runs[kind].append(run(kind))
    warm = None
    if args.requests:
        progress("warm tools/list")
        warm = run("warm", requests=args.requests, warmup=args.warmup)
    sizes = {}
    for count in (int(c) for c in args.sizes.split(",") if c.strip()):
        progress(f"sizes: {count} viewsets")
        sizes[count] = run("sizes", viewsets=count)
    profile = run("profile") if args.profile else None

    import django
    import drf_spectacular
    import rest_framework

    print(
        f"**Machine:** {machine()} (shared VM); "
        f"Python {platform.python_version()}, Django {django.get_version()}, "
        f"DRF {rest_framework.VERSION}, drf-spectacular {drf_spectacular.__version__}. "
        f"**Date:** {started:%Y-%m-%d %H:%M} UTC.\n"
    )
    print(goals_markdown(runs, warm, sizes) + "\n")
    if args.repeat:
        print(cold_markdown(runs) + "\n")
    if warm is not None:
        print(warm_markdown(warm) + "\n")
    if sizes:
        print(sizes_markdown(sizes) + "\n")
    if profile is not None:
        print(profile_markdown(profile) + "\n")
        print("Cold flat build:\n\n```\n" + profile["text"].strip() + "\n```\n")
        for label, text in profile["warm"].items():
            print(
                f"Warm `jsonrpc.handle` tools/list, {label}, "
                f"{_WARM_PROFILE_CALLS} calls:\n\n```\n{text.strip()}\n```\n"
            )
    if args.json:
        args.json.write_text(
            json.dumps(
                {"cold": runs, "warm": warm, "sizes": sizes, "profile": profile},
                indent=1,
            )
        )
    return 0


if __name__ == "__main__":
    run_script(main, "bench_discovery")
