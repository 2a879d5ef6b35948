"""A 1 MB file up and down through a tool, against REST on the same server.

Run from the repository root::

    python3 dev.py bench bench/bench_files.py [--runs N] [--rounds N]
        [--block N] [--warmup N] [--size BYTES] [--json PATH]

What it does (issue 19, goal MCP <= 1.5x REST):

1. Creates a temporary SQLite file, migrates and seeds it (``migrate``,
   ``seed_demo``), and a settings module: the demo's as shipped (the files
   extra and its hook on, ``FILE_MAX_BYTES`` 4 MiB, and ``MAX_REQUEST_BYTES``
   unset, so it follows the cap: ADR 0037). Uploads go to a temporary
   ``MEDIA_ROOT``.
2. Per run (``--runs``, 3 by default), a fresh gunicorn (1 sync worker) and
   ``--warmup`` unmeasured rounds, then ``--rounds`` rounds over one
   keep-alive ``httpx.Client``. A round sends, for each kind, a block of
   ``--block`` MCP requests and as many REST requests, the block order
   alternating from round to round:

   * **upload**: ``tools/call attachments__create`` with the file in a
     base64 argument vs ``POST /api/attachments/`` as ``multipart/form-data``
     (as a REST client sends a file);
   * **download**: ``tools/call attachments__download`` (an embedded
     resource, base64 ``blob``) vs ``GET /api/attachments/<id>/download/``
     (the raw bytes), of the rows uploaded.

   Every response is checked: status, ``isError``, and for a download the
   very bytes uploaded and the name.
3. Reports per kind the MCP / REST ratio of the run's medians, min / median
   / max over the runs, as Markdown for docs/performance.md.
"""

from __future__ import annotations

import argparse
import base64
import datetime as dt
import os
import platform
import shutil
import statistics
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
from _common import (
    MCP_HEADERS,
    MIGRATE,
    ROOT,
    SEED,
    BenchError,
    auth_headers,
    call_body,
    expect_json,
    gunicorn,
    machine,
    manage,
    progress,
    raise_on_sigterm,
    run_script,
    show,
    temporary_database,
    write_json,
)

KINDS = ("upload", "download")
NAME = "bench.bin"
SETTINGS = "from demo_project.settings import *  # noqa: F403\n"


@contextmanager
def server(url: str, work: Path) -> Iterator[str]:
    """A fresh gunicorn on the bench settings; yields its base URL."""
    env = {"DJANGO_SETTINGS_MODULE": "files_settings"}
    env.update(PYTHONPATH=f"{work}:{ROOT}", DEMO_MEDIA_ROOT=str(work / "media"))
    with gunicorn(url, work, headers=auth_headers(), env=env) as served:
        yield served.base_url


class Client:
    """Sends and checks one run's requests over one keep-alive client.

    Bodies are encoded before the clock starts and responses decoded after
    it stops: the figures time the exchange with the server.
    """

    def __init__(self, http: httpx.Client, content: bytes) -> None:
        self.http, self.content = http, content
        contacts = expect_json(http.get("/api/contacts/"), 200, "REST contacts")
        contact = contacts["results"][0]["id"]
        arguments = {"contact": contact, "file": base64.b64encode(content).decode()}
        self.mcp_upload = call_body(
            "attachments__create", arguments | {"file_filename": NAME}
        )
        files = {"file": (NAME, content, "application/octet-stream")}
        form = httpx.Request("POST", "/", data={"contact": contact}, files=files)
        self.rest_upload, self.rest_type = form.read(), form.headers["Content-Type"]
        self.uploaded: list[int] = []

    def timed(
        self, method: str, url: str, body: bytes | None, kind: str
    ) -> tuple[httpx.Response, float]:
        headers = MCP_HEADERS if url == "/mcp" else {"Content-Type": kind}
        start = time.perf_counter()
        response = self.http.request(method, url, content=body, headers=headers)
        return response, time.perf_counter() - start

    def send(self, kind: str, side: str, number: int) -> float:
        """One checked request; its time in seconds."""
        if kind == "upload":
            if side == "mcp":
                response, seconds = self.timed("POST", "/mcp", self.mcp_upload, "")
                made = self.result(response, "attachments__create")["structuredContent"]
            else:
                response, seconds = self.timed(
                    "POST", "/api/attachments/", self.rest_upload, self.rest_type
                )
                made = expect_json(response, 201, "REST upload")
            self.uploaded.append(made["id"])
            return seconds
        pk = self.uploaded[number % len(self.uploaded)]
        if side == "mcp":
            body = call_body("attachments__download", {"id": pk})
            response, seconds = self.timed("POST", "/mcp", body, "")
            resource = self.result(response, "attachments__download")["content"][1][
                "resource"
            ]
            got, name = (
                base64.b64decode(resource["blob"]),
                resource["_meta"]["filename"],
            )
        else:
            response, seconds = self.timed(
                "GET", f"/api/attachments/{pk}/download/", None, ""
            )
            if response.status_code != 200:
                raise BenchError(f"REST download: {show(response)}")
            got, name = response.content, NAME
        if got != self.content or name != NAME:
            raise BenchError(f"{side} download of {pk}: not the file uploaded")
        return seconds

    def result(self, response: httpx.Response, name: str) -> dict[str, Any]:
        result = expect_json(response, 200, name).get("result")
        if not isinstance(result, dict) or result.get("isError") is not False:
            raise BenchError(f"tools/call {name} failed: {show(response)}")
        return result


