"""A chunked body refused with 411 closes the connection (issue 22 item 5).

Django's development server does not de-chunk request bodies: it hands the
application an empty body and leaves the chunks unread on the connection.
frisian_mcp refuses such a request with 411, but the server kept the
connection open and parsed the unread body as the connection's next
request: a second request hidden in the body ran (request smuggling). The
411 now goes out without a Content-Length, so the server answers
``Connection: close`` and reads nothing more.

Sent over a raw socket to ``manage.py runserver`` in a subprocess.
"""

from __future__ import annotations

import json
import socket
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from demo_project.management.commands.seed_demo import DEMO_TOKEN
from tests.live import count_contacts, demo_database, free_port, serve

pytestmark = pytest.mark.live


@pytest.fixture(scope="module")
def runserver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    tmp: Path = tmp_path_factory.mktemp("smuggled")
    with (
        demo_database(tmp, "smuggled") as env,
        serve(env, tmp / "server.log", server="runserver", port=free_port()) as url,
    ):
        yield url


def _create(email: str, host: str) -> bytes:
    """A whole ``contacts__create`` request, as it would be sent on its own."""
    body = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "contacts__create", "arguments": {"email": email}},
        }
    ).encode()
    head = (
        f"POST /mcp HTTP/1.1\r\nHost: {host}\r\n"
        "Content-Type: application/json\r\nAccept: application/json\r\n"
        f"Authorization: Token {DEMO_TOKEN}\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    )
    return head.encode() + body


def test_a_request_hidden_in_a_refused_chunked_body_never_runs(runserver: str) -> None:
    host = urlsplit(runserver).netloc
    email = f"smuggled-{uuid.uuid4().hex[:8]}@example.com"
    outer = (
        f"POST /mcp HTTP/1.1\r\nHost: {host}\r\n"
        "Content-Type: application/json\r\nAccept: application/json\r\n"
        f"Authorization: Token {DEMO_TOKEN}\r\n"
        "Transfer-Encoding: chunked\r\n\r\n"
    ).encode()
    with socket.create_connection(("127.0.0.1", urlsplit(runserver).port or 80)) as s:
        s.settimeout(5)
        s.sendall(outer + _create(email, host))
        received, closed = b"", False
        try:
            while chunk := s.recv(65536):
                received += chunk
            closed = True
        except ConnectionResetError:
            closed = True  # closed with the hidden request unread
        except TimeoutError:
            pass  # kept open, waiting for a next request
    assert closed, received
    text = received.decode("latin-1")
    assert count_contacts(runserver, email) == 0, text
    assert text.startswith("HTTP/1.1 411 "), text
    assert text.count("HTTP/1.1 ") == 1, text  # one answer: the 411 only
    head, _, body = text.partition("\r\n\r\n")
    assert "connection: close" in head.lower()
    assert '"code":-32600' in body
