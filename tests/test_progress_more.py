"""Progress of bulk deletes and of large list pages, and the audit record
of a streamed call (ADR 0044, issue 28 item 4, the parts built after the
first).

Like tests/test_progress.py these POST real JSON-RPC to the mounted
endpoint, in both protocol eras; the worker has its own database
connection, so the tests commit (``transaction=True``).
"""

from __future__ import annotations

import io
import json
import threading
from collections.abc import Iterable, Iterator
from typing import Any, cast

import pytest
from django.http import StreamingHttpResponse
from django.test import override_settings

from demo_project.contacts.models import Contact
from frisian_mcp import notices
from tests.hosts.bulk.models import Rack, Site
from tests.test_progress import (
    MODERN,
    assert_twentieths,
    call,
    contacts,
    messages,
    progress_of,
)
from tests.testapp.models import Publisher

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
    assert_twentieths(progress, token, 40)
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
    assert done
    assert done[-1] == 30
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


# -- the audit record of a streamed call -----------------------------------------


def records(stream: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stream.getvalue().splitlines()]


@pytest.mark.parametrize("modern", [False, True])
def test_a_streamed_calls_record_has_its_outcome_and_rows(
    audit_stream: io.StringIO, modern: bool
) -> None:
    response = call(
        "contacts__create", {"objects": contacts(40)}, modern=modern, progressToken="a"
    )
    found = streamed(response)
    assert found[-1]["result"]["isError"] is False
    [record] = records(audit_stream)
    assert record["method"] == "tools/call"
    assert record["tool"] == "contacts__create"
    assert record["outcome"] == "ok"
    assert record["status"] == 200
    assert record["request_id"] == 7
    assert record["protocol_version"] == (MODERN if modern else "2025-11-25")
    assert (record["rows_created"], record["rows_updated"]) == (40, 0)
    assert Contact.objects.count() == 40
    assert "Secret" not in audit_stream.getvalue()


@pytest.mark.parametrize("modern", [False, True])
def test_a_streamed_call_failing_midway_is_recorded_as_failed_without_rows(
    audit_stream: io.StringIO, modern: bool
) -> None:
    objects = [{"name": "A"}, {"name": "B"}, {"name": "C"}, {"name": "A"}]
    response = call(
        "testapp__audited-publishers__create",
        {"objects": objects},
        modern=modern,
        progressToken="f",
    )
    found = streamed(response)
    assert found[-1]["error"]["code"] == -32602
    [record] = records(audit_stream)
    assert record["outcome"] == "validation_failed"
    assert record["rows_created"] == 0
    assert Publisher.objects.count() == 0


@pytest.mark.parametrize("modern", [False, True])
def test_a_streamed_bulk_deletes_record_counts_its_rows_or_its_conflict(
    audit_stream: io.StringIO, bulk_host: None, modern: bool
) -> None:
    sites = make_sites(30)
    Rack.objects.create(site=sites[20], name="R1")
    refused = call(
        "sites__bulk_destroy",
        {"ids": [s.pk for s in sites]},
        modern=modern,
        progressToken=1,
    )
    assert streamed(refused)[-1]["result"]["isError"] is True
    keep = sites[20].pk
    deleted = call(
        "sites__bulk_destroy",
        {"ids": [s.pk for s in sites if s.pk != keep]},
        modern=modern,
        progressToken=2,
    )
    assert streamed(deleted)[-1]["result"]["isError"] is False
    first, second = records(audit_stream)
    assert (first["outcome"], first["rows_deleted"]) == ("conflict", 0)
    assert (second["outcome"], second["rows_deleted"]) == ("ok", 29)
    assert Site.objects.count() == 1


def test_a_call_that_reports_nothing_in_its_worker_leaves_one_record(
    audit_stream: io.StringIO,
) -> None:
    arguments = {"mode": "validate", "objects": contacts(3)}
    response = call("contacts__create", arguments, progressToken="v")
    assert not response.streaming
    [record] = records(audit_stream)
    assert record["outcome"] == "ok"
    assert record["rows_created"] == 0
    assert Contact.objects.count() == 0


def test_a_closed_2026_07_28_stream_is_recorded_once_the_worker_stops(
    audit_stream: io.StringIO, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The stream ends before the call: the record waits for the worker,
    which rolls back, and says so."""
    go = threading.Event()
    advance = notices.Channel.advance

    def slow(self: notices.Channel, done: int, total: int | None, verb: str) -> None:
        advance(self, done, total, verb)
        if done == 2:
            assert go.wait(10)

    monkeypatch.setattr(notices.Channel, "advance", slow)
    response = call(
        "contacts__create", {"objects": contacts(30)}, modern=True, progressToken="c"
    )
    content = cast(StreamingHttpResponse, response).streaming_content
    stream = iter(cast(Iterable[bytes], content))
    while b"notifications/progress" not in next(stream):
        pass
    response.close()
    assert records(audit_stream) == []  # the request thread's part ended first
    go.set()
    for thread in threading.enumerate():
        if thread.name == "frisian-mcp-call":
            thread.join(10)
    [record] = records(audit_stream)
    assert record["outcome"] == "cancelled"
    assert record["rows_created"] == 0
    assert Contact.objects.count() == 0


# -- over stdio ------------------------------------------------------------------


def over_stdio(modern: bool, name: str, arguments: dict[str, Any]) -> list[Any]:
    """One ``tools/call`` with a progress token over stdio, as a superuser
    (after ``initialize`` in the handshake era); the lines written."""
    from django.contrib.auth import get_user_model

    from tests.test_logging_notifications import INITIALIZE, _message, _stdio
    from tests.test_progress import meta

    user = get_user_model().objects.create_superuser("root", password="pw")
    params = {"name": name, "arguments": arguments}
    params["_meta"] = meta(modern, progressToken="s")
    lines = [_message(2, "tools/call", params)]
    out = _stdio(user, lines if modern else [INITIALIZE, *lines])
    return out if modern else out[1:]  # less initialize's answer


@pytest.mark.parametrize("modern", [False, True])
def test_stdio_writes_a_bulk_deletes_progress_before_the_response(
    bulk_host: None, modern: bool
) -> None:
    ids = [site.pk for site in make_sites(40)]
    out = over_stdio(modern, "sites__bulk_destroy", {"ids": ids})
    progress = progress_of(out)
    assert len(progress) == 20
    assert progress[-1]["message"] == "deleted 40 of 40 rows"
    assert out[-1]["id"] == 2
    assert out[-1]["result"]["isError"] is False
    assert len(out) == 21
    assert Site.objects.count() == 0


@pytest.mark.parametrize("modern", [False, True])
def test_stdio_writes_a_bulk_deletes_conflict_after_its_progress_and_deletes_nothing(
    bulk_host: None, modern: bool
) -> None:
    sites = make_sites(40)
    Rack.objects.create(site=sites[30], name="R1")
    out = over_stdio(modern, "sites__bulk_destroy", {"ids": [s.pk for s in sites]})
    assert progress_of(out)[-1]["progress"] == 30
    result = out[-1]["result"]
    assert result["structuredContent"]["error"]["code"] == "conflict"
    assert Site.objects.count() == 40


@pytest.mark.parametrize("modern", [False, True])
def test_stdio_writes_a_large_pages_progress_before_the_response(
    large_pages: None, modern: bool
) -> None:
    many_sites(1200)
    out = over_stdio(modern, "sites__list", {"page_size": 1500})
    progress = progress_of(out)
    assert len(progress) == 20
    assert progress[-1]["message"] == "serialized 1,200 of 1,200 rows"
    assert len(out[-1]["result"]["structuredContent"]["results"]) == 1200
