"""Concurrent writes through a multi-worker server (issues #6 and 13).

The race test: gunicorn with four sync workers serves the demo from a
throw-away PostgreSQL database, and sixteen client threads call ``/mcp`` for
a bounded time.
Twelve *writers* create contacts one at a time and in bulk and update rows:
rows of their own, and two seeded rows that all of them fight over. Four
*racers* create a site with the same unique name and slug at the same
moment, round after round; on odd rounds one of them sends it inside a bulk
body together with a site of its own. Afterwards the database is read
directly and compared with what the server answered:

* every HTTP response is a 200 holding a valid JSON-RPC 2.0 response to the
  request sent (no 5xx, no -32603);
* every id a create returned exists exactly once, every row the run wrote
  was returned to exactly one client, and the row counts add up;
* each contact holds the values of the last update its owner was told
  succeeded; a fought-over row holds the values of one successful update,
  never a mix of two;
* each race round has exactly one winner; each loser gets a ``conflict``
  tool result (the database constraint caught it) or a ``unique``
  validation error (DRF's ``UniqueValidator`` caught it), and a bulk body
  that lost leaves none of its rows behind. At least one race must have
  reached the database constraint, or the test did not test it.

PostgreSQL only: SQLite serialises writers with a database-wide lock, so
the races this test is about cannot happen there.

The load test (issue 13, item 4) runs on either database: twenty writers
start at once against a four-worker gunicorn, first over MCP, then the same
calls over REST (a bulk body as one POST per item). Each creates contacts
one at a time and in bulk, and sites (unique names: DRF reads before it
writes). On SQLite MCP must answer every call without error; on PostgreSQL
with no more errors than REST. Every contact MCP was told it created is
stored, and no other.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from django.db import connection

from demo_project.management.commands.seed_demo import CONTACT_NAMESPACE, DEMO_TOKEN
from tests.live import demo_database, serve

pytestmark = pytest.mark.live

WORKERS = 4
WRITERS = 12
RACERS = 4
#: Seconds of load; the clients stop starting calls after this.
DURATION = 8.0
HEADERS = {
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": "2025-11-25",
    "Authorization": f"Token {DEMO_TOKEN}",
}
#: Seeded contacts every writer updates.
SHARED = tuple(
    str(uuid.uuid5(CONTACT_NAMESPACE, email))
    for email in ("ada.lovelace@example.com", "grace.hopper@example.com")
)


class BadResponse(Exception):
    """A response that breaks the HTTP or JSON-RPC contract."""


@dataclass
class Server:
    """The live server and a DSN of its database."""

    base: str
    dsn: str


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A 4-worker gunicorn on a migrated, seeded throw-away database."""
    tmp = tmp_path_factory.mktemp("concurrency")
    # Named after the suite's own database, so runs against different
    # DATABASE_URLs never share one (demo_database adds the pid).
    suite_db = str(connection.settings_dict["NAME"]).removeprefix("frisian_mcp_")
    with demo_database(tmp, f"{suite_db}_conc") as env:
        env = {**env, "DJANGO_DEBUG": "0"}
        dsn = urlsplit(env["DATABASE_URL"])._replace(scheme="postgresql").geturl()
        with serve(env, tmp / "gunicorn.log", workers=WORKERS) as base:
            yield Server(base, dsn)


