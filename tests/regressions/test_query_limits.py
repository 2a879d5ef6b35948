"""Regressions found by the fuzzers: searches the database cannot run.

Filters too long for a URL are refused up front; a query the database
refuses is an ``isError`` result that leaves the transaction usable.
"""

from __future__ import annotations

import logging

import pytest
from django.db import connection

from frisian_mcp.contrib.testing import tool_error
from tests.test_fuzz import check_no_echo, row_counts, tool_reply


def test_regression_search_longer_than_a_url(demo_data: None) -> None:
    """Found by ``test_tool_arguments_with_debug``: a 330,000-character search.

    DRF's SearchFilter makes LIKE conditions of it; SQLite refuses patterns
    over 50,000 bytes (OperationalError: -32603, HTTP 500), and PostgreSQL
    spends seconds planning a search of that many terms. No REST URL can
    carry it; ``MAX_QUERY_LENGTH`` refuses it before the view runs.
    """
    filters = {"name": "ZZQ", "slug": "ZZQ", "search": "ZZQ00000000" * 30_000}
    before = row_counts()
    _, reply = tool_reply("dcim__tags__list", {"filters": filters})
    error = reply["error"]
    assert error["code"] == -32602, error
    assert error["data"]["fields"] == [
        {
            "field": "filters.search",
            "code": "max_length",
            "message": "makes the query string longer than 8192 characters",
        }
    ]
    assert row_counts() == before
    check_no_echo(error, filters)


def test_regression_query_the_database_refuses(
    demo_data: None, caplog: pytest.LogCaptureFixture
) -> None:
    """Found by ``test_tool_arguments_with_debug``: a search SQLite cannot run.

    DRF's SearchFilter makes every search term a condition; some 2,000 terms
    (within ``MAX_QUERY_LENGTH``) make SQLite raise OperationalError
    "Expression tree is too large": -32603, HTTP 500 (REST answers 500 too).
    PostgreSQL runs it, slowly; there a statement timeout is the everyday
    refusal, so the test sets one. The call must be an ``isError`` result
    naming no value, with a correlation id that leads to the logged error,
    and the enclosing transaction must stay usable (a savepoint).
    """
    filters = {"name": "ZZQ", "search": "ZZQ " * 2_000}
    postgresql = connection.vendor == "postgresql"
    if postgresql:
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL statement_timeout = '1ms'")
    with caplog.at_level(logging.WARNING, logger="frisian_mcp"):
        _, reply = tool_reply("dcim__tags__list", {"filters": filters})
    if postgresql:
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL statement_timeout = 0")
    result = reply["result"]
    assert result["isError"] is True, result
    error = tool_error(result)
    assert error["code"] == "request_rejected", error
    assert error["recoverable"] is True
    check_no_echo(error, filters)
    logged = [r for r in caplog.records if error["correlation_id"] in r.getMessage()]
    assert len(logged) == 1, caplog.records
    assert logged[0].exc_info
    _, again = tool_reply("dcim__tags__list", {"filters": {"name": "ZZQ"}})
    assert again["result"]["isError"] is False, again
