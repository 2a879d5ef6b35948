"""The release: changelog shape, single version source, module and function sizes."""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import pytest

import frisian_mcp

ROOT = Path(__file__).resolve().parent.parent
#: Keep a Changelog 1.1.0's kinds of change, in its order.
KINDS = ("Added", "Changed", "Deprecated", "Removed", "Fixed", "Security")
RELEASE = re.compile(r"\[\d+\.\d+\.\d+\] - \d{4}-\d{2}-\d{2}")


def changelog_versions(text: str) -> list[tuple[str, list[str]]]:
    """Each ``## `` heading of ``text`` with the ``### `` headings under it."""
    versions: list[tuple[str, list[str]]] = []
    for line in text.splitlines():
        if line.startswith("## "):
            versions.append((line[3:], []))
        elif line.startswith("### "):
            if not versions:
                pytest.fail(f"{line!r} comes before any version heading")
            versions[-1][1].append(line[4:])
    return versions


def test_changelog_follows_keep_a_changelog() -> None:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    versions = changelog_versions(text)
    assert versions, "CHANGELOG.md has no version heading"
    titles = [title for title, _ in versions]
    assert titles[0] == "[Unreleased]", "## [Unreleased] must come first"
    assert titles.count("[Unreleased]") == 1
    for title in titles[1:]:
        assert RELEASE.fullmatch(title), f"{title!r} is not [x.y.z] - YYYY-MM-DD"
    for title, kinds in versions:
        assert set(kinds) <= set(KINDS), f"{title}: unknown section in {kinds}"
        assert len(kinds) == len(set(kinds)), f"{title}: a section repeats: {kinds}"


def test_version_has_one_source() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in pyproject["project"]
    assert "version" in pyproject["project"]["dynamic"]
    dynamic = pyproject["tool"]["setuptools"]["dynamic"]["version"]
    assert dynamic == {"attr": "frisian_mcp.__version__"}
    assert isinstance(frisian_mcp.__version__, str)
    assert frisian_mcp.__version__


#: The rebuild's limits (issue 10, STYLE.md §1): a module stays readable in
#: one sitting, a function on one screen.
MODULE_LINES, FUNCTION_LINES = 400, 60


def test_modules_and_functions_stay_small() -> None:
    too_long = []
    for path in sorted((ROOT / "frisian_mcp").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        name = path.relative_to(ROOT)
        if len(text.splitlines()) > MODULE_LINES:
            too_long.append(f"{name}: {len(text.splitlines())} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > FUNCTION_LINES:
                    too_long.append(f"{name}:{node.lineno} {node.name}: {length}")
    assert too_long == []
