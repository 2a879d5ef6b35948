"""The MCP conformance suite against the demo: scenario -> pass or fail.

Run from the repository root::

    python3 dev.py bench bench/conformance.py [--profile 2025-11-25]
        [--profile 2026-07-28] [--url URL] [--database-url URL]
        [--json PATH] [--results DIR]

What it does:

1. Installs, once, the pinned suite (``SUITE``) and the Node.js it needs
   (``NODE``: the suite imports ``fs.globSync``, Node 22 and later; Debian's
   is 20) with npm into ``$XDG_CACHE_HOME/frisian_mcp/`` (``~/.cache``),
   never globally. It needs ``npm`` on the PATH for that.
2. Without ``--url``: migrates and seeds a temporary SQLite file (or the
   empty database ``--database-url`` names) and serves the demo with
   gunicorn on a free loopback port, with ``bench.conformance_settings``:
   the demo's settings plus the ``demo`` user's token on requests without
   credentials, since the suite cannot send a header.
   With ``--url``: tests that server as it is.
3. Runs the suite's server scenarios once per profile: ``--requirements
   2025-11-25`` (the handshake era, initialize first) and ``--requirements
   2026-07-28`` (stateless), each the scenarios that revision requires,
   frozen at its release, plus the ones it runs without scoring
   (extensions, pending, added after the release).
4. Prints a Markdown table, scenario by profile, and under it the failing
   checks of each scenario that did not pass, with the suite's message.

A scenario *fails* when one of its checks is a FAILURE; otherwise it is
*warn* when one is a WARNING (a SHOULD the server does not do), *pass* when
one succeeded, and *skip* when nothing was checked (a scenario about
sessions, against a stateless server). ``--json`` writes the same as JSON;
``--results`` keeps the suite's own ``checks.json`` files.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from _common import (
    MIGRATE,
    SEED,
    BenchError,
    auth_headers,
    gunicorn,
    manage,
    npm_install,
    progress,
    raise_on_sigterm,
    run_script,
    temporary_database,
    write_json,
)

SUITE_VERSION = "0.2.0-alpha.12"
#: The conformance suite, pinned: the first line of releases with the
#: 2026-07-28 requirement set.
SUITE = f"@modelcontextprotocol/conformance@{SUITE_VERSION}"
NODE_VERSION = "22.23.3"
#: Node.js from npm (a binary package per platform), for the suite only.
NODE = f"node@{NODE_VERSION}"
PROFILES = ("2025-11-25", "2026-07-28")
#: Where the suite and its Node.js are installed.
CACHE = (
    Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    / "frisian_mcp"
    / f"conformance-{SUITE_VERSION}-node-{NODE_VERSION}"
)
#: Settings that serve the demo to a client without credentials.
SETTINGS = "bench.conformance_settings"
#: A scenario's result directory: ``server-<scenario>-<ISO timestamp>``.
_RESULT_DIR = re.compile(r"server-(?P<name>.+)-\d{4}-\d\d-\d\dT[\d-]+Z")
#: A line of the suite's "Not scored for <revision>" list.
_NOT_SCORED = re.compile(r"^\s+[✓✗] (?P<name>\S+) \((?P<why>[^)]+)\)$")
_RUNNING = re.compile(r"^=== Running scenario: (?P<name>\S+) ===$")
STATUSES = ("fail", "warn", "pass", "skip")


@dataclass
class Outcome:
    """One scenario in one profile: its status and what did not pass."""

    status: str
    #: Why it is not scored for the profile (extension, pending, ...), if so.
    not_scored: str = ""
    #: ``check id: message`` of each FAILURE (or, if none, WARNING).
    reasons: list[str] = field(default_factory=list)


def install(npm: str) -> list[str]:
    """The command that runs the suite; installed into ``CACHE`` first
    (:func:`npm_install`)."""
    node = CACHE / "node_modules" / ".bin" / "node"
    package = CACHE / "node_modules" / "@modelcontextprotocol" / "conformance"
    if not node.exists() or not package.exists():
        progress(f"Installing {SUITE} and {NODE} into {CACHE} ...")
        npm_install(npm, (NODE, SUITE), CACHE, timeout=600)
    bin_path = json.loads((package / "package.json").read_text())["bin"]
    script = bin_path if isinstance(bin_path, str) else bin_path["conformance"]
    return [str(node.resolve()), str(package / script)]


def classify(checks: list[dict[str, Any]]) -> Outcome:
    """The outcome of a scenario from its ``checks.json``."""
    by_status: dict[str, list[str]] = {}
    for check in checks:
        message = " ".join(str(check.get("errorMessage") or "").split())
        line = f"{check['id']}: {message[:300]}" if message else str(check["id"])
        by_status.setdefault(str(check["status"]), []).append(line)
    if "FAILURE" in by_status:
        return Outcome("fail", reasons=by_status["FAILURE"])
    if "WARNING" in by_status:
        return Outcome("warn", reasons=by_status["WARNING"])
    return Outcome("pass" if "SUCCESS" in by_status else "skip")


def run_profile(
    suite: list[str], url: str, profile: str, out: Path, timeout_ms: int
) -> dict[str, Outcome]:
    """Run the server scenarios ``profile`` requires against ``url``.

    Returns the outcome of each scenario, in the order the suite ran them.
    The suite exits non-zero when a scenario fails: its results decide,
    not its exit code; no result at all is :class:`BenchError`.
    """
    out.mkdir(parents=True, exist_ok=True)
    command = [
        *suite,
        *("server", "--url", url, "--requirements", profile),
        *("--output-dir", str(out), "--timeout", str(timeout_ms)),
    ]
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=900, check=False
    )
    (out / "suite-output.txt").write_text(done.stdout + done.stderr)
    order = [m["name"] for m in map(_RUNNING.match, done.stdout.splitlines()) if m]
    not_scored = {
        m["name"]: m["why"]
        for m in map(_NOT_SCORED.match, done.stdout.splitlines())
        if m
    }
    found: dict[str, Outcome] = {}
    for directory in sorted(out.iterdir()):
        matched = _RESULT_DIR.fullmatch(directory.name)
        if matched is None or not (directory / "checks.json").exists():
            continue
        outcome = classify(json.loads((directory / "checks.json").read_text()))
        outcome.not_scored = not_scored.get(matched["name"], "")
        found[matched["name"]] = outcome
    if not found:
        tail = (done.stdout + done.stderr)[-3000:]
        raise BenchError(f"the suite ran no scenario (exit {done.returncode}):\n{tail}")
    rank = {name: index for index, name in enumerate(order)}
    return dict(sorted(found.items(), key=lambda item: rank.get(item[0], len(rank))))


def table(results: dict[str, dict[str, Outcome]]) -> str:
    """A Markdown table, scenario by profile, then the reasons of failures."""
    profiles = list(results)
    names = list(dict.fromkeys(n for outcomes in results.values() for n in outcomes))
    lines = [
        "| scenario | " + " | ".join(profiles) + " |",
        "|---|" + "---|" * len(profiles),
    ]
    for name in names:
        cells = []
        for profile in profiles:
            outcome = results[profile].get(name)
            cell = "—" if outcome is None else outcome.status
            if outcome is not None and outcome.not_scored:
                cell += f" (not scored: {outcome.not_scored})"
            cells.append(cell)
        lines.append(f"| `{name}` | " + " | ".join(cells) + " |")
    lines.append("")
    for status in STATUSES:
        counts = (
            f"{profile} {sum(o.status == status for o in results[profile].values())}"
            for profile in profiles
        )
        lines.append(f"{status}: " + ", ".join(counts))
    lines.append("")
    for profile in profiles:
        for name, outcome in results[profile].items():
            if outcome.status in ("fail", "warn"):
                lines.append(f"- {profile} `{name}` ({outcome.status}):")
                lines.extend(f"    - {reason}" for reason in outcome.reasons)
    return "\n".join(lines)


def parse_args(argv: list[str]) -> argparse.Namespace:
    """The command line; see the module docstring."""
    parser = argparse.ArgumentParser(description="The MCP conformance suite.")
    parser.add_argument(
        "--profile",
        action="append",
        choices=PROFILES,
        help="a requirement set to run (repeatable; default: all of them)",
    )
    parser.add_argument("--url", help="test this MCP endpoint instead of the demo")
    parser.add_argument("--database-url", help="an empty database to serve the demo on")
    parser.add_argument("--json", type=Path, help="write the results as JSON here")
    parser.add_argument("--results", type=Path, help="keep the suite's files here")
    parser.add_argument(
        "--timeout-ms", type=int, default=30000, help="per scenario (default 30000)"
    )
    return parser.parse_args(argv)


def run_all(
    suite: list[str], url: str, args: argparse.Namespace, out: Path
) -> dict[str, dict[str, Outcome]]:
    """Every chosen profile against ``url``."""
    results = {}
    for profile in args.profile or PROFILES:
        progress(f"Running the {profile} scenarios against {url} ...")
        results[profile] = run_profile(
            suite, url, profile, out / profile, args.timeout_ms
        )
    return results


def main(argv: list[str]) -> int:
    """Install the suite, serve the demo (unless ``--url``), run, report."""
    args = parse_args(argv)
    raise_on_sigterm()
    npm = shutil.which("npm")
    if npm is None:
        raise BenchError("npm is needed to install the conformance suite.")
    suite = install(npm)
    work = Path(tempfile.mkdtemp(prefix="frisian-conformance-"))
    try:
        out = args.results or work / "results"
        if args.url:
            results = run_all(suite, args.url, args, out)
        else:
            with temporary_database(args.database_url) as database:
                manage(database.url, MIGRATE, SEED)
                env = {"DJANGO_SETTINGS_MODULE": SETTINGS}
                with gunicorn(
                    database.url, work, headers=auth_headers(), workers=2, env=env
                ) as server:
                    results = run_all(suite, f"{server.base_url}/mcp", args, out)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{SUITE} (Node.js {NODE_VERSION})\n")
    print(table(results))
    if args.json:
        data = {
            "suite": SUITE,
            "node": NODE_VERSION,
            "profiles": {
                profile: {name: asdict(o) for name, o in outcomes.items()}
                for profile, outcomes in results.items()
            },
        }
        write_json(args.json, data, "Results")
    return 0


if __name__ == "__main__":
    run_script(main, "conformance")
