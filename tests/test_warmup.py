"""warm_up(): a worker builds at start what its first MCP request would.

A server process starts it by itself (ADR 0032); a host may still call it
(ADR 0019). ``manage.py`` commands never run it.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from django.urls import clear_url_caches, get_resolver

from frisian_mcp import registry, warmup
from frisian_mcp.contrib.testing import MCPError, MCPTestClient
from frisian_mcp.discovery import URLConfDiscoveryBackend
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
    assert len(builds) == 11  # the first page, and one past it
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
def test_once_a_request_came_the_thread_leaves_the_rest_to_it(
    builds: list[str],
) -> None:
    """The first page is built; the reverse map waits for a request to need it."""
    clear_url_caches()
    asked = threading.Event()
    asked.set()
    warmup._warm(asked)
    assert len(builds) == 11  # the first page, and one past it
    assert not get_resolver()._populated  # type: ignore[attr-defined]


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
    assert len(builds) == 11


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


def _run(
    script: str, settings: str, database: Path
) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": settings,
        "DATABASE_URL": f"sqlite:///{database}",
    }
    return subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


#: Prints how many of the registry's tools are built, once the warm-up ends.
BUILT = (
    "from frisian_mcp import registry, warmup\n"
    "warmup.finish()\n"
    "tools = list(registry.get_registry())\n"
    "print(sum(t.built for t in tools), len(tools))\n"
)


@pytest.mark.subprocess
@pytest.mark.parametrize("handler", ["demo_project.wsgi", "demo_project.asgi"])
def test_a_server_warms_up_by_itself_without_touching_the_database(
    handler: str, tmp_path: Path
) -> None:
    """Issue 25 item 9: the demo's wsgi.py and asgi.py only set Django up."""
    database = tmp_path / "never.sqlite3"
    done = _run(f"import {handler}\n{BUILT}", "demo_project.settings", database)
    assert done.returncode == 0, done.stderr
    built, total = map(int, done.stdout.split())
    assert built == total > 0  # all the demo's tools fit the first page
    assert not database.exists()  # SQLite creates the file on connect


@pytest.mark.subprocess
def test_a_command_does_not_warm_up(tmp_path: Path) -> None:
    """django.setup(), as every manage.py command runs it, starts nothing."""
    script = (
        "import django\n"
        "django.setup()\n"
        "from frisian_mcp import registry, warmup\n"
        "print(warmup._thread, registry._registry)\n"
    )
    done = _run(script, "demo_project.settings", tmp_path / "db.sqlite3")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["[]", "None"]


@pytest.mark.subprocess
def test_warm_up_false_leaves_it_to_the_first_request(tmp_path: Path) -> None:
    script = (
        "from django.conf import settings\n"
        "settings.FRISIAN_MCP = {'WARM_UP': False}\n"
        "from django.core.wsgi import get_wsgi_application\n"
        "get_wsgi_application()\n"
        "from frisian_mcp import registry, warmup\n"
        "print(warmup._thread, registry._registry)\n"
    )
    done = _run(script, "tests.settings_core", tmp_path / "db.sqlite3")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["[]", "None"]


@pytest.mark.subprocess
def test_a_fork_waits_for_the_warm_up(tmp_path: Path) -> None:
    """gunicorn --preload forks its workers right after loading the app:
    each child inherits the warm-up whole, never half of it."""
    script = (
        "import os\n"
        "from django.core.wsgi import get_wsgi_application\n"
        "get_wsgi_application()\n"
        "pid = os.fork()\n"
        "if pid == 0:\n"
        "    from frisian_mcp import registry\n"
        "    found = registry._registry\n"
        "    os._exit(0 if found and any(t.built for t in found) else 3)\n"
        "print(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))\n"
    )
    done = _run(script, "tests.settings_core", tmp_path / "db.sqlite3")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["0"]


@pytest.mark.parametrize(
    ("argv", "run_main", "serving"),
    [
        (["manage.py", "runserver"], "true", True),  # the autoreloader's child
        (["manage.py", "runserver"], None, False),  # its parent serves nothing
        (["manage.py", "runserver", "--noreload"], None, True),
        (["manage.py", "migrate"], "true", False),
        (["manage.py", "check"], None, False),
    ],
)
def test_runserver_warms_up_where_it_serves(
    argv: list[str],
    run_main: str | None,
    serving: bool,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sys, "argv", argv)
    if run_main is None:
        monkeypatch.delenv("RUN_MAIN", raising=False)
    else:
        monkeypatch.setenv("RUN_MAIN", run_main)
    assert warmup._serving() is serving
