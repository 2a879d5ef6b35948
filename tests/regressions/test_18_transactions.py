"""Issue 18 item 7: a call runs in the transaction REST would run it in.

frisian_mcp wrapped every write in a transaction of its own. A host whose
task queue runs in eager mode closed the connection and committed inside
it, so its writes failed; with a real worker, a task queued inside it read
the data from before the commit. Now a call runs as REST runs the request:
in ``ATOMIC_REQUESTS``' transaction when the database has it (unless the
view opts out), in the view's own blocks, else in autocommit (ADR 0012).
Bulk creates stay all or nothing and ``mode: "validate"`` writes nothing.

These tests commit for real (``transaction=True``): inside the test's own
transaction every block would be a savepoint and nothing would show.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connection
from django.test import Client

from frisian_mcp.contrib.testing import MCPError, MCPTestClient, tool_error
from tests.hosts.transactions import views
from tests.testapp.models import Publisher

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.urls("tests.hosts.transactions.urls"),
]

#: REST's status -> the tool call's outcome.
OUTCOMES = {201: "ok", 400: "validation_failed", 500: "internal_error"}


@pytest.fixture(params=[False, True], ids=["autocommit", "ATOMIC_REQUESTS"])
def atomic_requests(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> Iterator[bool]:
    """The database's ``ATOMIC_REQUESTS``, off and on."""
    monkeypatch.setitem(connection.settings_dict, "ATOMIC_REQUESTS", request.param)
    views.EVENTS.clear()
    yield request.param
    views.EVENTS.clear()


def _rest(prefix: str, body: dict[str, Any]) -> tuple[str, list[str], list[str]]:
    """(outcome, events, stored names) of the REST create, then forgets them."""
    response = Client(raise_request_exception=False).post(
        f"/api/{prefix}/", body, content_type="application/json"
    )
    return _observed(OUTCOMES[response.status_code])


def _mcp(prefix: str, body: dict[str, Any]) -> tuple[str, list[str], list[str]]:
    """(outcome, events, stored names) of the tool call, then forgets them."""
    mcp = MCPTestClient(Client(raise_request_exception=False))
    mcp.initialize()
    try:
        result = mcp.call_tool(f"{prefix}__create", body)
    except MCPError as error:
        return _observed(error.data["code"])
    failed = result["structuredContent"].get("error") if result.get("isError") else None
    return _observed(failed["code"] if failed else "ok")


def _observed(outcome: str) -> tuple[str, list[str], list[str]]:
    events = list(views.EVENTS)
    names = sorted(Publisher.objects.values_list("name", flat=True))
    views.EVENTS.clear()
    Publisher.objects.all().delete()
    return outcome, events, names


@pytest.mark.parametrize(
    ("prefix", "autocommit", "with_atomic_requests"),
    [
        # A task queued as the row is saved: a worker finds it at once
        # unless the request is still in a transaction.
        (
            "queueing",
            ("ok", ["queued: worker sees the row"], ["P"]),
            ("ok", ["queued: worker <not yet>"], ["P"]),
        ),
        # Opted out of ATOMIC_REQUESTS: autocommit either way.
        (
            "non-atomic",
            ("ok", ["queued: worker sees the row"], ["P"]),
            ("ok", ["queued: worker sees the row"], ["P"]),
        ),
        # on_commit: at once in autocommit, after the commit otherwise;
        # the worker always finds the committed row.
        (
            "on-commit",
            ("ok", ["on_commit: worker sees the row", "saved"], ["P"]),
            ("ok", ["saved", "on_commit: worker sees the row"], ["P"]),
        ),
        # An eager task commits on its own: it can only outside a transaction.
        ("eager", ("ok", ["task done"], ["P"]), ("internal_error", [], [])),
        # A view that writes and then raises: DRF's handler rolls back only
        # ATOMIC_REQUESTS' transaction.
        (
            "save-then-raise",
            ("validation_failed", [], ["P"]),
            ("validation_failed", [], []),
        ),
        # A view that writes and then answers 400 itself: REST keeps the row.
        (
            "save-then-answer",
            ("validation_failed", [], ["P"]),
            ("validation_failed", [], ["P"]),
        ),
    ],
    ids=lambda value: value if isinstance(value, str) else "",
)
def test_a_call_runs_in_the_transaction_rest_runs_it_in(
    atomic_requests: bool,
    prefix: str,
    autocommit: tuple[str, list[str], list[str]],
    with_atomic_requests: tuple[str, list[str], list[str]],
) -> None:
    expected = with_atomic_requests if atomic_requests else autocommit
    rest = _rest(prefix, {"name": "P"})
    assert _mcp(prefix, {"name": "P"}) == rest
    outcome, events, names = rest
    # A worker reading inside another connection's write transaction is
    # refused on SQLite and reads the old state on PostgreSQL.
    not_yet = "blocked" if connection.vendor == "sqlite" else "misses the row"
    assert (outcome, [e.replace(not_yet, "<not yet>") for e in events], names) == (
        expected
    )


def test_a_bulk_create_is_still_all_or_nothing(atomic_requests: bool) -> None:
    mcp = MCPTestClient()
    mcp.initialize()
    same = [{"name": "A"}, {"name": "B"}, {"name": "A"}]
    result = mcp.call_tool("publishers__create", {"objects": same})
    assert tool_error(result)["code"] == "conflict"
    assert not Publisher.objects.exists()


def test_a_bulk_create_through_a_views_own_create_is_all_or_nothing(
    atomic_requests: bool,
) -> None:
    # Each item goes through the view's create(); the first one writes and
    # answers 400, which ends the bulk and undoes the write.
    mcp = MCPTestClient()
    mcp.initialize()
    with pytest.raises(MCPError) as info:
        mcp.call_tool(
            "save-then-answer__create", {"objects": [{"name": "A"}, {"name": "B"}]}
        )
    assert info.value.data["code"] == "validation_failed"
    assert not Publisher.objects.exists()


def test_validate_writes_nothing_even_when_validation_writes(
    atomic_requests: bool,
) -> None:
    mcp = MCPTestClient()
    mcp.initialize()
    result = mcp.call_tool("auditing__create", {"name": "P", "mode": "validate"})
    assert result["structuredContent"]["validation"]["written"] is False
    items = {"objects": [{"name": "A"}, {"name": "B"}], "mode": "validate"}
    result = mcp.call_tool("auditing__create", items)
    assert result["structuredContent"]["validation"]["count"] == 2
    assert not Publisher.objects.exists()


@pytest.mark.parametrize(
    "arguments",
    [
        {"nmae": "P"},
        {"payload": {"name": "P"}},
        {"name": 5},
        {"name": "P", "country": "zq"},
        {"objects": [{"name": "A"}, {"nmae": "B"}]},
    ],
    ids=["unknown key", "wrapper", "wrong type", "serializer", "bulk item"],
)
def test_a_refused_call_writes_nothing_without_a_transaction(
    arguments: dict[str, Any],
) -> None:
    # Refusals come before the view's perform_create: a view that would
    # queue a task never gets that far, even in autocommit.
    mcp = MCPTestClient()
    mcp.initialize()
    with pytest.raises(MCPError) as info:
        mcp.call_tool("queueing__create", arguments)
    assert info.value.code == -32602
    assert views.EVENTS == []
    assert not Publisher.objects.exists()
