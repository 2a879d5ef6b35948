"""A lost database connection: a clean, retryable error, nothing half-written.

Issue 22 item 6. The demo keeps its PostgreSQL connections for 60 s
(``CONN_MAX_AGE``). A connection the server ends between two calls
(``pg_terminate_backend``, as a failover or an idle-session reaper does)
made the next call answer HTTP 500, -32603, with ``"id": null``. Now: a
-32603 with ``"code": "unavailable"``, the request's id, ``recoverable``
and ``retry_after`` (HTTP 503, ``Retry-After``); and the next call works.
A connection ended in the middle of a tool call (waiting on a lock) is a
tool result with the same code, and the call's transaction is gone whole.

The demo runs under gunicorn on its own copy of the PostgreSQL database
``DATABASE_URL`` names; on SQLite, which has no connection to lose, the
module skips.
"""

from __future__ import annotations

import json
import os
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from demo_project.management.commands.seed_demo import DEMO_TOKEN
from frisian_mcp.contrib.testing import tool_error
from tests.live import demo_database, serve

pytestmark = [
    pytest.mark.live,
    pytest.mark.postgres_only,
    pytest.mark.skipif(
        urlsplit(os.environ.get("DATABASE_URL", "")).scheme
        not in ("postgres", "postgresql", "pgsql"),
        reason="needs PostgreSQL (DATABASE_URL=postgres://...)",
    ),
]

HEADERS = {
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": "2025-11-25",
    "Authorization": f"Token {DEMO_TOKEN}",
}


@dataclass
class Server:
    """The demo under gunicorn, and its database."""

    base: str
    dsn: str
    log: Path

    def call(self, request_id: Any, name: str, arguments: dict[str, Any]) -> Any:
        """POST one ``tools/call``; the HTTP response."""
        body = {
            "jsonrpc": "2.0",
            "id": request_id,
            "method": "tools/call",
            "params": {"name": name, "arguments": arguments},
        }
        return httpx.post(f"{self.base}/mcp", json=body, headers=HEADERS, timeout=30)

    def rows(self, sql: str, *params: Any) -> list[tuple[Any, ...]]:
        import psycopg

        with psycopg.connect(self.dsn) as conn:
            return conn.execute(sql, params).fetchall()

    def emails(self, prefix: str) -> list[str]:
        found = self.rows(
            "SELECT email FROM contacts_contact WHERE email LIKE %s ORDER BY email",
            f"{prefix}%",
        )
        return [email for (email,) in found]

    def kill(self, *, waiting: bool = False) -> int:
        """End the server's connections (only those waiting on a lock)."""
        condition = "AND wait_event_type = 'Lock'" if waiting else ""
        ended = self.rows(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            f"WHERE datname = current_database() AND pid <> pg_backend_pid() {condition}"
        )
        return sum(1 for (done,) in ended if done)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    tmp = tmp_path_factory.mktemp("lost-database")
    log = tmp / "server.log"
    with demo_database(tmp, "lost_db") as env:
        # The demo's default, said out loud: connections outlive a request.
        env = {**env, "DJANGO_CONN_MAX_AGE": "60"}
        with serve(env, log) as base:
            yield Server(base, _dsn(env["DATABASE_URL"]), log)


def _dsn(url: str) -> str:
    return urlsplit(url)._replace(scheme="postgresql").geturl()


def _unique(tag: str) -> str:
    return f"lost-{tag}-{uuid.uuid4().hex[:8]}"


def test_a_connection_ended_between_calls_is_a_retryable_error(
    server: Server,
) -> None:
    assert server.call(1, "contacts__list", {"page_size": 1}).status_code == 200
    assert server.kill() >= 1
    prefix = _unique("between")
    email = f"{prefix}@example.com"

    response = server.call("call-7", "contacts__create", {"email": email})

    assert response.status_code == 503, response.text
    assert response.headers["Retry-After"] == "1"
    body = response.json()
    assert body["id"] == "call-7"
    error = body["error"]
    assert error["code"] == -32603
    assert error["data"]["code"] == "unavailable"
    assert error["data"]["recoverable"] is True
    assert error["data"]["retry_after"] == 1
    assert email not in response.text
    assert server.emails(prefix) == []
    # The broken connection was closed: the same call now goes through.
    again = server.call("call-8", "contacts__create", {"email": email})
    assert again.status_code == 200, again.text
    assert again.json()["result"]["isError"] is False
    assert server.emails(prefix) == [email]


class Blocker:
    """A second session holding a lock the server's next query waits on."""

    def __init__(self, server: Server, statement: str, *params: Any) -> None:
        import psycopg

        self.server = server
        self.conn = psycopg.connect(server.dsn)  # a transaction until rollback
        self.conn.execute(statement, params)

    def cut_while_waiting(self, call: Any) -> Any:
        """Run ``call`` in a thread; end the server's connection once it
        waits on this lock; return what ``call`` returned."""
        answers: list[Any] = []
        thread = threading.Thread(target=lambda: answers.append(call()))
        thread.start()
        try:
            deadline = time.monotonic() + 20
            while not self.server.kill(waiting=True):
                assert time.monotonic() < deadline, "the call never waited"
                assert thread.is_alive(), answers
                time.sleep(0.05)
            thread.join(30)
        finally:
            self.conn.rollback()
            self.conn.close()
        assert answers, "the call did not come back"
        return answers[0]


