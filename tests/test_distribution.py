"""The distribution's name and addresses, and the README's links to them."""

from __future__ import annotations

import re
import tomllib
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))[
    "project"
]
NAME = PROJECT["name"]
DOCS = PROJECT["urls"]["Documentation"]
SOURCE = PROJECT["urls"]["Source"]
README = (ROOT / "README.md").read_text(encoding="utf-8")
#: Inline links and images, ``[text](target)``, and reference definitions.
LINK = re.compile(r"\]\(\s*<?([^)\s>]+)|^\s*\[[^\]]+\]:\s*<?(\S+?)>?\s*$", re.MULTILINE)
#: ``pip install`` and the first distribution named after it.
PIP_INSTALL = re.compile(r"pip install\s+(?:-\S+\s+)*['\"]?([A-Za-z0-9][\w.-]*)")


def readme_links() -> list[str]:
    return [inline or reference for inline, reference in LINK.findall(README)]


def slug(heading: str) -> str:
    """The anchor mkdocs (Python-Markdown's toc) gives a heading."""
    text = unicodedata.normalize("NFKD", heading).encode("ascii", "ignore").decode()
    text = re.sub(r"[^\w\s-]", "", re.sub(r"`|\*\*", "", text)).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def docs_page(url: str) -> tuple[Path, str]:
    """The docs/ file a documentation-site URL shows, and its anchor."""
    path, _, anchor = url.removeprefix(DOCS).partition("#")
    page = ROOT / "docs" / path.rstrip("/")
    index = page / "index.md"
    return (index if index.is_file() else page.with_suffix(".md")), anchor


def test_the_distribution_has_a_name_of_its_own() -> None:
    # "frisian-mcp" on PyPI is another author's package that installs a
    # frisian_mcp module too; ours must never be installed under that name.
    assert NAME == "drf-frisian-mcp"
    assert PROJECT["urls"].keys() >= {"Documentation", "Source", "Changelog"}
    assert all(url.startswith("https://") for url in PROJECT["urls"].values())


def test_the_readme_links_are_absolute() -> None:
    links = readme_links()
    assert len(links) > 20
    relative = [link for link in links if not link.startswith("https://")]
    assert relative == [], "a package index page breaks relative links"


def test_the_readme_links_to_documentation_pages_that_exist() -> None:
    pages = [link for link in readme_links() if link.startswith(DOCS)]
    assert len(pages) > 20
    for link in pages:
        source, anchor = docs_page(link)
        assert source.is_file(), link
        if anchor:
            headings = re.findall(r"^#+\s+(.+?)\s*$", source.read_text("utf-8"), re.M)
            assert anchor in {slug(heading) for heading in headings}, link


def test_the_quick_start_clones_the_source() -> None:
    (clone,) = re.findall(r"^git clone (\S+)", README, re.MULTILINE)
    assert clone == SOURCE


def test_install_lines_name_the_distribution() -> None:
    files = [
        ROOT / "README.md",
        *sorted((ROOT / "docs").rglob("*.md")),
        *sorted((ROOT / "frisian_mcp").rglob("*.py")),
    ]
    named = [
        (path.relative_to(ROOT), name)
        for path in files
        for name in PIP_INSTALL.findall(path.read_text(encoding="utf-8"))
        if "frisian" in name.lower()
    ]
    assert len(named) >= 2  # the README's and docs/authorization.md's
    assert [(path, name) for path, name in named if name != NAME] == []


def test_install_lines_install_what_exists_today() -> None:
    # The name is not on PyPI yet (issue 26): every line that installs the
    # distribution takes it from the repository.
    lines = [
        line
        for path in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
        for line in path.read_text(encoding="utf-8").splitlines()
        if re.search(r"pip install\s+['\"]?" + re.escape(NAME), line)
    ]
    assert lines
    assert [line for line in lines if f"@ git+{SOURCE}" not in line] == []


def test_the_docs_index_links_every_page() -> None:
    docs = ROOT / "docs"
    index = (docs / "index.md").read_text(encoding="utf-8")
    linked = set(re.findall(r"\]\(([\w/.-]+\.md)(?:#[\w-]+)?\)", index))
    pages = {
        path.relative_to(docs).as_posix()
        for path in docs.glob("*.md")
        if path.name != "index.md"
    }
    assert pages - linked == set()
    assert "adr/index.md" in linked


def test_ci_runs_the_readmes_test_command() -> None:
    # What the README promises is what CI proves (issue 26 item 5).
    (command,) = re.findall(r"^(python3 dev\.py test[^#\n]*?)\s*#", README, re.M)
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    runs = [line for line in ci if line.strip().endswith("dev.py test --all")]
    assert command == "python3 dev.py test --all"
    assert len(runs) == 2  # SQLite, then PostgreSQL
    assert all(line.endswith(command) for line in runs)
