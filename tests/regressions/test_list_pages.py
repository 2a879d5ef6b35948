"""Regressions found by the fuzzers: paging a list tool's answer.

An error list is not a page, and a page past any SQL integer is empty.
"""

from __future__ import annotations

import pytest

from tests.test_fuzz import tool_reply


def test_regression_view_error_list_is_not_paged(demo_data: None) -> None:
    """A list view answering 400 with a JSON list is an error, not a page.

    DRF's SearchFilter answers ``["Null characters are not allowed."]``
    (400) to a search holding NUL. ``invocation.calls.invoke`` pages any
    list data of a list action, so the error became
    ``{"results": [...], "count": 1, ...}`` and the -32602 named the fields
    ``results``, ``count``, ``page``, ``page_size``, ``has_more`` with the
    page's values as messages.
    """
    _, reply = tool_reply("contacts__list", {"filters": {"search": "ada\x00"}})
    assert reply["error"]["code"] == -32602, reply
    data = reply["error"]["data"]
    assert data["code"] == "validation_failed", data
    named = {entry.get("field") for entry in data.get("fields", [])}
    assert not named & {"results", "count", "page", "page_size", "has_more"}, data


@pytest.mark.parametrize("page", [2**31, 2**63, 10**23])
def test_regression_huge_page_number(demo_data: None, page: int) -> None:
    """A page far past the end is an empty page (or a -32602), not a conflict.

    ``page`` has no schema maximum, and ``ToolPagination.paginate_queryset``
    slices ``queryset[start:start + size]`` with ``start`` beyond any SQL
    integer: SQLite raises IntegrityError ("datatype mismatch"), reported
    as an ``isError`` ``conflict`` ("nothing was written") on a read;
    PostgreSQL raises DataError (bigint out of range), a -32603/500.
    """
    _, reply = tool_reply("contacts__list", {"page": page})
    if "error" in reply:
        assert reply["error"]["code"] == -32602, reply
        assert reply["error"]["data"]["field"] == "page", reply
        return
    result = reply["result"]
    assert result["isError"] is False, result["structuredContent"]
    assert result["structuredContent"]["results"] == []
