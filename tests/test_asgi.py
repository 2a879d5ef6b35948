"""The endpoint under ASGI: Django's ``ASGIHandler`` in process, no server.

Django runs the endpoint, a sync view, in a thread of its own
(``sync_to_async``), after reading the whole body from ``http.request``
messages: a body sent in pieces without Content-Length (a chunked request)
is read whole, and the replies are rendered as under WSGI. The tests use
transactions (the view's thread has its own database connection). The same
endpoint under uvicorn: tests/test_e2e_sdk.py and tests/test_chunked.py.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from typing import Any

import pytest
from django.core.handlers.asgi import ASGIHandler

from demo_project.contacts.models import Contact
from frisian_mcp.hooks import request_limit

pytestmark = pytest.mark.django_db(transaction=True)

PING = json.dumps({"jsonrpc": "2.0", "id": 7, "method": "ping"}).encode()
JSON_HEADERS = {
    "content-type": "application/json",
    "accept": "application/json, text/event-stream",
    "mcp-protocol-version": "2025-11-25",
}


def asgi_post(
    pieces: list[bytes], headers: dict[str, str]
) -> tuple[int, dict[str, str], bytes]:
    """POST ``pieces`` to /mcp through Django's ASGI handler.

    Returns the status, the headers and the body of the reply.
    """
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/mcp",
        "raw_path": b"/mcp",
        "query_string": b"",
        "root_path": "",
        "headers": [(k.encode(), v.encode()) for k, v in headers.items()],
        "client": ("127.0.0.1", 50000),
        "server": ("testserver", 80),
    }
    messages = [
        {"type": "http.request", "body": piece, "more_body": i < len(pieces) - 1}
        for i, piece in enumerate(pieces)
    ]
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        if messages:
            return messages.pop(0)
        # The client stays connected: Django cancels the view on a disconnect.
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    async def send(message: Mapping[str, Any]) -> None:
        sent.append(dict(message))

    asyncio.run(ASGIHandler()(scope, receive, send))
    start = sent[0]
    reply_headers = {k.decode(): v.decode() for k, v in start["headers"]}
    body = b"".join(m.get("body", b"") for m in sent[1:])
    return start["status"], reply_headers, body


def test_a_request_is_answered_under_asgi() -> None:
    headers = {**JSON_HEADERS, "content-length": str(len(PING))}
    status, reply_headers, body = asgi_post([PING], headers)
    assert status == 200
    assert reply_headers["Content-Type"] == "application/json"
    assert json.loads(body) == {"jsonrpc": "2.0", "id": 7, "result": {}}


def test_a_body_in_pieces_without_length_is_read_whole_and_runs() -> None:
    call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {
            "name": "contacts__create",
            "arguments": {"email": "ada@example.com", "first_name": "Ada"},
        },
    }
    data = json.dumps(call).encode()
    pieces = [data[i : i + 16] for i in range(0, len(data), 16)]
    headers = {**JSON_HEADERS, "transfer-encoding": "chunked"}
    status, _, body = asgi_post(pieces, headers)
    assert status == 200
    result = json.loads(body)["result"]
    assert result["structuredContent"]["email"] == "ada@example.com"
    assert Contact.objects.filter(email="ada@example.com", first_name="Ada").exists()


def test_a_body_in_pieces_over_the_limit_is_413() -> None:
    # The limit the endpoint applies: the files hook raises the default.
    pieces = [b" " * request_limit(), b" " * 1024, PING]
    headers = {**JSON_HEADERS, "transfer-encoding": "chunked"}
    status, _, body = asgi_post(pieces, headers)
    assert status == 413
    assert json.loads(body)["error"]["code"] == -32600


def test_an_sse_only_client_gets_one_event_under_asgi() -> None:
    headers = {
        **JSON_HEADERS,
        "accept": "text/event-stream",
        "content-length": str(len(PING)),
    }
    status, reply_headers, body = asgi_post([PING], headers)
    assert status == 200
    assert reply_headers["Content-Type"] == "text/event-stream"
    events = body.decode().split("\n\n")
    assert events[0].startswith("id: ")  # the 2025-11-25 priming event
    assert events[1] == 'event: message\ndata: {"jsonrpc":"2.0","id":7,"result":{}}'
    assert events[2:] == [""]
