"""An extra works by being installed, and upgrades never change silently.

Issue 25 item 8, ADR 0032: an extra's ``AppConfig.ready()`` gives the core
its hook, store or page (``hooks.provide``), so one line in
``INSTALLED_APPS`` turns it on and a setting naming it again registers
nothing twice; a setting that asks for an extra that is not installed is a
check message (W014, and E013 for ``CONFIRM``), as is a layout that would
need one (W015). A project's settings from the release before the extras
keep serving, with the warnings the CHANGELOG's "Upgrading" names.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings
from django.core.management import call_command
from django.test import override_settings

from frisian_mcp.checks import check_extras, check_tools
from frisian_mcp.conf import mcp_settings
from frisian_mcp.contrib.confirm.hooks import ConfirmationHook
from frisian_mcp.contrib.explorer.views import ExplorerView
from frisian_mcp.contrib.files.hooks import FileHook
from frisian_mcp.contrib.fleet.store import FleetStore
from frisian_mcp.registry import get_registry
from tests.extras import without
from tests.scripts import last_json

FLEET = "frisian_mcp.contrib.fleet.store.FleetStore"
FILES = "frisian_mcp.contrib.files.hooks.FileHook"
EXPLORER = "frisian_mcp.contrib.explorer.views.ExplorerView"


class OwnFileHook(FileHook):
    """A project's own subclass of an extra's hook."""


# -- installed, it works --------------------------------------------------------


@override_settings(FRISIAN_MCP={})
def test_installed_extras_give_their_hooks_store_and_page() -> None:
    # In INSTALLED_APPS order (tests/settings.py): confirm, then files.
    hooks = mcp_settings.CALL_HOOKS
    assert hooks == [ConfirmationHook, FileHook]
    assert mcp_settings.STORE_BACKEND is FleetStore
    assert mcp_settings.BROWSER_VIEW_CLASS is ExplorerView
    assert isinstance(get_registry().store, FleetStore)


def test_without_the_extras_nothing_is_given() -> None:
    with (
        without("files", "confirm", "fleet", "explorer"),
        override_settings(FRISIAN_MCP={}),
    ):
        assert mcp_settings.CALL_HOOKS == []
        assert mcp_settings.STORE_BACKEND is None
        assert mcp_settings.BROWSER_VIEW_CLASS is None
        assert get_registry().store is None
    assert mcp_settings.STORE_BACKEND is FleetStore  # installed again


@pytest.mark.parametrize(
    ("hooks", "found"),
    [
        ([FILES], [FileHook, ConfirmationHook]),
        ([f"{__name__}.OwnFileHook"], [OwnFileHook, ConfirmationHook]),
        (
            ["frisian_mcp.contrib.confirm.hooks.ConfirmationHook", FILES],
            [ConfirmationHook, FileHook],
        ),
    ],
)
def test_a_listed_hook_is_not_added_twice(hooks: list[str], found: list[Any]) -> None:
    """A host that lists an extra's hook (or its own subclass) keeps its order."""
    with override_settings(FRISIAN_MCP={"CALL_HOOKS": hooks}):
        assert found == mcp_settings.CALL_HOOKS


def test_the_fleets_schema_key_covers_the_hooks_extras_add() -> None:
    """A hook maps schemas: workers with other extras share none of them."""
    from frisian_mcp.contrib.fleet.store import fingerprint

    with override_settings(FRISIAN_MCP={}):
        installed = fingerprint([])
    with without("files"), override_settings(FRISIAN_MCP={}):
        assert fingerprint([]) != installed


@pytest.mark.parametrize("key", ["STORE_BACKEND", "BROWSER_VIEW_CLASS"])
def test_setting_none_turns_an_installed_extra_off(key: str) -> None:
    with override_settings(FRISIAN_MCP={key: None}):
        assert getattr(mcp_settings, key) is None


# -- W014, E013: a setting asks for an extra that is not installed --------------


