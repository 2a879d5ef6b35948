"""dev.py: what each command installs into .venv, and what the demo leaves behind."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
import venv
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from dependency_groups import resolve
from packaging.requirements import Requirement

import dev

GROUPS = tomllib.loads(dev.PYPROJECT.read_text(encoding="utf-8"))["dependency-groups"]
PIP_INSTALL = ["-m", "pip", "install", "--quiet"]


def canonical(requirements: Iterable[str]) -> list[str]:
    """``requirements`` as packaging writes them, sorted: comparable."""
    return sorted(str(Requirement(requirement)) for requirement in requirements)


@pytest.fixture
def pip(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """dev.py's pip calls, recorded; its .venv and pyproject.toml in tmp_path."""
    venv_dir = tmp_path / ".venv"
    python = venv_dir / dev.PYTHON.relative_to(dev.VENV)
    pyproject = tmp_path / "pyproject.toml"
    shutil.copyfile(dev.PYPROJECT, pyproject)
    monkeypatch.setattr(dev, "VENV", venv_dir)
    monkeypatch.setattr(dev, "PYTHON", python)
    monkeypatch.setattr(dev, "STAMP", venv_dir / dev.STAMP.name)
    monkeypatch.setattr(dev, "PYPROJECT", pyproject)

    def create(path: Path, with_pip: bool) -> None:
        assert (path, with_pip) == (venv_dir, True)
        python.parent.mkdir(parents=True)
        python.touch()

    calls: list[list[str]] = []

    def run(*args: str | os.PathLike[str], **kwargs: Any) -> None:
        calls.append([str(arg) for arg in args])

    monkeypatch.setattr(venv, "create", create)
    monkeypatch.setattr(dev, "run", run)
    return calls


def pip_call(calls: list[list[str]]) -> list[str]:
    """The one pip call made, without the interpreter and ``pip install``."""
    (call,) = calls
    assert call[0] == str(dev.PYTHON)
    assert call[1:5] == PIP_INSTALL
    return call[5:]


def test_demo_installs_the_project_and_the_demo_group_only(
    pip: list[list[str]],
) -> None:
    dev.ensure_venv(dev.NEEDS["demo"])
    # One pip call, and no upgrade of pip before it.
    arguments = pip_call(pip)
    assert arguments[:2] == ["-e", "."]
    assert canonical(arguments[2:]) == canonical(resolve(GROUPS, "demo"))
    assert dev.installed()[1] == {"demo"}


def test_a_command_adds_its_group_and_leaves_the_rest_alone(
    pip: list[list[str]],
) -> None:
    dev.ensure_venv(dev.NEEDS["demo"])
    pip.clear()
    dev.ensure_venv(dev.NEEDS["test"])
    # The project is not installed again (a running demo keeps its
    # environment): only the test group's requirements are given to pip,
    # which leaves those already installed as they are.
    arguments = pip_call(pip)
    assert "-e" not in arguments
    assert canonical(arguments) == canonical(resolve(GROUPS, "test"))
    pip.clear()
    for command in ("demo", "test", "manage", "bench", "demo"):
        dev.ensure_venv(dev.NEEDS[command])
    assert pip == []
    assert dev.installed()[1] == {"demo", "test"}


def test_a_group_that_includes_others_counts_them_as_installed(
    pip: list[list[str]],
) -> None:
    dev.ensure_venv(dev.NEEDS["type"])
    pip.clear()
    dev.ensure_venv(dev.NEEDS["test"])
    dev.ensure_venv(dev.NEEDS["demo"])
    assert pip == []
    dev.ensure_venv(dev.NEEDS["lint"])
    assert canonical(pip_call(pip)) == canonical(resolve(GROUPS, "lint"))


def test_a_changed_pyproject_installs_everything_again(pip: list[list[str]]) -> None:
    dev.ensure_venv(dev.NEEDS["demo"])
    dev.ensure_venv(dev.NEEDS["lint"])
    pip.clear()
    with dev.PYPROJECT.open("a", encoding="utf-8") as pyproject:
        pyproject.write("\n# changed\n")
    dev.ensure_venv(dev.NEEDS["demo"])
    arguments = pip_call(pip)
    assert arguments[:2] == ["-e", "."]
    assert canonical(arguments[2:]) == canonical(resolve(GROUPS, "demo", "lint"))
    assert dev.installed()[1] == {"demo", "lint"}