def one_run(url: str, work: Path, args: argparse.Namespace) -> dict[str, list[float]]:
    """A fresh server's interleaved blocks: seconds per ``side:kind``."""
    samples: dict[str, list[float]] = {
        f"{s}:{k}": [] for s in ("mcp", "rest") for k in KINDS
    }
    content = os.urandom(args.size)
    with (
        server(url, work) as base,
        httpx.Client(base_url=base, headers=auth_headers(), timeout=60) as http,
    ):
        client = Client(http, content)
        for number in range(args.warmup + args.rounds):
            sides = ("mcp", "rest") if number % 2 == 0 else ("rest", "mcp")
            for kind in KINDS:
                for side in sides:
                    times = [
                        client.send(kind, side, number * args.block + i)
                        for i in range(args.block)
                    ]
                    if number >= args.warmup:
                        samples[f"{side}:{kind}"].extend(times)
    shutil.rmtree(work / "media", ignore_errors=True)
    return samples


def spread(values: list[float], digits: int = 2, suffix: str = "") -> str:
    """``min / median / max`` of ``values``."""
    low, mid, high = min(values), statistics.median(values), max(values)
    return f"{low:.{digits}f}{suffix} / **{mid:.{digits}f}{suffix}** / {high:.{digits}f}{suffix}"


def markdown(runs: list[dict[str, list[float]]], args: argparse.Namespace) -> str:
    lines = [
        f"Each figure: min / **median** / max over {len(runs)} runs (a fresh server each).",
        "",
        "| Request | MCP / REST | MCP median ms | REST median ms | n per run and side |",
        "|---|---:|---:|---:|---:|",
    ]
    for kind in KINDS:
        mcp = [statistics.median(r[f"mcp:{kind}"]) * 1e3 for r in runs]
        rest = [statistics.median(r[f"rest:{kind}"]) * 1e3 for r in runs]
        ratio = [m / r for m, r in zip(mcp, rest, strict=True)]
        lines.append(
            f"| {kind} ({args.size:,} bytes) | {spread(ratio, 3, 'x')} | {spread(mcp)} | "
            f"{spread(rest)} | {len(runs[0][f'mcp:{kind}'])} |"
        )
    return "\n".join(lines)


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="A file through MCP vs REST.")
    parser.add_argument("--runs", type=int, default=3, help="fresh servers")
    parser.add_argument(
        "--rounds", type=int, default=10, help="measured rounds per run"
    )
    parser.add_argument("--block", type=int, default=3, help="requests per block")
    parser.add_argument("--warmup", type=int, default=2, help="unmeasured rounds")
    parser.add_argument("--size", type=int, default=1_000_000, help="file bytes")
    parser.add_argument("--json", type=Path, metavar="PATH", help="write raw figures")
    args = parser.parse_args(argv)
    if args.runs < 1 or args.rounds < 1 or args.block < 1 or args.warmup < 0:
        parser.error("--runs, --rounds and --block must be positive")
    if not 0 < args.size <= 4_194_304:
        parser.error("--size must be 1 to 4,194,304 bytes (FILE_MAX_BYTES)")
    return args


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    raise_on_sigterm()
    started = dt.datetime.now(dt.UTC)
    with (
        temporary_database(None, prefix="frisian-files-") as database,
        tempfile.TemporaryDirectory(prefix="frisian-files-") as work_dir,
    ):
        work = Path(work_dir)
        (work / "files_settings.py").write_text(SETTINGS)
        progress(f"Preparing {database.label} ...")
        manage(database.url, MIGRATE, SEED)
        runs = []
        for number in range(args.runs):
            progress(f"Run {number + 1} of {args.runs}: a fresh gunicorn ...")
            runs.append(one_run(database.url, work, args))
    import django

    print(
        f"## Files through tools ({database.label})\n\n"
        f"{started.isoformat(timespec='seconds')}, {machine()}, Python "
        f"{platform.python_version()}, Django {django.__version__}; gunicorn 1 sync "
        f"worker; {args.rounds} rounds of blocks of {args.block} per kind and side "
        f"after {args.warmup} warm-up rounds; token auth as the seeded `demo` user.\n\n"
        f"{markdown(runs, args)}\n"
    )
    if args.json:
        samples = [
            {k: [round(t * 1e3, 3) for t in v] for k, v in r.items()} for r in runs
        ]
        write_json(
            args.json,
            {"args": vars(args) | {"json": str(args.json)}, "samples_ms": samples},
            "Raw figures",
        )
    return 0


if __name__ == "__main__":
    run_script(main, "bench_files")
