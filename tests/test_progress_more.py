"""Progress of bulk deletes and of large list pages, and the audit record
of a streamed call (ADR 0044, issue 28 item 4, the parts built after the
first).

Like tests/test_progress.py these POST real JSON-RPC to the mounted
endpoint, in both protocol eras; the worker has its own database
connection, so the tests commit (``transaction=True``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any, cast

import pytest
from django.http import StreamingHttpResponse
from django.test import override_settings

from tests.hosts.bulk.models import Rack, Site
from tests.test_progress import call, messages, progress_of

pytestmark = pytest.mark.django_db(transaction=True)

BULK_HOST = {"REQUIRE_AUTHENTICATION": False, "TOOL_LAYOUT": "flat"}


def streamed(response: Any) -> list[dict[str, Any]]:
    """The JSON-RPC messages of a streamed answer, read to its end."""
    assert response.streaming
    content = cast(StreamingHttpResponse, response).streaming_content
    return messages(b"".join(cast(Iterable[bytes], content)))


@pytest.fixture
def bulk_host() -> Iterator[None]:
    with override_settings(ROOT_URLCONF="tests.hosts.bulk.urls", FRISIAN_MCP=BULK_HOST):
        yield


def make_sites(count: int) -> list[Site]:
    return [
        Site.objects.create(name=f"Site {n}", slug=f"site-{n}", status="active")
        for n in range(count)
    ]


# -- bulk delete -----------------------------------------------------------------


@pytest.mark.parametrize(("modern", "token"), [(False, "del-1"), (True, 9)])
def test_a_bulk_delete_streams_a_notification_per_twentieth_of_its_rows(
    bulk_host: None, modern: bool, token: Any
) -> None:
    ids = [site.pk for site in make_sites(40)]
    response = call(
        "sites__bulk_destroy", {"ids": ids}, modern=modern, progressToken=token
    )
    found = streamed(response)
    progress = progress_of(found)
    assert len(progress) == 20
    assert {p["progressToken"] for p in progress} == {token}
    done = [p["progress"] for p in progress]
    assert done == sorted(set(done))
    assert done[-1] == 40
    assert progress[-1]["message"] == "deleted 40 of 40 rows"
    assert "Site " not in json.dumps(found[:-1])  # counts, never values
    assert found[-1]["id"] == 7
    assert found[-1]["result"]["isError"] is False
    assert len(found) == 21
    assert Site.objects.count() == 0


@pytest.mark.parametrize("modern", [False, True])
def test_a_bulk_delete_failing_midway_ends_with_the_conflict_and_deletes_nothing(
    bulk_host: None, modern: bool
) -> None:
    """The 31st site holds a rack (``PROTECT``): 30 rows are deleted and
    reported, then the action fails, and its transaction rolls them back."""
    sites = make_sites(40)
    Rack.objects.create(site=sites[30], name="R1")
    ids = [site.pk for site in sites]
    response = call("sites__bulk_destroy", {"ids": ids}, modern=modern, progressToken=1)
    found = streamed(response)
    done = [p["progress"] for p in progress_of(found)]
    assert done and done[-1] == 30
    result = found[-1]["result"]
    assert result["isError"] is True
    assert result["structuredContent"]["error"]["code"] == "conflict"
    assert Site.objects.count() == 40
    assert Rack.objects.count() == 1


@pytest.mark.parametrize("modern", [False, True])
def test_a_bulk_delete_refused_before_its_first_row_is_answered_as_without_a_token(
    bulk_host: None, modern: bool
) -> None:
    sites = make_sites(5)
    missing = max(site.pk for site in sites) + 1000
    ids = [site.pk for site in sites] + [missing]
    response = call("sites__bulk_destroy", {"ids": ids}, modern=modern, progressToken=2)
    assert not response.streaming
    result = response.json()["result"]
    assert result["isError"] is True
    assert result["structuredContent"]["error"]["code"] == "not_found"
    assert Site.objects.count() == 5


def test_a_bulk_delete_in_validate_mode_reports_nothing_and_deletes_nothing(
    bulk_host: None,
) -> None:
    ids = [site.pk for site in make_sites(10)]
    response = call(
        "sites__bulk_destroy", {"ids": ids, "mode": "validate"}, progressToken=3
    )
    assert not response.streaming
    assert response.json()["result"]["isError"] is False
    assert Site.objects.count() == 10


# -- list pages over 1,000 rows --------------------------------------------------

LARGE_PAGES = {**BULK_HOST, "MAX_PAGE_SIZE": 5000}


@pytest.fixture
def large_pages() -> Iterator[None]:
    with override_settings(
        ROOT_URLCONF="tests.hosts.bulk.urls", FRISIAN_MCP=LARGE_PAGES
    ):
        yield


def many_sites(count: int) -> None:
    Site.objects.bulk_create(
        Site(name=f"Site {n}", slug=f"site-{n}", status="active") for n in range(count)
    )


@pytest.mark.parametrize(("modern", "token"), [(False, "page-1"), (True, 11)])
def test_a_page_of_more_than_1000_rows_streams_its_rows_serialized(
    large_pages: None, modern: bool, token: Any
) -> None:
    many_sites(1500)
    response = call(
        "sites__list", {"page_size": 2000}, modern=modern, progressToken=token
    )
    found = streamed(response)
    progress = progress_of(found)
    assert len(progress) == 20
    done = [p["progress"] for p in progress]
    assert done == sorted(set(done))
    assert done[-1] == 1500
    assert {p["total"] for p in progress} == {1500}
    assert progress[-1]["message"] == "serialized 1,500 of 1,500 rows"
    assert "Site " not in json.dumps(found[:-1])
    result = found[-1]["result"]
    assert result["isError"] is False
    assert result["structuredContent"]["count"] == 1500
    assert len(result["structuredContent"]["results"]) == 1500
    assert len(found) == 21


@pytest.mark.parametrize("modern", [False, True])
def test_a_page_of_1000_rows_or_fewer_is_answered_as_without_a_token(
    large_pages: None, modern: bool
) -> None:
    many_sites(1000)
    arguments = {"page_size": 2000}
    without = call("sites__list", arguments, modern=modern)
    response = call("sites__list", arguments, modern=modern, progressToken="small")
    assert not response.streaming
    assert response.content == without.content
    assert len(response.json()["result"]["structuredContent"]["results"]) == 1000


@pytest.mark.parametrize("modern", [False, True])
def test_a_page_size_over_max_page_size_is_refused_without_a_stream(
    large_pages: None, modern: bool
) -> None:
    many_sites(10)
    response = call(
        "sites__list", {"page_size": 5001}, modern=modern, progressToken="big"
    )
    assert not response.streaming
    error = response.json()["error"]
    assert error["code"] == -32602
    assert "5001" not in error["message"]
    assert Site.objects.count() == 10


def test_with_the_default_max_page_size_no_list_call_goes_to_a_worker(
    bulk_host: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``MAX_PAGE_SIZE`` 200 caps every page below 1,000 rows: a list call
    with a token is answered in the request thread, as without one."""
    import threading

    started: list[str] = []
    start = threading.Thread.start

    def watched(self: threading.Thread) -> None:
        started.append(self.name)
        start(self)

    monkeypatch.setattr(threading.Thread, "start", watched)
    many_sites(10)
    response = call("sites__list", {"page_size": 2000}, progressToken="capped")
    assert not response.streaming
    assert response.json()["error"]["code"] == -32602
    assert "frisian-mcp-call" not in started