def test_the_stamps_of_earlier_versions_go(pip: list[list[str]]) -> None:
    dev.VENV.mkdir()
    old = dev.VENV / ".frisian-demo-docs-lint-package-test-type-0123456789abcdef"
    old.touch()
    dev.ensure_venv(dev.NEEDS["demo"])
    assert not old.exists()
    assert dev.STAMP.exists()


@pytest.mark.parametrize("group", sorted(GROUPS))
def test_groups_expand_as_pep_735_says(group: str) -> None:
    requirements, _ = dev.dependency_groups([group])
    assert canonical(requirements) == canonical(resolve(GROUPS, group))
    assert len(requirements) == len(set(requirements))


def test_every_command_names_groups_that_exist() -> None:
    assert set(dev.NEEDS) == set(dev.COMMANDS)
    for groups in dev.NEEDS.values():
        assert set(groups) <= set(GROUPS)


@pytest.fixture
def server_runs(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, str]]:
    """The environments of ``runserver`` runs; they exit 3, 3, then 0."""
    codes = iter((3, 3, 0))
    envs: list[dict[str, str]] = []

    def run(args: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
        assert args[1:3] == ["manage.py", "runserver"]
        envs.append(kwargs["env"])
        return subprocess.CompletedProcess(args, next(codes))

    monkeypatch.setattr(subprocess, "run", run)
    return envs


def test_the_demo_server_restarts_as_djangos_autoreloader_asks(
    server_runs: list[dict[str, str]],
) -> None:
    # runserver's child exits with 3 when a file changed; dev.py, the
    # reloader's parent, starts it again and stops with any other code.
    with pytest.raises(SystemExit) as stop:
        dev.serve("127.0.0.1:8000", {"DJANGO_SETTINGS_MODULE": "demo_project.settings"})
    assert stop.value.code == 0
    assert len(server_runs) == 3
    assert all(env["RUN_MAIN"] == "true" for env in server_runs)


@pytest.mark.subprocess
def test_the_demo_is_migrated_and_seeded_in_one_process(tmp_path: Path) -> None:
    database = tmp_path / "demo.sqlite3"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "demo_project.settings",
        "DATABASE_URL": f"sqlite:///{database}",
    }
    done = subprocess.run(
        [sys.executable, "-c", dev.PREPARE_DEMO],
        cwd=dev.ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "Demo data ready: 27 contacts" in done.stdout


def test_git_ignores_the_files_a_demo_leaves(tmp_path: Path) -> None:
    # SQLite keeps a write-ahead log and its index beside the database in
    # WAL mode (the demo's), a rollback journal otherwise.
    shutil.copyfile(dev.ROOT / ".gitignore", tmp_path / ".gitignore")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)

    def ignored(path: str) -> bool:
        check = ["git", "-C", str(tmp_path), "check-ignore", "-q", "--no-index", path]
        return subprocess.run(check, check=False).returncode == 0

    for side in ("", "-wal", "-shm", "-journal"):
        assert ignored(f"db.sqlite3{side}"), f"db.sqlite3{side}"
    assert ignored(".venv/bin/python")
    assert not ignored("demo_project/settings.py")
    assert not ignored("tests/golden/demo_tools_list.json")


FAST = "not live and not subprocess and not browser and not slow"


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ([], ["-m", FAST]),
        (["-k", "wrapper"], ["-m", FAST, "-k", "wrapper"]),
        (["--all"], []),
        (["--all", "-k", "wrapper"], ["-k", "wrapper"]),
        (["tests/test_stdio.py"], ["tests/test_stdio.py"]),
        (["-m", "browser"], ["-m", "browser"]),
    ],
)
def test_test_runs_the_fast_tests_unless_asked_for_more(
    args: list[str], expected: list[str]
) -> None:
    assert dev.selection(args) == expected


def test_the_slow_markers_are_registered() -> None:
    table = tomllib.loads(dev.PYPROJECT.read_text(encoding="utf-8"))
    markers = table["tool"]["pytest"]["ini_options"]["markers"]
    assert set(dev.SLOW_MARKERS) <= {m.split(":")[0] for m in markers}
