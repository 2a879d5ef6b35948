"""The README's times, measured as a newcomer meets them (issue 26 item 4).

Clones this checkout into a temporary directory and, there, times:

* the first ``python3 dev.py demo``, from the command to the first answer of
  its ``/mcp`` endpoint (creating ``.venv``, installing, migrating, seeding);
* a second start of the demo, with everything installed;
* the first ``python3 dev.py test``: adding the test tools, then the fast
  tests;
* ``python3 dev.py test --all``: the whole suite.

Run with the interpreter a newcomer has, not the project's virtualenv (it
needs only the standard library)::

    python3 bench/bench_quickstart.py [--skip-all] [--keep]

Each line says the machine's load average before and after the step: the
figures hold for that load only. pip's cache is whatever this machine has
(a newcomer's second clone has it warm). Loopback only; the demo is stopped
after each start; the clone is removed unless ``--keep``.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: How long a step may take before the bench gives up, in seconds.
DEADLINE = 1800


def load() -> str:
    """The 1-minute load average, with the core count."""
    return f"load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def answers(url: str) -> bool:
    """Whether ``url`` answers HTTP at all (401 and 405 count)."""
    try:
        with urllib.request.urlopen(url, timeout=2):
            return True
    except urllib.error.HTTPError:
        return True
    except OSError:
        return False


def demo_start(clone: Path) -> float:
    """Seconds from ``dev.py demo`` to its endpoint's first answer."""
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    started = time.monotonic()
    process = subprocess.Popen(
        [sys.executable, "dev.py", "demo", "--port", str(port)],
        cwd=clone,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        while not answers(url):
            if process.poll() is not None:
                sys.exit(f"dev.py demo exited with {process.returncode}")
            if time.monotonic() - started > DEADLINE:
                sys.exit("the demo did not answer in time")
            time.sleep(0.2)
        return time.monotonic() - started
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)


def test_run(clone: Path, *args: str) -> tuple[float, float | None, str]:
    """Seconds of ``dev.py test args``, its install step's, and pytest's summary."""
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "dev.py", "test", "-q", "-p", "no:randomly", *args],
        cwd=clone,
        capture_output=True,
        text=True,
        timeout=DEADLINE,
        check=False,
    )
    took = time.monotonic() - started
    if done.returncode:
        sys.exit(f"dev.py test {' '.join(args)} failed:\n{done.stdout[-3000:]}")
    installed = re.search(r"Installed in (\d+) s", done.stdout)
    summary = done.stdout.strip().splitlines()[-1]
    return took, float(installed.group(1)) if installed else None, summary


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--skip-all", action="store_true", help="no --all run")
    parser.add_argument("--keep", action="store_true", help="keep the clone")
    options = parser.parse_args(argv)
    clone = Path(tempfile.mkdtemp(prefix="frisian-quickstart-")) / "frisian_mcp"
    try:
        subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
        before = load()
        first = demo_start(clone)
        print(f"first dev.py demo answered in {first:.1f} s ({before}, then {load()})")
        before = load()
        again = demo_start(clone)
        print(f"a later start answered in {again:.1f} s ({before}, then {load()})")
        before = load()
        took, installed, summary = test_run(clone)
        print(
            f"first dev.py test: {took:.0f} s, {installed or 0:.0f} s of them "
            f"installing the test tools; {summary} ({before}, then {load()})"
        )
        if not options.skip_all:
            before = load()
            took, _, summary = test_run(clone, "--all")
            print(
                f"dev.py test --all: {took:.0f} s; {summary} ({before}, then {load()})"
            )
    finally:
        if options.keep:
            print(f"The clone is kept: {clone}")
        else:
            shutil.rmtree(clone.parent, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
