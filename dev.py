#!/usr/bin/env python3
"""Developer entry point: bring up the demo or run the test suite.

Needs only Python 3.11+ and this checkout. Every command first makes sure
``.venv`` exists and holds the project and the dependency groups of
``pyproject.toml`` the command needs (``NEEDS``): ``demo`` installs the
project and the ``demo`` group only, and the first ``test``, ``lint``, ...
adds its own group. Groups are only ever added, never removed or
reinstalled, so a running demo keeps its environment; when
``pyproject.toml`` changes, everything installed so far is installed again.

    python3 dev.py demo [--port N]  # migrate, seed, serve the demo on 127.0.0.1:8000
    python3 dev.py test             # the fast tests, a worker per core (SQLite, or $DATABASE_URL)
    python3 dev.py test --all       # the whole test suite (what CI runs)
    python3 dev.py manage ...       # a management command of the demo project
    python3 dev.py lint             # ruff check + ruff format --check
    python3 dev.py type             # mypy --strict
    python3 dev.py package          # build sdist + wheel, twine check, smoke-test the wheel
    python3 dev.py docs [--serve]   # mkdocs build --strict into site/ (or serve on :8001)
    python3 dev.py bench ...        # a benchmark from bench/ (see docs/performance.md)

Extra arguments after ``test`` go to pytest, e.g. ``python3 dev.py test -k wrapper``.
Without ``--all``, and without a test path or ``-m`` of its own, ``test``
leaves out the tests marked in ``SLOW_MARKERS``.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import tomllib
import venv
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parent
PYPROJECT = ROOT / "pyproject.toml"
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PYTHON = BIN / ("python.exe" if os.name == "nt" else "python")
#: What .venv holds: the digest of the pyproject.toml installed from, then
#: the dependency groups installed, one a line.
STAMP = VENV / ".frisian-installed"
#: The dependency groups each command needs besides the project.
NEEDS = {
    "demo": ("demo",),
    "test": ("test",),
    "manage": ("demo",),
    "lint": ("lint",),
    "type": ("type",),
    "package": ("package",),
    "docs": ("docs",),
    "bench": ("test",),
}
COMMANDS = tuple(NEEDS)
#: ``dev.py demo``'s migrate and seed, in one process: one Django start-up.
PREPARE_DEMO = (
    "import django; django.setup(); "
    "from django.core.management import call_command; "
    "call_command('migrate', interactive=False, verbosity=0); "
    "call_command('seed_demo')"
)
SMOKE = ROOT / ".ci" / "smoke_wheel.py"
#: The markers ``dev.py test`` leaves out unless ``--all``: servers started in
#: subprocesses, ``manage.py`` runs, Chromium, and sweeps of every tool.
SLOW_MARKERS = ("live", "subprocess", "browser", "slow")


def run(
    *args: str | os.PathLike[str],
    env: dict[str, str] | None = None,
    cwd: Path = ROOT,
) -> None:
    """Run a command (from the project root); exit with its code on failure."""
    result = subprocess.run([str(a) for a in args], cwd=cwd, env=env, check=False)
    if result.returncode:
        sys.exit(result.returncode)


def group_name(name: str) -> str:
    """A dependency group's name, normalized as PEP 735 says."""
    return re.sub(r"[-_.]+", "-", name).lower()


def group_table() -> dict[str, list[str | dict[str, str]]]:
    """pyproject.toml's ``[dependency-groups]``, by normalized name."""
    table = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["dependency-groups"]
    return {group_name(name): items for name, items in table.items()}


def dependency_groups(names: Iterable[str]) -> tuple[list[str], set[str]]:
    """The requirements of the groups ``names`` (PEP 735), and every group read.

    Read here, includes expanded, rather than by ``pip install --group``,
    which needs pip 25.1: the pip that ``venv`` bundles installs the
    requirements as they are, so a first run spends no time upgrading pip.
    """
    groups = group_table()
    requirements: list[str] = []
    read: set[str] = set()

    def expand(name: str, including: tuple[str, ...]) -> None:
        name = group_name(name)
        if name in including:
            sys.exit(f"pyproject.toml: dependency group {name!r} includes itself")
        if name not in groups:
            sys.exit(f"pyproject.toml: no dependency group {name!r}")
        read.add(name)
        for item in groups[name]:
            if isinstance(item, str):
                requirements.append(item)
            else:
                expand(item["include-group"], (*including, name))

    for name in names:
        expand(name, ())
    return list(dict.fromkeys(requirements)), read


