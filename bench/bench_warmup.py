"""A fresh worker's first requests, warmed up by itself or not at all.

Issue 25 item 9: whatever the host does to deploy, a worker's first MCP
request costs no more than its tenth plus the one-time schema build the
fleet cache saves. A server process warms up by itself (``WARM_UP``, ADR
0032); this script serves the scale app (``tests.urls_scale``,
``FRISIAN_SCALE_VIEWSETS`` viewsets, the host's own permission class) under
``tests.settings_warmup`` with one worker of gunicorn (with and without
``--preload``) and of uvicorn, ``WARM_UP`` on and off. The fleet store's
Redis holds every schema before the runs (a prefix of the run's own), and
the caller's visible set (it listed before, on another worker), so no run
builds a schema nor probes: what is left is what the first request pays
besides the schema build. Each run starts a fresh server, waits for its worker to boot
and ``--settle`` seconds more (a deploy's first client rarely comes sooner),
then sends ``initialize``, ``tools/list`` and a ``tools/call`` (``help``)
ten times; the first and the tenth of each are reported, wall ms at the
client, medians over ``--repeat`` runs.

``--base REV`` also times ``manage.py check`` and ``migrate`` in fresh
processes with this tree and with ``REV``'s (exported with ``git
archive``), interleaved: a command must not pay for the warm-up.

Usage: ``.venv/bin/python bench/bench_warmup.py [--viewsets 166] [--repeat 3]
[--settle 2] [--base 311709a]``. Needs Redis on 127.0.0.1:6379.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
from _common import ROOT, BenchError, free_port, progress, run_script, stop_process

HEADERS = {
    "Content-Type": "application/json",
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": "2025-11-25",
}
INIT = {
    "protocolVersion": "2025-11-25",
    "capabilities": {},
    "clientInfo": {"name": "bench", "version": "1"},
}
HELP = {"name": "group0__thing000__list", "arguments": {"help": True}}
SERVERS = {
    "gunicorn": ["-m", "gunicorn", "django.core.wsgi:get_wsgi_application()"],
    "gunicorn --preload": [
        "-m",
        "gunicorn",
        "--preload",
        "django.core.wsgi:get_wsgi_application()",
    ],
    "uvicorn": [
        "-m",
        "uvicorn",
        "--factory",
        "--lifespan=off",
        "django.core.asgi:get_asgi_application",
    ],
}
#: The log line that says the worker has loaded the application.
BOOTED = {"gunicorn": "Booting worker", "uvicorn": "Uvicorn running on"}


def _env(viewsets: int, prefix: str, warm: bool) -> dict[str, str]:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tests.settings_warmup",
        "FRISIAN_SCALE_VIEWSETS": str(viewsets),
        "FRISIAN_SCALE_PERMISSION": "custom",
        "FRISIAN_FLEET_PREFIX": prefix,
        "FRISIAN_WARM_UP": "1" if warm else "0",
        "PYTHONPATH": str(ROOT),
    }
    env.pop("DATABASE_URL", None)
    return env


def _prime(env: dict[str, str]) -> int:
    """Build every schema into the fleet's Redis, as a first worker would,
    and list once as the bench's caller (its visible set, kept there too)."""
    script = (
        "import django; django.setup()\n"
        "from frisian_mcp.registry import get_registry\n"
        "from frisian_mcp.contrib.testing import MCPTestClient\n"
        "registry = get_registry()\n"
        "for tool in registry: tool.schema\n"
        "registry.share_schemas()\n"
        "mcp = MCPTestClient(); mcp.initialize(); mcp.list_tools()\n"
        "print(len(registry))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    if done.returncode:
        raise BenchError(f"priming failed:\n{done.stderr[-2000:]}")
    return int(done.stdout.split()[-1])


@contextlib.contextmanager
def _server(kind: str, env: dict[str, str], log: Path) -> Iterator[str]:
    port = free_port()
    args = [sys.executable, *SERVERS[kind]]
    if kind.startswith("gunicorn"):
        args += ["--workers=1", f"--bind=127.0.0.1:{port}", "--log-level=info"]
    else:
        args += ["--host=127.0.0.1", f"--port={port}", "--workers=1"]
    with log.open("w") as out:
        process = subprocess.Popen(args, cwd=ROOT, env=env, stdout=out, stderr=out)
    try:
        booted = BOOTED[kind.split()[0]]
        deadline = time.monotonic() + 120
        while booted not in log.read_text():
            if process.poll() is not None or time.monotonic() > deadline:
                raise BenchError(f"{kind} did not start:\n{log.read_text()[-2000:]}")
            time.sleep(0.02)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        stop_process(process)


def _run(kind: str, env: dict[str, str], settle: float) -> dict[str, list[float]]:
    """One fresh server: ms of each request, ten rounds of three (or ten
    ``GET /api/``, the REST reference, with ``FRISIAN_REST`` in ``env``)."""
    found: dict[str, list[float]] = {"initialize": [], "tools/list": [], "help": []}
    with (
        tempfile.TemporaryDirectory() as tmp,
        _server(kind, env, Path(tmp, "log")) as url,
    ):
        time.sleep(settle)
        with httpx.Client(timeout=120) as http:
            if "FRISIAN_REST" in env:
                found = {"rest": []}
                for _ in range(10):
                    start = time.perf_counter()
                    answer = http.get(url.replace("/mcp", "/api/"))
                    found["rest"].append((time.perf_counter() - start) * 1000)
                    if answer.status_code != 200:
                        raise BenchError(f"{kind} GET /api/: {answer.status_code}")
                return found
            for _ in range(10):
                for name, method, params in (
                    ("initialize", "initialize", INIT),
                    ("tools/list", "tools/list", {}),
                    ("help", "tools/call", HELP),
                ):
                    body = {
                        "jsonrpc": "2.0",
                        "id": 1,
                        "method": method,
                        "params": params,
                    }
                    start = time.perf_counter()
                    answer = http.post(url, json=body, headers=HEADERS)
                    found[name].append((time.perf_counter() - start) * 1000)
                    if answer.status_code != 200 or "result" not in answer.json():
                        raise BenchError(f"{kind} {method}: {answer.text[:300]}")
    return found


def _commands(base: str, repeat: int, env: dict[str, str]) -> list[str]:
    """``manage.py check`` and ``migrate`` with this tree and ``base``'s."""
    lines = []
    with tempfile.TemporaryDirectory() as tmp:
        old = Path(tmp, "base")
        old.mkdir()
        archive = subprocess.run(
            ["git", "archive", base], cwd=ROOT, capture_output=True, check=True
        )
        subprocess.run(["tar", "-x", "-C", str(old)], input=archive.stdout, check=True)
        trees = {"this tree": ROOT, f"base {base}": old}
        for command in (["check"], ["migrate", "--no-input", "-v", "0"]):
            times: dict[str, list[float]] = {name: [] for name in trees}
            for index in range(repeat):
                for name, tree in trees.items():
                    database = Path(tmp, f"{uuid.uuid4().hex}.sqlite3")
                    run_env = {
                        **env,
                        # A settings module both trees have.
                        "DJANGO_SETTINGS_MODULE": "tests.settings_scale",
                        "PYTHONPATH": str(tree),
                        "DATABASE_URL": f"sqlite:///{database}",
                    }
                    start = time.perf_counter()
                    done = subprocess.run(
                        [sys.executable, "manage.py", *command],
                        cwd=tree,
                        env=run_env,
                        capture_output=True,
                        text=True,
                    )
                    times[name].append(time.perf_counter() - start)
                    if done.returncode:
                        raise BenchError(f"{name}: {done.stderr[-2000:]}")
                progress(f"manage.py {command[0]}: run {index + 1}")
            this, before = (statistics.median(v) for v in times.values())
            lines.append(
                f"| `manage.py {command[0]}` | {this:.2f} s | {before:.2f} s "
                f"| {this / before:.2f}x |"
            )
    return lines


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--viewsets", type=int, default=166)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--settle", type=float, default=2.0)
    parser.add_argument("--base", help="a revision to time manage.py against")
    parser.add_argument("--servers", default=",".join(SERVERS))
    parser.add_argument("--commands-only", action="store_true")
    options = parser.parse_args(argv)
    prefix = f"frisian-warmup-{uuid.uuid4().hex[:8]}"
    if options.commands_only:
        options.servers = ""
    progress("priming the fleet's Redis with every schema")
    tools = _prime(_env(options.viewsets, prefix, warm=True))
    print(
        f"{tools} tools ({options.viewsets} viewsets), schemas adopted from Redis; "
        f"first request {options.settle:g} s after the worker booted; "
        f"ms, median of {options.repeat} runs, first / tenth\n"
    )
    print("| server | warm-up | initialize | tools/list | tools/call (help) |")
    print("|---|---|---:|---:|---:|")
    for kind in filter(None, options.servers.split(",")):
        for warm in (True, False):
            runs = []
            for index in range(options.repeat):
                progress(f"{kind}, warm-up {'on' if warm else 'off'}: run {index + 1}")
                env = _env(options.viewsets, prefix, warm)
                runs.append(_run(kind, env, options.settle))
            cells = []
            for name in ("initialize", "tools/list", "help"):
                first = statistics.median(r[name][0] for r in runs)
                tenth = statistics.median(r[name][9] for r in runs)
                cells.append(f"{first:.1f} / {tenth:.1f}")
            label = "by itself" if warm else "off"
            print(f"| {kind} | {label} | {' | '.join(cells)} |")
        env = {**_env(options.viewsets, prefix, True), "FRISIAN_REST": "1"}
        rest = [_run(kind, env, options.settle) for _ in range(options.repeat)]
        first = statistics.median(r["rest"][0] for r in rest)
        tenth = statistics.median(r["rest"][9] for r in rest)
        print(f"| {kind} | REST `GET /api/` | {first:.1f} / {tenth:.1f} | | |")
    if options.base:
        print("\n| command | this tree | before | ratio |\n|---|---:|---:|---:|")
        env = _env(options.viewsets, prefix, warm=True)
        for line in _commands(options.base, options.repeat, env):
            print(line)
    return 0


if __name__ == "__main__":
    run_script(main, "bench_warmup")
