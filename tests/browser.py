"""A real browser for the explorer's tests: Debian's headless Chromium.

Playwright drives ``/usr/bin/chromium`` (``executable_path``: Playwright's
own browser download cannot run here) with the flags a closed network
needs. Screenshots go to ``tests/artifacts/explorer/`` (git-ignored; set
``FRISIAN_MCP_ARTIFACTS`` for another folder). Without the browser the
tests skip, unless ``FRISIAN_MCP_REQUIRE_BROWSER`` is set, as in CI.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

CHROMIUM = Path("/usr/bin/chromium")
#: No sandbox (root in CI), no GPU, and no background traffic: this
#: machine's network is closed, and Chromium's calls home would be refused.
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = Path(os.environ.get("FRISIAN_MCP_ARTIFACTS", ROOT / "tests" / "artifacts"))


@contextmanager
def chromium() -> Iterator[Browser]:
    """A headless Chromium; skips (or fails in CI) when it is not installed."""
    if not CHROMIUM.exists():
        message = "Debian's chromium is not installed: apt-get install -y chromium"
        if os.environ.get("FRISIAN_MCP_REQUIRE_BROWSER"):
            pytest.fail(message)
        pytest.skip(message)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=FLAGS
        )
        try:
            yield browser
        finally:
            browser.close()


def screenshot(page: Page, name: str, *, full: bool = False) -> Path:
    """Save what ``page`` shows as ``<ARTIFACTS>/explorer/<name>.png``."""
    path = ARTIFACTS / "explorer" / f"{name}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(path), full_page=full)
    return path


def watch(page: Page) -> list[str]:
    """Script errors, and responses of 400 or more but the favicon's."""
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(f"pageerror: {error}"))
    page.on(
        "response",
        lambda response: (
            errors.append(f"{response.status} {response.url}")
            if response.status >= 400 and not response.url.endswith("/favicon.ico")
            else None
        ),
    )
    return errors
