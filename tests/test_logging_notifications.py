"""Log messages to the client, and ``logging/setLevel`` (ADR 0044, issue 28 item 4).

Only frisian_mcp's own warnings about a call are sent (here: arguments sent
unchecked, ADR 0030), by name and never by value, on the response's own SSE
body before the response, and only to a client that takes SSE and set a
level that admits ``warning``: ``logging/setLevel`` in the handshake era
(kept per caller in the cache), ``_meta`` in 2026-07-28. Everyone else is
answered as before. Over stdio the same lines go before the response.
"""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client, override_settings
from django.urls import reverse

from frisian_mcp.contrib.stdio.management.commands.frisian_mcp_stdio import _request
from frisian_mcp.contrib.stdio.server import StdioServer
from tests.hosts.l10n.models import Language, Project
from tests.test_progress import events, messages

pytestmark = pytest.mark.django_db

MODERN = "2026-07-28"
BOTH = "application/json, text/event-stream"
TOOL, ARGUMENTS = "projects__languages", {"slug": "docs", "language_code": "de"}
LEVELS = "debug, info, notice, warning, error, critical, alert, emergency"


@pytest.fixture(autouse=True)
def _host() -> Iterator[None]:
    settings = {"REQUIRE_AUTHENTICATION": False, "TOOL_LAYOUT": "flat"}
    with override_settings(ROOT_URLCONF="tests.hosts.l10n.urls", FRISIAN_MCP=settings):
        Language.objects.create(code="de", name="German")
        Project.objects.create(slug="docs", name="Docs")
        yield


@pytest.fixture
def user() -> Any:
    return get_user_model().objects.create_user("ada", password="pw")


@pytest.fixture
def signed_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def post(
    client: Client,
    method: str,
    params: dict[str, Any],
    *,
    modern: bool = False,
    accept: str = BOTH,
    level: str | None = None,
) -> Any:
    headers = {"Accept": accept, "MCP-Protocol-Version": "2025-11-25"}
    if modern:
        params = {
            **params,
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientCapabilities": {},
            },
        }
        if level is not None:
            params["_meta"]["io.modelcontextprotocol/logLevel"] = level
        headers = {"Accept": accept, "MCP-Protocol-Version": MODERN}
        headers["Mcp-Method"] = method
        if method == "tools/call":
            headers["Mcp-Name"] = params["name"]
    body = {"jsonrpc": "2.0", "id": 3, "method": method, "params": params}
    return client.post(
        reverse("frisian_mcp:endpoint"),
        data=json.dumps(body),
        content_type="application/json",
        headers=headers,
    )


def call(client: Client, **options: Any) -> Any:
    return post(client, "tools/call", {"name": TOOL, "arguments": ARGUMENTS}, **options)


def set_level(client: Client, level: Any) -> Any:
    return post(client, "logging/setLevel", {"level": level})


WARNING = {
    "jsonrpc": "2.0",
    "method": "notifications/message",
    "params": {
        "level": "warning",
        "logger": "frisian_mcp",
        "data": {
            "code": "unchecked_arguments",
            "message": "The tool projects__languages sent arguments its schema "
            "does not declare to its view unchecked.",
            "arguments": ["language_code"],
        },
    },
}


def test_set_level_answers_empty_and_the_warning_comes_before_the_response(
    signed_in: Client,
) -> None:
    answer = set_level(signed_in, "warning")
    assert answer.json() == {"jsonrpc": "2.0", "id": 3, "result": {}}
    response = call(signed_in)  # another request: the level was kept
    assert response["Content-Type"] == "text/event-stream"
    assert response["X-Accel-Buffering"] == "no"
    found = events(response.content)
    assert found[0]["id"]  # the handshake era's priming event
    assert found[0]["data"] == ""
    sent = messages(response.content)
    assert sent[0] == WARNING
    assert sent[1]["id"] == 3
    assert sent[1]["result"]["structuredContent"]["unchecked"] == ["language_code"]
    assert len(sent) == 2
    assert '"de"' not in json.dumps(sent[0])


@pytest.mark.parametrize("level", ["debug", "info", "notice", "warning"])
def test_levels_that_admit_warning_send_it(signed_in: Client, level: str) -> None:
    set_level(signed_in, level)
    assert messages(call(signed_in).content)[0] == WARNING


@pytest.mark.parametrize("level", ["error", "critical", "alert", "emergency"])
def test_levels_above_warning_send_nothing(signed_in: Client, level: str) -> None:
    set_level(signed_in, level)
    response = call(signed_in)
    assert response["Content-Type"] == "application/json"
    assert response.json()["result"]["isError"] is False


@pytest.mark.parametrize("level", ["verbose", "WARNING", 3, None, ["info"]])
def test_an_unknown_level_is_invalid_params_naming_the_levels(
    signed_in: Client, level: Any
) -> None:
    error = set_level(signed_in, level).json()["error"]
    assert error["code"] == -32602
    assert error["message"] == f"Invalid params: level must be one of {LEVELS}."
    response = call(signed_in)  # nothing kept
    assert response["Content-Type"] == "application/json"


