"""The MCP Inspector's CLI against the live demo (issue 26 item 1).

The Inspector (2.12) checks the ``structuredContent`` of every ``tools/call``
result against the tool's outputSchema, error results included, and fails
the call with the schema's complaint ("data must have required property
'deleted'") where it does not fit (ADR 0038). Its CLI is run here, as a
user would run it, against the demo served by gunicorn: a create, a list
page, a delete in validate mode, a delete that asks for confirmation, the
confirmed delete and a retrieve of the row it removed, in both protocol
eras. An answer is one the Inspector shows: exit code 0, or 5 for an
``isError`` result (``tool_is_error``); any other exit is its refusal.

The Inspector is installed with npm once into a cache outside the
repository (``$XDG_CACHE_HOME`` or ``~/.cache``, ``frisian_mcp/``). Without
``node`` and ``npm`` the test skips, unless ``FRISIAN_MCP_REQUIRE_NODE`` is
set, as in CI (``.ci/run``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from demo_project.management.commands.seed_demo import DEMO_TOKEN
from tests.live import ROOT, demo_database, serve

pytestmark = pytest.mark.live

PACKAGE = "@modelcontextprotocol/inspector@2.12.0"
#: The Inspector's exit code for an ``isError`` result it showed.
TOOL_ERROR = 5
_CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
CACHE = _CACHE / "frisian_mcp" / "inspector-2.12.0"


def _node_tools() -> tuple[str, str]:
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        message = "node and npm are needed to run the MCP Inspector's CLI"
        if os.environ.get("FRISIAN_MCP_REQUIRE_NODE"):
            pytest.fail(message)
        pytest.skip(message)
    return node, npm


@pytest.fixture(scope="module")
def inspector() -> list[str]:
    """The command that starts the Inspector, installed on first use by
    the benches' ``npm_install`` (bench/_common.py)."""
    node, npm = _node_tools()
    launcher = CACHE / "node_modules" / ".bin" / "mcp-inspector"
    if not launcher.exists():
        sys.path.insert(0, str(ROOT / "bench"))
        try:
            from _common import BenchError, npm_install
        finally:
            sys.path.remove(str(ROOT / "bench"))
        try:
            npm_install(npm, (PACKAGE,), CACHE, timeout=300)
        except BenchError as exc:
            pytest.fail(str(exc))
    return [node, str(launcher.resolve())]


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The demo's endpoint URL, served by gunicorn on a fresh database."""
    tmp = tmp_path_factory.mktemp("inspector")
    log = tmp / "server.log"
    with demo_database(tmp, "inspector") as env, serve(env, log) as base:
        yield base + "/mcp"


def call(inspector: list[str], url: str, era: str, tool: str, **arguments: Any) -> Any:
    """``tools/call`` through the Inspector's CLI; the result it showed."""
    command = [
        *inspector,
        *("--cli", url, "--transport", "http", "--protocol-era", era),
        *("--method", "tools/call", "--tool-name", tool),
        *("--tool-args-json", json.dumps(arguments)),
        *("--header", f"Authorization: Token {DEMO_TOKEN}"),
        *("--format", "json"),
    ]
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=60, check=False
    )
    where = f"{tool} ({era}): exit {done.returncode}\n{done.stderr}"
    assert done.returncode in (0, TOOL_ERROR), where
    if done.returncode == TOOL_ERROR:
        assert json.loads(done.stderr)["error"]["code"] == "tool_is_error", where
    return json.loads(done.stdout)["result"]


def _error(result: Any) -> Any:
    assert result["isError"] is True, result
    assert "structuredContent" not in result, result
    return json.loads(result["content"][0]["text"])["error"]


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_the_inspector_shows_every_answer(
    inspector: list[str], demo: str, era: str
) -> None:
    made = call(inspector, demo, era, "contacts__create", email=f"{era}@example.org")
    assert made["isError"] is False, made
    key = {"id": made["structuredContent"]["id"]}

    page = call(inspector, demo, era, "contacts__list", page_size=1)
    assert page["structuredContent"]["has_more"] is True, page

    checked = call(inspector, demo, era, "contacts__destroy", **key, mode="validate")
    assert checked["structuredContent"]["validation"]["action"] == "delete", checked

    asked = _error(call(inspector, demo, era, "contacts__destroy", **key))
    assert asked["code"] == "confirmation_required", asked
    assert asked["summary"]["message"].startswith("Delete contact"), asked

    confirm = asked["confirm"]
    done = call(inspector, demo, era, "contacts__destroy", **key, confirm=confirm)
    assert done["structuredContent"] == {"deleted": True}, done

    gone = _error(call(inspector, demo, era, "contacts__retrieve", **key))
    assert gone["code"] == "not_found", gone
