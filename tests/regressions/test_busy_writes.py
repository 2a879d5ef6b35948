"""Issue 13, item 4: a lock timeout or serialization failure is ``busy``.

Under concurrent writes the demo's SQLite answered "database is locked" as
HTTP 500 / -32603. A database that gives up on a lock or a serialization
(SQLite ``SQLITE_BUSY`` / ``SQLITE_LOCKED``; PostgreSQL serialization
failure, deadlock, lock not available) now gives a retryable ``busy`` tool
error with ``retry_after``, and the rolled-back transaction leaves no row.
The failures are forced in the view, wrapped the way Django wraps a
driver's error, so the test runs on every database.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg
import pytest
from django.db import OperationalError, connection

from frisian_mcp.contrib.testing import MCPError, MCPTestClient, tool_error
from tests.testapp.models import Publisher
from tests.testapp.views import PublisherViewSet

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def sqlite_busy(tmp_path_factory: pytest.TempPathFactory) -> sqlite3.OperationalError:
    """A real ``SQLITE_BUSY``: a second writer that will not wait for the first."""
    path = Path(tmp_path_factory.mktemp("busy")) / "locked.sqlite3"
    holder = sqlite3.connect(path, isolation_level=None)
    waiter = sqlite3.connect(path, timeout=0, isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")
        with pytest.raises(sqlite3.OperationalError) as info:
            waiter.execute("BEGIN IMMEDIATE")
    finally:
        waiter.close()
        holder.close()
    return info.value


def _sqlite_locked() -> sqlite3.OperationalError:
    error = sqlite3.OperationalError("database table is locked")
    error.sqlite_errorcode = 6 | (1 << 8)  # SQLITE_LOCKED_SHAREDCACHE
    return error


def _psycopg2_style() -> Exception:
    error = Exception("deadlock detected")
    error.pgcode = "40P01"  # type: ignore[attr-defined]
    return error


#: Driver errors that mean "busy", as Django would chain them.
CAUSES: dict[str, Callable[[], BaseException]] = {
    "sqlite_locked": _sqlite_locked,
    "serialization_failure": lambda: psycopg.errors.SerializationFailure(
        "could not serialize access"
    ),
    "deadlock_detected": lambda: psycopg.errors.DeadlockDetected("deadlock"),
    "lock_not_available": lambda: psycopg.errors.LockNotAvailable("lock timeout"),
    "psycopg2_pgcode": _psycopg2_style,
}


@pytest.fixture
def fails_after_writing(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Make ``testapp__publishers__create`` write a row, then raise ``error``."""

    def install(error: BaseException, *, wrap: bool = False) -> None:
        def perform_create(self: Any, serializer: Any) -> None:
            serializer.save()
            if wrap:  # Django's own wrapping of the backend's driver error
                with connection.wrap_database_errors:
                    raise error
            raise OperationalError(str(error)) from error

        monkeypatch.setattr(PublisherViewSet, "perform_create", perform_create)

    return install


def _assert_busy(result: dict[str, Any]) -> None:
    assert result["isError"] is True
    error = tool_error(result)
    assert error["code"] == "busy"
    assert error["recoverable"] is True
    assert error["retry_after"] == 1
    assert error["tool"] == "testapp__publishers__create"
    assert "Ace" not in str(result)
    assert Publisher.objects.count() == 0


@pytest.mark.parametrize("cause", sorted(CAUSES))
def test_lock_and_serialization_failures_are_busy(
    mcp: MCPTestClient, fails_after_writing: Any, cause: str
) -> None:
    fails_after_writing(CAUSES[cause]())
    _assert_busy(mcp.call_tool("testapp__publishers__create", {"name": "Ace"}))


def test_the_backends_own_busy_error_is_busy(
    mcp: MCPTestClient,
    fails_after_writing: Any,
    sqlite_busy: sqlite3.OperationalError,
) -> None:
    if connection.vendor == "postgresql":
        native: BaseException = psycopg.errors.SerializationFailure("serialize")
    else:
        native = sqlite_busy
    fails_after_writing(native, wrap=True)
    _assert_busy(mcp.call_tool("testapp__publishers__create", {"name": "Ace"}))


def test_a_busy_bulk_create_writes_none_of_its_items(
    mcp: MCPTestClient, fails_after_writing: Any, sqlite_busy: Any
) -> None:
    fails_after_writing(sqlite_busy)
    items = [{"name": "Ace"}, {"name": "Tor"}]
    _assert_busy(mcp.call_tool("testapp__publishers__create", {"objects": items}))


def test_a_busy_read_is_busy_too(
    mcp: MCPTestClient, monkeypatch: pytest.MonkeyPatch, sqlite_busy: Any
) -> None:
    def get_queryset(self: Any) -> Any:
        raise OperationalError("database is locked") from sqlite_busy

    monkeypatch.setattr(PublisherViewSet, "get_queryset", get_queryset)
    result = mcp.call_tool("testapp__publishers__list", {})
    assert tool_error(result)["code"] == "busy"


def test_other_operational_errors_on_a_write_stay_internal_errors(
    mcp: MCPTestClient, fails_after_writing: Any
) -> None:
    error = sqlite3.OperationalError("disk I/O error")
    error.sqlite_errorcode = 10  # SQLITE_IOERR
    fails_after_writing(error)
    with pytest.raises(MCPError) as info:
        mcp.call_tool("testapp__publishers__create", {"name": "Ace"})
    assert info.value.code == -32603
    assert info.value.data["code"] == "internal_error"
    assert Publisher.objects.count() == 0
