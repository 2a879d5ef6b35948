"""warm_up(): a worker builds at start what its first MCP request would (ADR 0019)."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from django.urls import clear_url_caches, get_resolver

from frisian_mcp import registry
from frisian_mcp.discovery import URLConfDiscoveryBackend
from frisian_mcp.testing import MCPError, MCPTestClient
from frisian_mcp.types import Endpoint
from frisian_mcp.warmup import warm_up
from tests.live import ROOT

DEMO = {
    "ROOT_URLCONF": "demo_project.urls",
    "FRISIAN_MCP": {"REQUIRE_AUTHENTICATION": False, "TOOLS_LIST_PAGE_SIZE": 10},
}


@pytest.mark.django_db
@override_settings(**DEMO)
def test_after_warm_up_the_first_listing_page_builds_nothing(
    builds: list[str],
) -> None:
    with CaptureQueriesContext(connection) as queries:
        warm_up()
    assert len(queries) == 0  # safe before gunicorn forks (--preload)
    # The first page, and one past it; without the files hook (these settings
    # name none) attachments__create and __update, which need a file, are
    # built and left out (issue 25 item 13).
    assert len(builds) == 13
    builds.clear()

    client = MCPTestClient()
    client.initialize()
    page = client.request("tools/list", {})
    assert len(page["tools"]) == 10
    assert builds == []


@override_settings(**DEMO)
def test_warm_up_fills_the_urlconfs_reverse_map() -> None:
    """A process's first reverse() (REST URLs, the explorer's page) fills
    Django's reverse map: hundreds of ms with a thousand routes (ADR 0019)."""
    clear_url_caches()
    assert not get_resolver()._populated  # type: ignore[attr-defined]
    warm_up()
    assert get_resolver()._populated  # type: ignore[attr-defined]


@pytest.mark.django_db
@override_settings(**DEMO)
def test_without_warm_up_nothing_is_built_before_the_first_listing(
    builds: list[str],
) -> None:
    """The cost warm_up moves; django.setup() alone (what every manage.py
    command runs) built nothing, so the first listing builds its page."""
    assert registry._registry is None
    client = MCPTestClient()
    client.initialize()
    client.request("tools/list", {})
    assert len(builds) == 13  # as above


class BrokenBackend(URLConfDiscoveryBackend):
    def get_endpoints(self) -> list[Endpoint]:
        raise ImproperlyConfigured("the URLconf is broken")


@pytest.mark.django_db
@override_settings(
    FRISIAN_MCP={
        "REQUIRE_AUTHENTICATION": False,
        "DISCOVERY_BACKEND": "tests.test_warmup.BrokenBackend",
    }
)
def test_a_discovery_failure_is_logged_and_left_to_the_first_request(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING, logger="frisian_mcp"):
        warm_up()
    assert registry._registry is None
    [record] = caplog.records
    assert "ImproperlyConfigured" in record.getMessage()
    assert "broken" not in record.getMessage()

    client = MCPTestClient()
    client.initialize()
    with pytest.raises(MCPError) as info:
        client.request("tools/list", {})
    assert info.value.code == -32603


@pytest.mark.subprocess
def test_the_demo_warms_up_in_wsgi_py_without_touching_the_database(
    tmp_path: Path,
) -> None:
    """demo_project/wsgi.py warms up; manage.py's django.setup() does not."""
    database = tmp_path / "never.sqlite3"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "demo_project.settings",
        "DATABASE_URL": f"sqlite:///{database}",
    }
    script = (
        "import sys, django\n"
        "django.setup()\n"
        "from frisian_mcp import registry\n"
        "assert registry._registry is None, 'setup alone built the registry'\n"
        "import demo_project.wsgi\n"
        "tools = list(registry.get_registry())\n"
        "print(sum(t.built for t in tools), len(tools))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    built, total = map(int, done.stdout.split())
    assert built == total > 0  # all the demo's tools fit the first page
    assert not database.exists()  # SQLite creates the file on connect