@pytest.mark.parametrize(
    ("options", "extras", "named"),
    [
        ({"CACHE": "default"}, ["fleet"], [("CACHE", "fleet")]),
        ({"STORE_BACKEND": FLEET}, ["fleet"], [("STORE_BACKEND", "fleet")]),
        ({"FILE_MAX_BYTES": 10}, ["files"], [("FILE_MAX_BYTES", "files")]),
        ({"CALL_HOOKS": [FILES]}, ["files"], [("CALL_HOOKS", "files")]),
        (
            {"BROWSER_VIEW_CLASS": EXPLORER},
            ["explorer"],
            [("BROWSER_VIEW_CLASS", "explorer")],
        ),
        (
            {"DISPATCHER_THRESHOLD": 50, "DISPATCHER_GROUP_BY": "path"},
            ["dispatchers"],
            [
                ("DISPATCHER_GROUP_BY", "dispatchers"),
                ("DISPATCHER_THRESHOLD", "dispatchers"),
            ],
        ),
        (
            {"OAUTH": {"RESOURCE": "https://x.test/mcp"}},
            ["oauth"],
            [("OAUTH", "oauth")],
        ),
        ({"CONFIRM_MAX_AGE": 60}, ["confirm"], [("CONFIRM_MAX_AGE", "confirm")]),
        ({"OAUTH": None, "CACHE": None}, ["oauth", "fleet"], []),  # off: fine
        ({"CACHE": "default", "FILE_MAX_BYTES": 10}, [], []),  # installed: fine
    ],
)
def test_a_setting_for_an_extra_not_installed_is_w014(
    options: dict[str, Any], extras: list[str], named: list[tuple[str, str]]
) -> None:
    with without(*extras), override_settings(FRISIAN_MCP=options):
        found = check_extras()
    assert [m.id for m in found] == ["frisian_mcp.W014"] * len(named)
    for message, (key, extra) in zip(found, named, strict=True):
        assert f"[{key!r}] is for the {extra} extra" in message.msg
        assert f"Add the {extra} extra to INSTALLED_APPS" in (message.hint or "")


REDIS = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": "redis://127.0.0.1:6379/15",
    }
}


@pytest.mark.parametrize(
    ("options", "extras", "warned"),
    [
        ({}, ["fleet"], True),  # the previous release's default, lost
        ({"CACHE": None}, ["fleet"], False),  # said: keep nothing
        ({}, [], False),  # installed: the store uses it
    ],
)
def test_a_shared_default_cache_without_the_fleet_is_w014(
    options: dict[str, Any], extras: list[str], warned: bool
) -> None:
    with (
        without(*extras),
        override_settings(FRISIAN_MCP=options, CACHES=REDIS),
    ):
        found = check_extras()
    assert [m.id for m in found] == ["frisian_mcp.W014"] * warned
    if warned:
        assert "(RedisCache)" in found[0].msg
        assert "each worker builds its own" in found[0].msg


def test_confirm_without_its_extra_is_e013_alone() -> None:
    with without("confirm"), override_settings(FRISIAN_MCP={"CONFIRM": ["destroy"]}):
        found = check_extras()
    assert [m.id for m in found] == ["frisian_mcp.E013"]
    assert "run unconfirmed" in found[0].msg


# -- W015: "auto" would choose dispatchers, but none are installed --------------


@pytest.mark.parametrize(
    ("options", "extras", "ids"),
    [
        ({"DISPATCHER_THRESHOLD": 10}, ["dispatchers"], ["frisian_mcp.W015"]),
        ({"DISPATCHER_THRESHOLD": 10}, [], []),  # installed: dispatchers
        ({"DISPATCHER_THRESHOLD": 10, "TOOL_LAYOUT": "flat"}, ["dispatchers"], []),
        ({}, ["dispatchers"], []),  # under the threshold: flat either way
    ],
)
def test_auto_without_dispatchers_over_the_threshold_is_w015(
    options: dict[str, Any], extras: list[str], ids: list[str]
) -> None:
    with without(*extras), override_settings(FRISIAN_MCP=options):
        found = [m for m in check_tools() if m.id == "frisian_mcp.W015"]
        tools = len(get_registry())
    assert [m.id for m in found] == ids
    if found:
        assert f"has {tools} tools, more than DISPATCHER_THRESHOLD (10)" in found[0].msg


