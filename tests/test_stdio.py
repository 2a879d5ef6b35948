"""stdio for desktop clients (issue 22 item 3), with the official SDK's client.

``manage.py frisian_mcp_stdio --user NAME`` runs in a subprocess on a
migrated, seeded demo database (tests/live.py), as a desktop client starts
it. The demo confirms deletes and logs its audit to stderr: the SDK client
answers the confirmation question (``elicitation/create`` within the call in
the handshake era; ``input_required`` in 2026-07-28), and stderr holds one
audit record per message, stdout nothing but messages.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, types
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.live import demo_database

pytestmark = pytest.mark.subprocess
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """The environment of a demo database the commands serve."""
    with demo_database(tmp_path_factory.mktemp("stdio"), "stdio") as environ:
        yield dict(environ)


def _run(
    env: dict[str, str],
    body: Callable[[Client], Awaitable[None]],
    *,
    mode: str = "legacy",
    user: str = "demo",
    **options: Any,
) -> list[dict[str, Any]]:
    """Run ``body`` with an SDK client on the command; its audit records."""
    server = StdioServerParameters(
        command=sys.executable,
        args=["manage.py", "frisian_mcp_stdio", "--user", user],
        env=env,
        cwd=ROOT,
    )
    with (Path(env["XDG_RUNTIME_DIR"]) / "stderr.log").open("w+") as errlog:

        async def main() -> None:
            with anyio.fail_after(60):
                async with Client(
                    stdio_client(server, errlog), mode=mode, **options
                ) as c:
                    await body(c)

        anyio.run(main)
        errlog.seek(0)
        lines = errlog.read().splitlines()
    return [json.loads(line) for line in lines if line.startswith('{"time"')]


def _payload(result: Any) -> dict[str, Any]:
    assert isinstance(result.structured_content, dict)
    assert json.loads(result.content[0].text) == result.structured_content
    return result.structured_content


def _error(result: Any) -> Any:
    """The error of an error result: text only, for a tool with an
    outputSchema (ADR 0038)."""
    assert result.is_error, result
    assert result.structured_content is None, result
    return json.loads(result.content[0].text)["error"]


def _elicit(accept: bool, asked: list[str]) -> Any:
    async def elicit(context: Any, params: types.ElicitRequestParams) -> Any:
        asked.append(params.message)
        if accept:
            return types.ElicitResult(action="accept", content={"confirm": True})
        return types.ElicitResult(action="decline")

    return elicit


@pytest.mark.parametrize("mode", ["legacy", "auto"])
@pytest.mark.parametrize("accept", [True, False])
def test_a_desktop_client_confirms_a_delete(
    env: dict[str, str], mode: str, accept: bool
) -> None:
    asked: list[str] = []

    async def body(client: Client) -> None:
        names = {tool.name for tool in (await client.list_tools()).tools}
        assert {"contacts__create", "contacts__destroy"} <= names
        new = {"email": "zqx-desk@example.com", "first_name": f"Desk{mode}{accept}"}
        created = _payload(await client.call_tool("contacts__create", new))
        key = {"id": created["id"]}
        result = await client.call_tool("contacts__destroy", key)
        assert result.is_error is not accept, result
        if not accept:
            assert _error(result)["code"] == "confirmation_declined"
        found = await client.call_tool("contacts__retrieve", key)
        assert found.is_error is accept

    records = _run(env, body, mode=mode, elicitation_callback=_elicit(accept, asked))
    assert asked == [f"Delete contact «Desk{mode}{accept}»?"]
    calls = [r for r in records if r["method"] == "tools/call"]
    # 2026-07-28 asks with input_required, and the client calls again (MRTR).
    asks = [{"tool": "contacts__destroy", "outcome": "input_required"}]
    assert [{k: r[k] for k in ("tool", "outcome")} for r in calls[1:-2]] == (
        asks if mode == "auto" else []
    )
    calls = [calls[0], *calls[-2:]]
    assert [r["tool"] for r in calls] == [
        "contacts__create",
        "contacts__destroy",
        "contacts__retrieve",
    ]
    assert all(r["transport"] == "stdio" and r["username"] == "demo" for r in records)
    assert all(r["auth"] == "stdio" for r in records)
    assert calls[0]["rows_created"] == 1
    destroy = calls[1]
    expected = ("ok", 1) if accept else ("confirmation_declined", 0)
    assert (destroy["outcome"], destroy["rows_deleted"]) == expected
    assert destroy["client_name"]  # the session keeps initialize's clientInfo
    assert "zqx" not in json.dumps(records)


def test_without_elicitation_the_token_confirms(env: dict[str, str]) -> None:
    async def body(client: Client) -> None:
        new = {"email": "token@example.com", "first_name": "Token"}
        key = {"id": _payload(await client.call_tool("contacts__create", new))["id"]}
        asked = _error(await client.call_tool("contacts__destroy", key))
        assert asked["code"] == "confirmation_required"
        done = await client.call_tool(
            "contacts__destroy", {**key, "confirm": asked["confirm"]}
        )
        assert not done.is_error, done

    records = _run(env, body)
    outcomes = [r["outcome"] for r in records if r["tool"] == "contacts__destroy"]
    assert outcomes == ["confirmation_required", "ok"]


@pytest.mark.parametrize(("user", "allowed"), [("demo", False), ("staff", True)])
def test_calls_run_with_the_users_permissions(
    env: dict[str, str], user: str, allowed: bool
) -> None:
    """The demo user may do everything but delete sites; staff may."""

    async def body(client: Client) -> None:
        names = {tool.name for tool in (await client.list_tools()).tools}
        assert ("dcim__sites__destroy" in names) is allowed
        assert "dcim__sites__list" in names

    _run(env, body, user=user)


def test_stdout_carries_messages_only(env: dict[str, str]) -> None:
    lines = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {}},
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        "not json",
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    text = "\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines)
    done = subprocess.run(
        [sys.executable, "manage.py", "frisian_mcp_stdio", "--user", "demo"],
        input=text + "\n",
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=60,
        check=True,
    )
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [a.get("id") for a in answers] == [1, None, 2]
    assert answers[0]["result"]["protocolVersion"] == "2025-06-18"
    assert answers[1]["error"]["code"] == -32700
    assert answers[2]["result"]["tools"]
    assert '"logger": "frisian_mcp.audit"' in done.stderr


def test_an_unknown_user_is_refused(env: dict[str, str]) -> None:
    done = subprocess.run(
        [sys.executable, "manage.py", "frisian_mcp_stdio", "--user", "nobody"],
        input="",
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1
    assert "No user has that username" in done.stderr
    assert done.stdout == ""