def installed() -> tuple[str, set[str]]:
    """The pyproject.toml digest .venv was installed from, and its groups."""
    if not PYTHON.exists() or not STAMP.exists():
        return "", set()
    digest, *groups = STAMP.read_text(encoding="utf-8").split()
    return digest, set(groups)


def ensure_venv(groups: Iterable[str]) -> None:
    """Make sure .venv holds the project and the dependency ``groups``.

    A group missing from .venv is added by itself: the project and the
    groups there already are left alone (a running demo keeps its
    environment). A new or changed pyproject.toml installs the project and
    every group installed so far. One pip call either way; its output is
    pip's errors only (setuptools' "editable installation" notice, which
    reads like an error, is silenced).
    """
    if sys.version_info < (3, 11):  # noqa: UP036 - run by a bare python3
        sys.exit("frisian_mcp needs Python 3.11 or newer.")
    digest = hashlib.sha256(PYPROJECT.read_bytes()).hexdigest()[:16]
    stamped, present = installed()
    fresh = stamped != digest
    if fresh:  # a group pyproject.toml no longer has is left out
        adding, present = set(groups) | (present & set(group_table())), set()
    else:
        adding = set(groups) - present
        if not adding:
            return
    started = time.monotonic()
    if not PYTHON.exists():
        print(f"Creating {VENV} ...", flush=True)
        venv.create(VENV, with_pip=True)
    names = ", ".join(sorted(adding))
    what = (
        f"frisian_mcp and the {names} dependencies"
        if fresh
        else f"the {names} dependencies"
    )
    print(f"Installing {what} into .venv (once) ...", flush=True)
    requirements, read = dependency_groups(sorted(adding))
    quiet = {
        **os.environ,
        "PYTHONWARNINGS": "ignore",
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    }
    project = ["-e", "."] if fresh else []
    run(PYTHON, "-m", "pip", "install", "--quiet", *project, *requirements, env=quiet)
    for old in VENV.glob(".frisian-*"):  # the stamps of earlier dev.py versions
        old.unlink()
    STAMP.write_text("\n".join([digest, *sorted(present | read)]) + "\n")
    print(f"Installed in {time.monotonic() - started:.0f} s.", flush=True)


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
    print("Migrating and seeding the demo database ...", flush=True)
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "demo_project.settings"}
    run(PYTHON, "-c", PREPARE_DEMO, env=env)
    print(f"MCP endpoint: {os.environ['DEMO_PUBLIC_URL']}/mcp", flush=True)
    serve(f"{options.host}:{options.port}", env)


def serve(address: str, env: dict[str, str]) -> None:
    """``runserver`` with its autoreloader, Django started once, not twice.

    Django's autoreloader is a parent process that sets up Django only to
    start a child with ``RUN_MAIN=true``, which serves and exits with code 3
    when a file changes; the parent then starts it again
    (``django.utils.autoreload.restart_with_reloader``). This loop is that
    parent, without the set-up.
    """
    while True:
        try:
            child = subprocess.run(
                [PYTHON, "manage.py", "runserver", address],
                cwd=ROOT,
                env={**env, "RUN_MAIN": "true"},
                check=False,
            )
        except KeyboardInterrupt:
            return
        if child.returncode != 3:
            sys.exit(child.returncode)


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


def selection(args: list[str]) -> list[str]:
    """pytest's arguments for ``dev.py test args``: ``--all`` runs every
    test; a test path or ``-m`` chooses for itself; else the fast tests."""
    if "--all" in args:
        return [a for a in args if a != "--all"]
    chosen = any(a == "-m" or a.startswith("tests") or "::" in a for a in args)
    fast = " and ".join(f"not {marker}" for marker in SLOW_MARKERS)
    return args if chosen else ["-m", fast, *args]


def main(argv: list[str]) -> None:
    """Dispatch ``argv[0]`` to the matching command."""
    if not argv or argv[0] not in COMMANDS:
        print(__doc__)
        sys.exit(2)
    command, rest = argv[0], argv[1:]
    ensure_venv(NEEDS[command])
    if command == "demo":
        demo(rest)
    elif command == "manage":
        manage(*rest)
    elif command == "test":
        # A worker per core, four at most (each holds database connections
        # and starts live servers); a test file per worker, so its live
        # server starts once. "-n 0" among the arguments runs serially.
        workers = str(min(os.cpu_count() or 1, 4))
        run(
            PYTHON,
            "-m",
            "pytest",
            "-n",
            workers,
            "--dist",
            "loadfile",
            *selection(rest),
        )
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