def _tag(name: str) -> dict[str, str]:
    return {"name": name, "slug": name}


def _assert_unavailable_result(response: Any, request_id: Any) -> None:
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["id"] == request_id
    result = body["result"]
    assert result["isError"] is True
    error = tool_error(result)
    assert error["code"] == "unavailable"
    assert error["recoverable"] is True
    assert error["retry_after"] == 1


def test_a_bulk_create_cut_halfway_writes_nothing(server: Server) -> None:
    first, second = _unique("bulk-a"), _unique("bulk-b")
    blocker = Blocker(
        server,
        "INSERT INTO dcim_tag (name, slug) VALUES (%s, %s)",
        second,
        second,
    )
    response = blocker.cut_while_waiting(
        lambda: server.call(
            3, "dcim__tags__create", {"objects": [_tag(first), _tag(second)]}
        )
    )
    _assert_unavailable_result(response, 3)
    assert first not in response.text
    names = server.rows(
        "SELECT name FROM dcim_tag WHERE name IN (%s, %s)", first, second
    )
    assert names == []  # the first item's row went with the transaction
    again = server.call(
        4, "dcim__tags__create", {"objects": [_tag(first), _tag(second)]}
    )
    assert again.json()["result"]["isError"] is False, again.text


def test_a_read_cut_while_it_waits_is_unavailable_not_refused(server: Server) -> None:
    blocker = Blocker(server, "LOCK TABLE contacts_contact IN ACCESS EXCLUSIVE MODE")
    response = blocker.cut_while_waiting(
        lambda: server.call("r", "contacts__list", {"page_size": 1})
    )
    _assert_unavailable_result(response, "r")
    again = server.call("r2", "contacts__list", {"page_size": 1})
    assert again.json()["result"]["isError"] is False, again.text


def _end_this_process_connection() -> None:
    """End the test's own Django connection from another session."""
    import psycopg
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        (pid,) = cursor.fetchone()
    dsn = _dsn(os.environ["DATABASE_URL"])
    dsn = urlsplit(dsn)._replace(path=f"/{connection.settings_dict['NAME']}").geturl()
    with psycopg.connect(dsn, autocommit=True) as other:
        other.execute("SELECT pg_terminate_backend(%s)", (pid,))


@pytest.mark.django_db(transaction=True)
def test_a_lost_connection_is_closed_where_no_request_cycle_runs() -> None:
    """Django's test client (like a stdio server) runs no request cycle
    that would close the broken connection: frisian_mcp closes it."""
    from frisian_mcp.contrib.testing import MCPTestClient

    mcp = MCPTestClient()
    mcp.initialize()
    assert mcp.call_tool("contacts__list", {})["isError"] is False
    _end_this_process_connection()

    lost = mcp.call_tool("contacts__list", {})
    assert lost["isError"] is True
    assert tool_error(lost)["code"] == "unavailable"
    assert mcp.call_tool("contacts__list", {})["isError"] is False


@pytest.mark.django_db(transaction=True)
def test_a_connection_lost_before_a_tool_runs_is_503_in_process() -> None:
    from django.contrib.auth.models import User
    from django.test import Client, override_settings
    from rest_framework.authtoken.models import Token

    key = Token.objects.create(user=User.objects.create_user("lost")).key
    options = {
        "REQUIRE_AUTHENTICATION": True,
        "AUTHENTICATION_CLASSES": ["rest_framework.authentication.TokenAuthentication"],
    }
    body = {"jsonrpc": "2.0", "id": "t-1", "method": "tools/list"}
    with override_settings(FRISIAN_MCP=options):
        _end_this_process_connection()
        response = Client().post(
            "/mcp",
            json.dumps(body),
            content_type="application/json",
            headers={"Authorization": f"Token {key}"},
        )
        assert response.status_code == 503
        assert response["Retry-After"] == "1"
        answer = response.json()
        assert answer["id"] == "t-1"
        assert answer["error"]["data"]["code"] == "unavailable"
        again = Client().post(
            "/mcp",
            json.dumps(body),
            content_type="application/json",
            headers={"Authorization": f"Token {key}"},
        )
        assert again.status_code == 200, again.content


def _cut_this_process_socket() -> None:
    """Cut the test's own connection's socket, as a network failure does:
    the driver's error then carries no SQLSTATE."""
    import socket

    from django.db import connection

    fd = connection.connection.fileno()
    with socket.socket(fileno=os.dup(fd)) as cut:
        cut.shutdown(socket.SHUT_RDWR)


@pytest.mark.django_db(transaction=True)
def test_a_connection_lost_inside_a_calls_block_is_still_lost_after_it() -> None:
    """Found by the fleet bench's pg-terminate fault (issue 29): a bulk
    create cut mid-transaction was a 500. The driver's error has no
    SQLSTATE; Django's rollback fails, closes the connection, and leaving
    the block reconnects, so the loss must be decided inside it."""
    from django.db import OperationalError

    from demo_project.contacts.models import Contact
    from frisian_mcp import invocation

    def cut_halfway() -> None:
        with invocation._transaction(None, "default", True):
            Contact.objects.create(first_name="before")
            _cut_this_process_socket()
            Contact.objects.create(first_name="after")

    with pytest.raises(OperationalError) as info:
        cut_halfway()
    assert invocation.release_if_lost(info.value)
    assert Contact.objects.count() == 0