def test_the_check_command_names_a_missing_extra(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with without("fleet"), override_settings(FRISIAN_MCP={"CACHE": "default"}):
        call_command("check")
    assert "frisian_mcp.W014" in capsys.readouterr().err


# -- a project of the release before the extras ---------------------------------

#: What the previous release's project does after upgrading: check, then
#: serve a listing and a call, in a fresh process of its own settings.
SCRIPT = """
import django, io, json
django.setup()
from django.core.management import call_command
call_command("migrate", run_syncdb=True, verbosity=0)
out = io.StringIO()
call_command("check", stdout=out, stderr=out)
from frisian_mcp.contrib.testing import MCPTestClient
mcp = MCPTestClient(); mcp.initialize()
listed = mcp.list_tools()
found = mcp.call_tool("testapp__stats__get", {})["structuredContent"]
print(json.dumps({"check": out.getvalue(), "listed": len(listed), "found": found}))
"""


@pytest.mark.subprocess
def test_a_project_of_the_previous_release_is_told_and_keeps_serving() -> None:
    result = last_json(SCRIPT, "tests.settings_previous")
    report = result["check"]
    for key in ("CACHE", "DISPATCHER_THRESHOLD", "DISPATCHER_GROUP_BY", "OAUTH"):
        assert f"(frisian_mcp.W014) FRISIAN_MCP[{key!r}]" in report, report
    assert "frisian_mcp.W015" in report
    assert "PERMISSION_MODELS" not in report  # the core reads it now
    assert result["listed"] > 10  # flat, every tool
    assert result["found"] == {"books": 0, "publishers": 0}


def test_the_previous_release_settings_install_no_extra() -> None:
    from tests import settings_previous

    found = [a for a in settings_previous.INSTALLED_APPS if a.startswith("frisian")]
    assert found == ["frisian_mcp"]
    assert settings.INSTALLED_APPS != settings_previous.INSTALLED_APPS


#: A project that names an extra's hook in CALL_HOOKS but never installed the
#: extra: the hook reads its rows (declared by the extra's package), the
#: endpoint serves, and check says W014.
HOOKS_SCRIPT = """
import django, io, json
django.setup()
from django.core.management import call_command
from django.test import override_settings
call_command("migrate", run_syncdb=True, verbosity=0)
hooks = [
    "frisian_mcp.contrib.files.hooks.FileHook",
    "frisian_mcp.contrib.confirm.hooks.ConfirmationHook",
]
with override_settings(FRISIAN_MCP={"REQUIRE_AUTHENTICATION": False, "CALL_HOOKS": hooks}):
    out = io.StringIO()
    call_command("check", stdout=out, stderr=out)
    from frisian_mcp.conf import mcp_settings
    from frisian_mcp.contrib.testing import MCPTestClient
    mcp = MCPTestClient(); mcp.initialize()
    found = mcp.call_tool("testapp__stats__get", {})["structuredContent"]
    rows = [mcp_settings.FILE_MAX_BYTES, mcp_settings.CONFIRM, mcp_settings.CONFIRM_MAX_AGE]
print(json.dumps({"check": out.getvalue(), "found": found, "rows": rows}))
"""


@pytest.mark.subprocess
def test_a_hook_named_without_its_extra_installed_reads_its_rows() -> None:
    result = last_json(HOOKS_SCRIPT, "tests.settings_previous")
    assert "(frisian_mcp.W014) FRISIAN_MCP['CALL_HOOKS']" in result["check"]
    assert result["found"] == {"books": 0, "publishers": 0}
    assert result["rows"] == [4_194_304, [], 300]
