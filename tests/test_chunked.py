"""Chunked request bodies: read whole, or refused with 411, never empty."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from django.core.handlers.wsgi import WSGIHandler

from demo_project.management.commands.seed_demo import DEMO_TOKEN
from frisian_mcp.hooks import request_limit
from tests.live import SERVERS, demo_database, serve

PING = json.dumps({"jsonrpc": "2.0", "id": 7, "method": "ping"}).encode()


def wsgi_post(body: bytes, **environ: Any) -> tuple[str, bytes]:
    """POST ``body`` to /mcp through Django's WSGI handler, chunked."""
    base = {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": "/mcp",
        "SERVER_NAME": "testserver",
        "SERVER_PORT": "80",
        "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(body),
        "CONTENT_TYPE": "application/json",
        "HTTP_ACCEPT": "application/json, text/event-stream",
        "HTTP_TRANSFER_ENCODING": "chunked",
    }
    status: list[str] = []

    def start_response(line: str, headers: Any, exc_info: Any = None) -> Any:
        status.append(line)

    chunks = WSGIHandler()({**base, **environ}, start_response)
    return status[0], b"".join(chunks)


@pytest.mark.django_db
def test_a_chunked_body_a_server_cannot_delimit_is_411() -> None:
    status, body = wsgi_post(PING)
    assert status.startswith("411")
    assert json.loads(body)["error"]["code"] == -32600


@pytest.mark.django_db
def test_a_chunked_body_the_server_delimited_is_read() -> None:
    status, body = wsgi_post(PING, **{"wsgi.input_terminated": True})
    assert status.startswith("200")
    assert json.loads(body) == {"jsonrpc": "2.0", "id": 7, "result": {}}


@pytest.mark.django_db
def test_a_chunked_body_over_the_limit_is_413() -> None:
    # The limit the endpoint applies: the files hook raises the default.
    body = b" " * (request_limit() + 1) + PING
    status, _ = wsgi_post(body, **{"wsgi.input_terminated": True})
    assert status.startswith("413")


@pytest.fixture(scope="module", params=SERVERS)
def server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """The demo under gunicorn (WSGI, de-chunks) and uvicorn (ASGI, whole bodies)."""
    kind: str = request.param
    tmp: Path = tmp_path_factory.mktemp(f"chunked-{kind}")
    log = tmp / "server.log"
    with (
        demo_database(tmp, f"chunked_{kind}") as env,
        serve(env, log, server=kind) as url,
    ):
        yield url


@pytest.mark.live
def test_the_server_reads_a_chunked_tool_call_whole(server: str) -> None:
    call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "contacts__list", "arguments": {"page_size": 2}},
    }
    data = json.dumps(call).encode()

    def pieces() -> Iterator[bytes]:  # no length known: httpx sends chunks
        yield from (data[i : i + 16] for i in range(0, len(data), 16))

    response = httpx.post(
        f"{server}/mcp",
        content=pieces(),
        headers={
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": "2025-11-25",
            "Authorization": f"Token {DEMO_TOKEN}",
        },
        timeout=10,
    )
    assert response.request.headers["Transfer-Encoding"] == "chunked"
    assert response.status_code == 200
    result = response.json()["result"]
    assert len(result["structuredContent"]["results"]) == 2