def test_nothing_is_sent_until_a_level_is_set(
    signed_in: Client, caplog: pytest.LogCaptureFixture
) -> None:
    """And the warning goes to the Python logger all the same, by name."""
    with caplog.at_level(logging.WARNING, logger="frisian_mcp"):
        response = call(signed_in)
    assert response["Content-Type"] == "application/json"
    assert response.json()["result"]["structuredContent"]["unchecked"] == [
        "language_code"
    ]
    logged = [r.getMessage() for r in caplog.records if r.name == "frisian_mcp"]
    assert logged == [
        "The tool projects__languages sent arguments its schema does not "
        "declare to its view unchecked. (unchecked_arguments): language_code"
    ]


def test_a_client_that_takes_only_json_gets_json(signed_in: Client) -> None:
    set_level(signed_in, "warning")
    response = call(signed_in, accept="application/json")
    assert response["Content-Type"] == "application/json"
    assert response.json()["result"]["isError"] is False


def test_an_anonymous_level_is_answered_and_not_kept() -> None:
    client = Client()
    assert set_level(client, "debug").json()["result"] == {}
    assert call(client)["Content-Type"] == "application/json"


def test_the_level_is_per_caller(signed_in: Client) -> None:
    set_level(signed_in, "warning")
    other = Client()
    other.force_login(get_user_model().objects.create_user("bob", password="pw"))
    assert call(other)["Content-Type"] == "application/json"
    assert call(signed_in)["Content-Type"] == "text/event-stream"


def test_a_call_without_warnings_is_answered_as_before(signed_in: Client) -> None:
    set_level(signed_in, "debug")
    params = {"name": "projects__list", "arguments": {}}
    response = post(signed_in, "tools/call", params)
    assert response["Content-Type"] == "application/json"


def test_2026_07_28_takes_the_level_from_meta() -> None:
    response = call(Client(), modern=True, level="warning")
    assert response["Content-Type"] == "text/event-stream"
    assert "id" not in events(response.content)[0]  # no priming event
    sent = messages(response.content)
    assert sent[0] == WARNING
    assert sent[1]["result"]["resultType"] == "complete"


def test_2026_07_28_sends_nothing_without_a_level() -> None:
    response = call(Client(), modern=True)
    assert response["Content-Type"] == "application/json"


def test_2026_07_28_refuses_an_unknown_level() -> None:
    response = call(Client(), modern=True, level="loud")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == -32602
    assert LEVELS in error["message"]
    assert "loud" not in error["message"]


def test_2026_07_28_has_no_set_level() -> None:
    response = post(Client(), "logging/setLevel", {"level": "info"}, modern=True)
    assert response.status_code == 404
    assert response.json()["error"]["code"] == -32601


def test_the_capability_is_declared(signed_in: Client) -> None:
    params = {"protocolVersion": "2025-11-25", "capabilities": {}}
    params["clientInfo"] = {"name": "t", "version": "1"}
    result = post(signed_in, "initialize", params).json()["result"]
    assert result["capabilities"]["logging"] == {}


def _stdio(user: Any, lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Serve ``lines`` over stdio as ``user``; what stdout carried."""
    stdin = io.BytesIO(b"".join(json.dumps(m).encode() + b"\n" for m in lines))
    stdout = io.BytesIO()
    StdioServer(user, stdin, stdout, _request({"host": None})).serve()
    return [json.loads(line) for line in stdout.getvalue().splitlines()]


def _message(number: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": number, "method": method, "params": params}


INITIALIZE = _message(
    1,
    "initialize",
    {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
)


def test_stdio_keeps_the_level_and_writes_the_warning_first(user: Any) -> None:
    call_line = _message(3, "tools/call", {"name": TOOL, "arguments": ARGUMENTS})
    out = _stdio(
        user,
        [
            INITIALIZE,
            {**call_line, "id": 2},  # no level yet: the response alone
            _message(4, "logging/setLevel", {"level": "info"}),
            call_line,
        ],
    )
    assert [m.get("id", m.get("method")) for m in out] == [
        1,
        2,
        4,
        "notifications/message",
        3,
    ]
    assert out[3] == WARNING


def test_stdio_refuses_an_unknown_level(user: Any) -> None:
    out = _stdio(user, [INITIALIZE, _message(2, "logging/setLevel", {"level": "x"})])
    assert out[1]["error"]["code"] == -32602


def test_a_deprecated_operations_tool_warns_by_name(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from drf_spectacular.openapi import AutoSchema

    monkeypatch.setattr(AutoSchema, "is_deprecated", lambda self: True)
    sent = messages(call(Client(), modern=True, level="warning").content)
    assert sent[0]["params"]["data"] == {
        "code": "deprecated_tool",
        "message": "The tool projects__languages is deprecated: its operation "
        "is marked deprecated.",
        "arguments": [],
    }
    assert sent[1] == WARNING
    assert sent[2]["result"]["isError"] is False


def test_a_failing_cache_keeps_no_level_and_breaks_no_call(
    signed_in: Client, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from django.core.cache import cache

    def down(*args: Any, **kwargs: Any) -> Any:
        raise ConnectionError("refused")

    monkeypatch.setattr(cache, "get", down)
    monkeypatch.setattr(cache, "set", down)
    assert set_level(signed_in, "warning").json()["result"] == {}
    response = call(signed_in)
    assert response["Content-Type"] == "application/json"
    assert response.json()["result"]["isError"] is False
    assert "frisian_mcp: the cache failed (ConnectionError)." in caplog.messages
