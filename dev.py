#!/usr/bin/env python3
"""Developer entry point: bring up the demo or run the test suite.

Needs only Python 3.11+ and this checkout. Every command first makes sure
``.venv`` exists and holds the project with all its development dependencies
(installed once, again only when ``pyproject.toml`` changes), then runs::

    python3 dev.py demo [--port N]  # migrate, seed, serve the demo on 127.0.0.1:8000
    python3 dev.py test             # the whole test suite, a worker per core (SQLite, or $DATABASE_URL)
    python3 dev.py manage ...       # a management command of the demo project
    python3 dev.py lint             # ruff check + ruff format --check
    python3 dev.py type             # mypy --strict
    python3 dev.py package          # build sdist + wheel, twine check, smoke-test the wheel
    python3 dev.py docs [--serve]   # mkdocs build --strict into site/ (or serve on :8001)
    python3 dev.py bench ...        # a benchmark from bench/ (see docs/performance.md)

Extra arguments after ``test`` go to pytest, e.g. ``python3 dev.py test -k wrapper``.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PYTHON = BIN / ("python.exe" if os.name == "nt" else "python")
COMMANDS = ("demo", "test", "manage", "lint", "type", "package", "docs", "bench")
#: Every command gets every group, so no command reinstalls under another
#: (a running demo keeps its environment while the tests run).
GROUPS = ["demo", "test", "lint", "type", "package", "docs"]
SMOKE = ROOT / ".ci" / "smoke_wheel.py"


def run(
    *args: str | os.PathLike[str],
    env: dict[str, str] | None = None,
    cwd: Path = ROOT,
) -> None:
    """Run a command (from the project root); exit with its code on failure."""
    result = subprocess.run([str(a) for a in args], cwd=cwd, env=env, check=False)
    if result.returncode:
        sys.exit(result.returncode)


def ensure_venv(groups: list[str]) -> None:
    """Create .venv and install the project with ``groups`` when needed.

    The output is pip's errors only: setuptools' "editable installation"
    notice, which reads like an error, is silenced.
    """
    if sys.version_info < (3, 11):  # noqa: UP036 - run by a bare python3
        sys.exit("frisian_mcp needs Python 3.11 or newer.")
    if not PYTHON.exists():
        print(f"Creating {VENV} ...", flush=True)
        venv.create(VENV, with_pip=True)
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()[:16]
    stamp = VENV / f".frisian-{'-'.join(sorted(groups))}-{digest}"
    if stamp.exists():
        return
    print(
        "Installing frisian_mcp and its development dependencies into .venv "
        "(once; about a minute) ...",
        flush=True,
    )
    quiet = {
        **os.environ,
        "PYTHONWARNINGS": "ignore",
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    }
    # Dependency groups (PEP 735) need pip 25.1 or newer.
    pip = (PYTHON, "-m", "pip", "install", "--quiet")
    run(*pip, "--upgrade", "pip>=25.1", env=quiet)
    group_args = [arg for group in groups for arg in ("--group", group)]
    run(*pip, "-e", ".", *group_args, env=quiet)
    for old in VENV.glob(".frisian-*"):
        old.unlink()
    stamp.touch()
    print("Installed.", flush=True)


def manage(*args: str) -> None:
    """Run a demo_project management command."""
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "demo_project.settings"}
    run(PYTHON, "manage.py", *args, env=env)


def demo(argv: list[str]) -> None:
    """Migrate, seed and serve the demo on 127.0.0.1 (``--port``, ``--host``)."""
    parser = argparse.ArgumentParser(prog="python3 dev.py demo")
    parser.add_argument("--host", default="127.0.0.1", help="default 127.0.0.1")
    parser.add_argument("--port", type=int, default=8000, help="default 8000")
    options = parser.parse_args(argv)
    with socket.socket() as probe:
        if probe.connect_ex((options.host, options.port)) == 0:
            sys.exit(
                f"Port {options.port} on {options.host} is in use (is the demo "
                f"already running?). Choose another: python3 dev.py demo "
                f"--port {options.port + 1}"
            )
    # The resource URL and the OAuth issuer are built from it; a tunnel's
    # public URL, set beforehand, wins (README).
    os.environ.setdefault("DEMO_PUBLIC_URL", f"http://{options.host}:{options.port}")
    manage("migrate", "--no-input", "--verbosity", "0")
    manage("seed_demo")
    print(f"MCP endpoint: {os.environ['DEMO_PUBLIC_URL']}/mcp", flush=True)
    manage("runserver", f"{options.host}:{options.port}")


def package() -> None:
    """Build the sdist and wheel into dist/, check them, smoke-test the wheel.

    The wheel is installed (not editable) into a new virtualenv in a
    temporary directory and the smoke test runs there, with nothing of the
    checkout on ``sys.path``: what a user of the published package gets.
    """
    dist = ROOT / "dist"
    shutil.rmtree(dist, ignore_errors=True)
    print("Building the sdist and the wheel (from the sdist) ...", flush=True)
    run(PYTHON, "-m", "build", "--quiet", "--outdir", dist, ".")
    built = sorted(dist.iterdir())
    run(PYTHON, "-m", "twine", "check", "--strict", *built)
    (wheel,) = (path for path in built if path.suffix == ".whl")
    with tempfile.TemporaryDirectory(prefix="frisian-package-") as tmp:
        print(f"Installing {wheel.name} into a fresh virtualenv ...", flush=True)
        fresh = Path(tmp) / "venv"
        venv.create(fresh, with_pip=True)
        python = fresh / PYTHON.relative_to(VENV)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
        run(python, "-m", "pip", "install", "--quiet", wheel, env=env, cwd=Path(tmp))
        smoke = Path(tmp) / SMOKE.name
        shutil.copyfile(SMOKE, smoke)
        run(python, "-I", smoke, env=env, cwd=Path(tmp))


def docs(argv: list[str]) -> None:
    """Build the documentation site into site/ with ``mkdocs build --strict``.

    ``--serve`` serves it with live reload instead, on 127.0.0.1:8001 by
    default so it does not collide with the demo.
    """
    parser = argparse.ArgumentParser(prog="python3 dev.py docs")
    parser.add_argument("--serve", action="store_true", help="serve, live reload")
    parser.add_argument("--port", type=int, default=8001, help="default 8001")
    options = parser.parse_args(argv)
    # mkdocs-material prints a banner about its successor on every run;
    # it is news, not a problem with these docs.
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    mkdocs = (PYTHON, "-m", "mkdocs")
    if options.serve:
        address = f"127.0.0.1:{options.port}"
        run(*mkdocs, "serve", "--strict", "--dev-addr", address, env=env)
    else:
        run(*mkdocs, "build", "--strict", "--site-dir", ROOT / "site", env=env)


def main(argv: list[str]) -> None:
    """Dispatch ``argv[0]`` to the matching command."""
    if not argv or argv[0] not in COMMANDS:
        print(__doc__)
        sys.exit(2)
    command, rest = argv[0], argv[1:]
    ensure_venv(GROUPS)
    if command == "demo":
        demo(rest)
    elif command == "manage":
        manage(*rest)
    elif command == "test":
        # A worker per core, four at most (each holds database connections
        # and starts live servers); a test file per worker, so its live
        # server starts once. "-n 0" among the arguments runs serially.
        workers = str(min(os.cpu_count() or 1, 4))
        run(PYTHON, "-m", "pytest", "-n", workers, "--dist", "loadfile", *rest)
    elif command == "lint":
        run(PYTHON, "-m", "ruff", "check", ".")
        run(PYTHON, "-m", "ruff", "format", "--check", ".")
    elif command == "type":
        run(PYTHON, "-m", "mypy")
    elif command == "package":
        package()
    elif command == "docs":
        docs(rest)
    elif command == "bench":
        if not rest:
            sys.exit("usage: python3 dev.py bench bench/<script>.py [args]")
        run(PYTHON, *rest)


if __name__ == "__main__":
    main(sys.argv[1:])
