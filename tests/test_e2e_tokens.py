"""Continuation tokens across worker processes (no shared state).

Two gunicorn servers serve one database, as two workers of one deployment
would: a token one of them issues must take the other to the next page. A
third server with another SECRET_KEY (another deployment) must refuse it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from demo_project.management.commands.seed_demo import DEMO_TOKEN
from tests.live import demo_database, serve

pytestmark = pytest.mark.live

HEADERS = {
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": "2025-11-25",
    "Authorization": f"Token {DEMO_TOKEN}",
}


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str, str]]:
    """Two servers sharing a database and its key, and one with another key."""
    tmp = tmp_path_factory.mktemp("tokens")
    with demo_database(tmp, "tokens") as env:
        other = {
            **env,
            "DJANGO_SECRET_KEY": "another-deployment-entirely-different-key",
        }
        with (
            serve(env, tmp / "a.log") as a,
            serve(env, tmp / "b.log") as b,
            serve(other, tmp / "c.log") as c,
        ):
            yield a, b, c


def call(base: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }
    response = httpx.post(f"{base}/mcp", json=body, headers=HEADERS, timeout=10)
    payload: dict[str, Any] = response.json()
    return payload


def test_token_from_one_process_works_in_another(servers: tuple[str, str, str]) -> None:
    a, b, _ = servers
    first = call(
        a, "contacts__list", {"page_size": 5, "filters": {"ordering": "email"}}
    )["result"]
    token = first["structuredContent"]["next_token"]
    via_b = call(b, "contacts__list", {"continuation_token": token})["result"][
        "structuredContent"
    ]
    direct = call(
        a,
        "contacts__list",
        {"page_size": 5, "page": 2, "filters": {"ordering": "email"}},
    )
    assert via_b["results"] == direct["result"]["structuredContent"]["results"]
    assert via_b["page"] == 2
    back_on_a = call(a, "contacts__list", {"continuation_token": via_b["next_token"]})
    assert back_on_a["result"]["structuredContent"]["page"] == 3


def test_token_of_another_deployment_is_refused(servers: tuple[str, str, str]) -> None:
    a, _, c = servers
    token = call(a, "contacts__list", {"page_size": 5})["result"]["structuredContent"][
        "next_token"
    ]
    refused = call(c, "contacts__list", {"continuation_token": token})
    assert refused["error"]["code"] == -32602
    assert refused["error"]["data"]["code"] == "invalid_token"