def query(server: Server, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    """Rows of ``sql`` on the server's database."""
    import psycopg

    with psycopg.connect(server.dsn) as conn:
        return conn.execute(sql, params).fetchall()


# -- one client ------------------------------------------------------------------


@dataclass
class Outcome:
    """What a ``tools/call`` came back with."""

    #: "ok", "tool_error" (an ``isError`` result) or "rpc_error".
    kind: str
    #: The error's ``code``: the enum value, or the JSON-RPC code.
    code: Any = None
    #: ``structuredContent`` of a result, or ``error.data`` of an error.
    data: Any = None


class Client:
    """One thread's connection to the server; checks every response."""

    def __init__(self, base: str) -> None:
        self.http = httpx.Client(base_url=base, headers=HEADERS, timeout=60)
        self.request_id = 0
        self.calls = 0

    def call(self, tool: str, arguments: dict[str, Any]) -> Outcome:
        """Call ``tool``; raise :class:`BadResponse` on a broken contract."""
        self.request_id += 1
        self.calls += 1
        body = {
            "jsonrpc": "2.0",
            "id": self.request_id,
            "method": "tools/call",
            "params": {"name": tool, "arguments": arguments},
        }
        response = self.http.post("/mcp", json=body)
        where = f"{tool} -> HTTP {response.status_code}: {response.text[:300]}"
        if response.status_code != 200:
            raise BadResponse(where)
        try:
            message = response.json()
        except ValueError:
            raise BadResponse(f"not JSON: {where}") from None
        return _outcome(message, self.request_id, where)

    def close(self) -> None:
        self.http.close()


def _outcome(message: Any, request_id: int, where: str) -> Outcome:
    """Check a JSON-RPC 2.0 response envelope and classify it."""
    if (
        not isinstance(message, dict)
        or message.get("jsonrpc") != "2.0"
        or message.get("id") != request_id
        or ("result" in message) == ("error" in message)
    ):
        raise BadResponse(f"invalid JSON-RPC response: {where}")
    if "error" in message:
        error = message["error"]
        if (
            not isinstance(error, dict)
            or type(error.get("code")) is not int
            or not isinstance(error.get("message"), str)
        ):
            raise BadResponse(f"invalid JSON-RPC error: {where}")
        data = error.get("data") or {}
        return Outcome("rpc_error", error["code"], data)
    result = message["result"]
    if (
        not isinstance(result, dict)
        or not isinstance(result.get("content"), list)
        or not isinstance(result.get("isError"), bool)
        # An error of a tool with an outputSchema is text only (ADR 0038).
        or not isinstance(result.get("structuredContent"), dict | None)
        or (result.get("structuredContent") is None and not result["isError"])
    ):
        raise BadResponse(f"invalid tools/call result: {where}")
    texts = [b.get("text") for b in result["content"] if isinstance(b, dict)]
    try:
        content = [json.loads(t) for t in texts if isinstance(t, str)]
    except ValueError:
        content = []
    if len(content) != 1 or result.get("structuredContent") not in (None, *content):
        raise BadResponse(f"text content is not the structuredContent: {where}")
    if result["isError"]:
        return Outcome("tool_error", content[0]["error"].get("code"), content[0])
    return Outcome("ok", None, content[0])


# -- the load --------------------------------------------------------------------


@dataclass
class Ledger:
    """What the server told one thread, merged after the run."""

    #: (id, email) of every contact a create returned, in order.
    created: list[tuple[str, str]] = field(default_factory=list)
    #: id -> (phone, notes) of the last successful update of an own row.
    last_update: dict[str, tuple[str, str]] = field(default_factory=dict)
    #: seeded id -> tokens of its successful updates.
    shared_updates: dict[str, set[str]] = field(default_factory=dict)
    #: (round, racer, outcome, sent a bulk body)
    races: list[tuple[int, int, Outcome, bool]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    calls: int = 0


class Load:
    """Sixteen threads against the server until the deadline."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.run = uuid.uuid4().hex[:8]
        self.ledgers: list[Ledger] = []
        self.deadline = 0.0
        self.stop = False
        self.barrier = threading.Barrier(RACERS, action=self._next_round, timeout=60)

    def _next_round(self) -> None:
        # Run by one racer while all wait, so all agree on whether to go on.
        self.stop = time.monotonic() >= self.deadline

    def go(self) -> tuple[Ledger, float]:
        """Run every thread; return the merged ledger and the seconds taken."""
        threads = [
            threading.Thread(target=self._thread, args=(self._writer, t))
            for t in range(WRITERS)
        ] + [
            threading.Thread(target=self._thread, args=(self._racer, r))
            for r in range(RACERS)
        ]
        started = time.monotonic()
        self.deadline = started + DURATION
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=DURATION + 120)
            assert not thread.is_alive(), "a client thread hung"
        seconds = time.monotonic() - started
        merged = Ledger()
        for ledger in self.ledgers:
            merged.created += ledger.created
            merged.last_update.update(ledger.last_update)
            for key, tokens in ledger.shared_updates.items():
                merged.shared_updates.setdefault(key, set()).update(tokens)
            merged.races += ledger.races
            merged.problems += ledger.problems
            merged.calls += ledger.calls
        return merged, seconds

    def _thread(self, body: Any, index: int) -> None:
        ledger = Ledger()
        self.ledgers.append(ledger)
        client = Client(self.base)
        try:
            body(client, ledger, index)
        except threading.BrokenBarrierError:
            ledger.problems.append(f"racer {index}: another racer failed")
        except Exception as exc:
            ledger.problems.append(f"thread {index}: {type(exc).__name__}: {exc}")
            if body == self._racer:
                self.barrier.abort()  # the other racers would wait forever
        finally:
            ledger.calls = client.calls
            client.close()

    def _contact(self, t: int, n: int) -> dict[str, str]:
        return {
            "email": f"conc-{self.run}-{t}-{n}@example.com",
            "first_name": f"Writer {t}",
            "last_name": f"Contact {n}",
        }

    def _writer(self, client: Client, ledger: Ledger, t: int) -> None:
        rng = random.Random(t)
        own: list[str] = []
        n = 0
        while time.monotonic() < self.deadline:
            n += 1
            roll = rng.random()
            if not own or roll < 0.35:
                sent = [self._contact(t, n)]
                outcome = client.call("contacts__create", sent[0])
                rows = [outcome.data] if outcome.kind == "ok" else []
            elif roll < 0.55:
                sent = [self._contact(t, n * 100 + i) for i in range(3)]
                outcome = client.call("contacts__create", {"objects": sent})
                rows = outcome.data.get("results") if outcome.kind == "ok" else []
            elif roll < 0.85:
                row = rng.choice(own)
                values = (f"+31 58 {t:02d} {n:06d}", f"update {t}-{n}")
                outcome = client.call(
                    "contacts__partial_update",
                    {"id": row, "phone": values[0], "notes": values[1]},
                )
                if _check_update(outcome, row, values, ledger):
                    ledger.last_update[row] = values
                continue
            else:
                row = rng.choice(SHARED)
                token = f"{t}-{n}"
                values = (f"+1 {token}", f"shared update {token}")
                outcome = client.call(
                    "contacts__partial_update",
                    {"id": row, "phone": values[0], "notes": values[1]},
                )
                if _check_update(outcome, row, values, ledger):
                    ledger.shared_updates.setdefault(row, set()).add(token)
                continue
            emails = [item["email"] for item in sent]
            if outcome.kind != "ok" or [r.get("email") for r in rows] != emails:
                ledger.problems.append(f"create failed: {outcome}")
                continue
            for row in rows:
                ledger.created.append((row["id"], row["email"]))
                own.append(row["id"])

    def _racer(self, client: Client, ledger: Ledger, r: int) -> None:
        round_ = 0
        while True:
            self.barrier.wait()
            if self.stop:
                return
            round_ += 1
            name = f"race-{self.run}-{round_}"
            site = {"name": name, "slug": name, "description": f"racer {r}"}
            bulk = r == 0 and round_ % 2 == 1
            if bulk:
                solo = f"solo-{self.run}-{round_}"
                arguments: dict[str, Any] = {
                    "objects": [site, {"name": solo, "slug": solo}]
                }
            else:
                arguments = site
            outcome = client.call("dcim__sites__create", arguments)
            ledger.races.append((round_, r, outcome, bulk))


def _check_update(
    outcome: Outcome, row: str, values: tuple[str, str], ledger: Ledger
) -> bool:
    """Whether an update succeeded and answered with what was sent."""
    data = outcome.data or {}
    if outcome.kind == "ok" and (
        data.get("id"),
        data.get("phone"),
        data.get("notes"),
    ) == (
        row,
        *values,
    ):
        return True
    ledger.problems.append(f"update failed: {outcome}")
    return False


def _is_unique_rejection(outcome: Outcome) -> bool:
    """A -32602 whose every field error is DRF's ``unique``."""
    data = outcome.data if isinstance(outcome.data, dict) else {}
    fields = data.get("fields") or []
    return (
        outcome.kind == "rpc_error"
        and outcome.code == -32602
        and data.get("code") == "validation_failed"
        and bool(fields)
        and all(f.get("code") == "unique" for f in fields)
    )


# -- the test --------------------------------------------------------------------


@pytest.mark.postgres_only
@pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="needs PostgreSQL (DATABASE_URL=postgres://...)",
)
def test_concurrent_writes_are_neither_lost_nor_duplicated(server: Server) -> None:
    contacts_before = query(server, "SELECT count(*) FROM contacts_contact")[0][0]
    sites_before = query(server, "SELECT count(*) FROM dcim_site")[0][0]
    load = Load(server.base)
    ledger, seconds = load.go()

    # No 5xx, no broken envelope, no failed create or update.
    assert ledger.problems == []
    assert ledger.calls > 16, f"only {ledger.calls} calls in {seconds:.1f} s"

    # Every returned id once; every written row returned; the counts add up.
    created = dict(ledger.created)
    assert len(created) == len(ledger.created), "one id was returned twice"
    rows = dict(
        query(
            server,
            "SELECT id::text, email FROM contacts_contact WHERE email LIKE %s",
            f"conc-{load.run}-%",
        )
    )
    assert rows == created
    contacts_after = query(server, "SELECT count(*) FROM contacts_contact")[0][0]
    assert contacts_after == contacts_before + len(created)

    # The last update each owner saw succeed is what the row holds.
    assert ledger.last_update, "no row was updated"
    stored = {
        row_id: (phone, notes)
        for row_id, phone, notes in query(
            server,
            "SELECT id::text, phone, notes FROM contacts_contact WHERE id::text = ANY(%s)",
            list(ledger.last_update),
        )
    }
    assert stored == ledger.last_update

    # A fought-over row holds one successful update whole, not a mix.
    shared = query(
        server,
        "SELECT id::text, phone, notes FROM contacts_contact WHERE id::text = ANY(%s)",
        list(ledger.shared_updates),
    )
    assert ledger.shared_updates, "no shared update succeeded"
    assert {row[0] for row in shared} == set(ledger.shared_updates)
    for row_id, phone, notes in shared:
        token = phone.removeprefix("+1 ")
        assert notes == f"shared update {token}"
        assert token in ledger.shared_updates[row_id]

    # Each race has one winner; the losers are told why, and wrote nothing.
    rounds: dict[int, list[tuple[int, Outcome, bool]]] = {}
    for round_, racer, outcome, bulk in ledger.races:
        rounds.setdefault(round_, []).append((racer, outcome, bulk))
    assert rounds, "no race was run"
    winners: dict[str, int] = {}
    solos: set[str] = set()
    conflicts = unique_rejections = 0
    for round_, entries in sorted(rounds.items()):
        assert len(entries) == RACERS
        won = [(o, bulk) for _, o, bulk in entries if o.kind == "ok"]
        assert len(won) == 1, f"round {round_}: {entries}"
        outcome, bulk = won[0]
        site = outcome.data["results"][0] if bulk else outcome.data
        winners[site["name"]] = site["id"]
        if bulk:
            solos.add(outcome.data["results"][1]["name"])
        for _, lost, _ in entries:
            if lost.kind == "ok":
                continue
            if lost.kind == "tool_error" and lost.code == "conflict":
                conflicts += 1
            elif _is_unique_rejection(lost):
                unique_rejections += 1
            else:
                pytest.fail(f"round {round_}: a lost race answered {lost}")
    stored_sites = dict(
        query(
            server,
            "SELECT name, id FROM dcim_site WHERE name LIKE %s",
            f"race-{load.run}-%",
        )
    )
    assert stored_sites == winners
    stored_solos = {
        name
        for (name,) in query(
            server,
            "SELECT name FROM dcim_site WHERE name LIKE %s",
            f"solo-{load.run}-%",
        )
    }
    assert stored_solos == solos
    sites_after = query(server, "SELECT count(*) FROM dcim_site")[0][0]
    assert sites_after == sites_before + len(winners) + len(solos)
    assert conflicts + unique_rejections == (RACERS - 1) * len(rounds)
    # The point of the races: some got past the validator to the constraint.
    assert conflicts > 0, (
        f"no race reached the database constraint in {len(rounds)} rounds "
        f"({unique_rejections} unique rejections); the conflict path was not tested"
    )


# -- load: MCP and REST writers, on either database --------------------------------

#: Clients writing at once in the load test, and rounds each runs per side
#: (``FRISIAN_MCP_LOAD_ROUNDS`` raises it for the figures in the docs).
LOAD_WRITERS = 20
LOAD_ROUNDS = int(os.environ.get("FRISIAN_MCP_LOAD_ROUNDS", "2"))
#: Contacts per bulk body; REST posts them one by one.
BULK_SIZE = 4


@dataclass
class Tally:
    """What one side of the load test was answered."""

    calls: int = 0
    errors: list[str] = field(default_factory=list)
    #: emails of the contacts the server said it created
    created: list[str] = field(default_factory=list)


@pytest.fixture(scope="module")
def load_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """A 4-worker gunicorn on a fresh demo database; yields (base, DATABASE_URL)."""
    tmp = tmp_path_factory.mktemp("load")
    suite_db = str(connection.settings_dict["NAME"]).removeprefix("frisian_mcp_")
    name = f"{suite_db}_load" if connection.vendor == "postgresql" else "load"
    with demo_database(tmp, name) as env:
        env = {**env, "DJANGO_DEBUG": "0"}
        with serve(env, tmp / "gunicorn.log", workers=WORKERS) as base:
            yield base, env["DATABASE_URL"]


def stored_emails(database_url: str, pattern: str) -> list[str]:
    """Emails of the stored contacts LIKE ``pattern``."""
    sql = "SELECT email FROM contacts_contact WHERE email LIKE {}"
    url = urlsplit(database_url)
    if url.scheme == "sqlite":
        import sqlite3

        with contextlib.closing(sqlite3.connect(url.path)) as conn:
            rows = conn.execute(sql.format("?"), (pattern,)).fetchall()
    else:
        import psycopg

        dsn = url._replace(scheme="postgresql").geturl()
        with psycopg.connect(dsn) as pg:
            rows = pg.execute(sql.format("%s"), (pattern,)).fetchall()
    return sorted(email for (email,) in rows)


def _mcp_writer(base: str, run: str, w: int, tally: Tally) -> None:
    client = Client(base)
    try:
        for n in range(LOAD_ROUNDS):
            email = f"load-{run}-mcp-{w}-{n}@example.com"
            bulk = [
                {"email": f"load-{run}-mcp-{w}-{n}-{i}@example.com"}
                for i in range(BULK_SIZE)
            ]
            site = f"load-{run}-mcp-{w}-{n}"
            calls: list[tuple[str, dict[str, Any], list[str]]] = [
                ("contacts__create", {"email": email}, [email]),
                ("contacts__create", {"objects": bulk}, [b["email"] for b in bulk]),
                ("dcim__sites__create", {"name": site, "slug": site}, []),
            ]
            for tool, arguments, emails in calls:
                tally.calls += 1
                outcome = client.call(tool, arguments)
                if outcome.kind != "ok":
                    tally.errors.append(f"{tool}: {outcome.kind} {outcome.code}")
                else:
                    tally.created += emails
    except BadResponse as exc:
        tally.errors.append(str(exc))
    finally:
        client.close()


def _rest_writer(base: str, run: str, w: int, tally: Tally) -> None:
    rest = httpx.Client(
        base_url=base, headers={"Authorization": HEADERS["Authorization"]}, timeout=60
    )
    try:
        for n in range(LOAD_ROUNDS):
            emails = [f"load-{run}-rest-{w}-{n}@example.com"] + [
                f"load-{run}-rest-{w}-{n}-{i}@example.com" for i in range(BULK_SIZE)
            ]
            site = f"load-{run}-rest-{w}-{n}"
            posts = [("/api/contacts/", {"email": e}, [e]) for e in emails]
            posts.append(("/api/dcim/sites/", {"name": site, "slug": site}, []))
            for url, body, created in posts:
                tally.calls += 1
                response = rest.post(url, json=body)
                if response.status_code != 201:
                    tally.errors.append(f"{url}: HTTP {response.status_code}")
                else:
                    tally.created += created
    except httpx.HTTPError as exc:
        tally.errors.append(f"{type(exc).__name__}: {exc}")
    finally:
        rest.close()


def _load(base: str, run: str, writer: Any) -> Tally:
    """``LOAD_WRITERS`` threads running ``writer`` at once; their merged tally."""
    tallies = [Tally() for _ in range(LOAD_WRITERS)]
    gate = threading.Barrier(LOAD_WRITERS, timeout=60)

    def go(w: int) -> None:
        gate.wait()
        writer(base, run, w, tallies[w])

    threads = [threading.Thread(target=go, args=(w,)) for w in range(LOAD_WRITERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
        assert not thread.is_alive(), "a writer hung"
    merged = Tally()
    for tally in tallies:
        merged.calls += tally.calls
        merged.errors += tally.errors
        merged.created += tally.created
    return merged


def test_twenty_concurrent_writers_get_no_more_errors_than_rest(
    load_server: tuple[str, str],
) -> None:
    base, database_url = load_server
    run = uuid.uuid4().hex[:8]
    mcp = _load(base, run, _mcp_writer)
    rest = _load(base, run, _rest_writer)
    print(  # read with -s; docs/performance.md quotes these counts
        f"\n{connection.vendor}: MCP {len(mcp.errors)} errors in {mcp.calls} calls, "
        f"REST {len(rest.errors)} in {rest.calls}; MCP errors: {mcp.errors[:5]}"
    )
    assert mcp.calls == LOAD_WRITERS * LOAD_ROUNDS * 3
    if connection.vendor == "sqlite":
        assert mcp.errors == []
    else:
        assert len(mcp.errors) <= len(rest.errors), (mcp.errors, rest.errors)
    # What MCP said it created is stored, and nothing it refused.
    assert stored_emails(database_url, f"load-{run}-mcp-%") == sorted(mcp.created)
    assert stored_emails(database_url, f"load-{run}-rest-%") == sorted(rest.created)
