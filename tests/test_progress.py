"""Progress of bulk calls on the POST's SSE stream (ADR 0044, issue 28 item 4).

A ``tools/call`` with ``_meta.progressToken`` from a client that accepts
``text/event-stream`` runs in a worker thread; the response streams its
``notifications/progress`` (at most 20, each a twentieth, the last at
100 %), then the response. Everything else is answered as before, byte for
byte. The worker has its own database connection, so these tests commit
(``transaction=True``).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Iterator
from typing import Any, cast

import pytest
from django.http import StreamingHttpResponse
from django.test import Client
from django.urls import reverse

from demo_project.contacts.models import Contact
from frisian_mcp import notices
from tests.testapp.models import Publisher

pytestmark = pytest.mark.django_db(transaction=True)

MODERN = "2026-07-28"
BOTH = "application/json, text/event-stream"


def meta(modern: bool, **extra: Any) -> dict[str, Any]:
    if not modern:
        return extra
    return {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
        **extra,
    }


def call(
    tool: str,
    arguments: dict[str, Any],
    *,
    modern: bool = False,
    accept: str = BOTH,
    **extra: Any,
) -> Any:
    """POST a ``tools/call``; the Django response (streaming or not)."""
    body = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tools/call",
        "params": {
            "name": tool,
            "arguments": arguments,
            "_meta": meta(modern, **extra),
        },
    }
    headers = {"Accept": accept}
    if modern:
        headers.update(
            {
                "MCP-Protocol-Version": MODERN,
                "Mcp-Method": "tools/call",
                "Mcp-Name": tool,
            }
        )
    else:
        headers["MCP-Protocol-Version"] = "2025-11-25"
    return Client().post(
        reverse("frisian_mcp:endpoint"),
        data=json.dumps(body),
        content_type="application/json",
        headers=headers,
    )


def events(raw: bytes) -> list[dict[str, str]]:
    """The SSE events of ``raw``: each one's fields."""
    found = []
    for block in raw.decode().split("\n\n"):
        if not block:
            continue
        fields: dict[str, str] = {}
        for line in block.split("\n"):
            name, _, value = line.partition(": ")
            fields[name] = value
        found.append(fields)
    return found


def messages(raw: bytes) -> list[dict[str, Any]]:
    """The JSON-RPC messages of an SSE body, in order."""
    return [json.loads(e["data"]) for e in events(raw) if e.get("data")]


def contacts(count: int, start: int = 0) -> list[dict[str, str]]:
    return [
        {"email": f"person{i}@example.com", "last_name": f"Secret{i}"}
        for i in range(start, start + count)
    ]


def assert_twentieths(progress: list[dict[str, Any]], token: Any, total: int) -> None:
    """Twenty notifications for ``token``, strictly increasing, the last at ``total``."""
    assert len(progress) == 20
    assert {p["progressToken"] for p in progress} == {token}
    done = [p["progress"] for p in progress]
    assert done == sorted(set(done))
    assert done[-1] == total


def progress_of(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [m["params"] for m in found if m.get("method") == "notifications/progress"]


@pytest.mark.parametrize(("modern", "token"), [(False, "bulk-1"), (True, 42)])
def test_a_bulk_create_streams_its_progress_then_the_response(
    modern: bool, token: Any
) -> None:
    response = call(
        "contacts__create",
        {"objects": contacts(40)},
        modern=modern,
        progressToken=token,
    )
    assert response.status_code == 200
    assert response.streaming
    assert response["Content-Type"] == "text/event-stream"
    assert response["X-Accel-Buffering"] == "no"
    raw = b"".join(response.streaming_content)
    first = events(raw)[0]
    if modern:  # 2026-07-28 streams are not resumable: no priming event
        assert "id" not in first
    else:
        assert first["id"]
        assert first["data"] == ""
    found = messages(raw)
    progress = progress_of(found)
    assert_twentieths(progress, token, 40)
    assert {p["total"] for p in progress} == {40}
    assert progress[0]["message"] == "created 2 of 40 rows"
    notified = json.dumps(found[:-1])
    assert "example.com" not in notified
    assert "Secret" not in notified
    last = found[-1]
    assert last["id"] == 7
    assert last["result"]["isError"] is False
    assert len(found) == 21  # the response comes last, and nothing after it
    assert Contact.objects.count() == 40


def test_a_small_bulk_notifies_once_per_row() -> None:
    response = call("contacts__create", {"objects": contacts(5)}, progressToken="t")
    progress = progress_of(messages(b"".join(response.streaming_content)))
    assert [p["progress"] for p in progress] == [1, 2, 3, 4, 5]


def test_a_view_with_its_own_create_reports_each_item() -> None:
    objects = [{"name": f"P{i}"} for i in range(30)]
    response = call(
        "testapp__audited-publishers__create", {"objects": objects}, progressToken="p"
    )
    streamed = cast(StreamingHttpResponse, response).streaming_content
    found = messages(b"".join(cast(Iterable[bytes], streamed)))
    progress = progress_of(found)
    assert 5 <= len(progress) <= 20
    assert progress[-1]["progress"] == 30
    assert found[-1]["result"]["isError"] is False
    assert Publisher.objects.count() == 30


@pytest.mark.parametrize("modern", [False, True])
def test_a_bulk_failing_midway_ends_with_the_error_and_writes_nothing(
    modern: bool,
) -> None:
    """Items 0-2 are created, item 3 is refused (its name is taken by item
    0): the stream has their progress, then the error; nothing is kept."""
    objects = [{"name": "A"}, {"name": "B"}, {"name": "C"}, {"name": "A"}]
    response = call(
        "testapp__audited-publishers__create",
        {"objects": objects},
        modern=modern,
        progressToken="f",
    )
    assert response.streaming
    streamed = cast(StreamingHttpResponse, response).streaming_content
    found = messages(b"".join(cast(Iterable[bytes], streamed)))
    assert [p["progress"] for p in progress_of(found)] == [1, 2, 3]
    assert found[-1]["id"] == 7
    assert found[-1]["error"]["code"] == -32602
    assert Publisher.objects.count() == 0


def test_an_unexpected_failure_midway_ends_the_stream_with_internal_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    advance = notices.Channel.advance

    def failing(self: notices.Channel, done: int, total: int | None, verb: str) -> None:
        advance(self, done, total, verb)
        if done == 4:
            raise RuntimeError("boom")

    monkeypatch.setattr(notices.Channel, "advance", failing)
    response = call("contacts__create", {"objects": contacts(10)}, progressToken="u")
    streamed = cast(StreamingHttpResponse, response).streaming_content
    found = messages(b"".join(cast(Iterable[bytes], streamed)))
    assert [p["progress"] for p in progress_of(found)] == [1, 2, 3, 4]
    error = found[-1]["error"]
    assert error["code"] == -32603
    assert "boom" not in error["message"]
    assert Contact.objects.count() == 0


def test_a_bulk_refused_before_it_starts_is_answered_as_without_a_token() -> None:
    objects = [*contacts(3), {"email": "not an email"}]
    response = call("contacts__create", {"objects": objects}, progressToken="x")
    assert not response.streaming
    assert response["Content-Type"] == "application/json"
    assert response.json()["error"]["code"] == -32602
    assert Contact.objects.count() == 0


@pytest.mark.parametrize("accept", [BOTH, "application/json"])
@pytest.mark.parametrize("modern", [False, True])
def test_answers_that_report_no_progress_are_byte_identical(
    accept: str, modern: bool
) -> None:
    arguments = {"mode": "validate", "objects": contacts(3)}
    without = call("contacts__create", arguments, modern=modern, accept=accept)
    with_token = call(
        "contacts__create", arguments, modern=modern, accept=accept, progressToken="v"
    )
    assert not with_token.streaming
    assert with_token.content == without.content
    assert dict(with_token.headers) == dict(without.headers)


@pytest.mark.parametrize("token", [True, 1.5, None, {"a": 1}])
def test_a_token_that_is_no_string_or_integer_is_ignored(token: Any) -> None:
    response = call("contacts__create", {"objects": contacts(3)}, progressToken=token)
    assert not response.streaming
    assert response.json()["result"]["isError"] is False


def test_a_client_that_takes_only_json_gets_no_stream() -> None:
    response = call(
        "contacts__create",
        {"objects": contacts(30)},
        accept="application/json",
        progressToken="j",
    )
    assert not response.streaming
    assert response.json()["result"]["isError"] is False
    assert Contact.objects.count() == 30


@pytest.fixture
def paused(monkeypatch: pytest.MonkeyPatch) -> Iterator[threading.Event]:
    """The worker waits after its first notification until the event is set."""
    go = threading.Event()
    advance = notices.Channel.advance

    def slow(self: notices.Channel, done: int, total: int | None, verb: str) -> None:
        advance(self, done, total, verb)
        if done == 2:  # the first notification of 30 rows
            assert go.wait(10)

    monkeypatch.setattr(notices.Channel, "advance", slow)
    yield go
    go.set()


def _join_workers() -> None:
    for thread in threading.enumerate():
        if thread.name == "frisian-mcp-call":
            thread.join(10)


@pytest.mark.parametrize(("modern", "kept"), [(True, 0), (False, 30)])
def test_closing_the_stream_cancels_only_in_2026_07_28(
    paused: threading.Event, modern: bool, kept: int
) -> None:
    """2026-07-28: closing the stream cancels the call, which rolls back;
    handshake era: a disconnect is not a cancellation, the call commits."""
    response = call(
        "contacts__create", {"objects": contacts(30)}, modern=modern, progressToken="c"
    )
    stream = iter(
        cast(Iterable[bytes], cast(StreamingHttpResponse, response).streaming_content)
    )
    while b"notifications/progress" not in next(stream):
        pass
    response.close()
    paused.set()
    _join_workers()
    assert Contact.objects.count() == kept


def test_stdio_writes_progress_lines_before_the_response() -> None:
    from django.contrib.auth import get_user_model

    from tests.test_logging_notifications import INITIALIZE, _message, _stdio

    user = get_user_model().objects.create_superuser("root", password="pw")
    params = {
        "name": "contacts__create",
        "arguments": {"objects": contacts(40)},
        "_meta": {"progressToken": "s"},
    }
    out = _stdio(user, [INITIALIZE, _message(2, "tools/call", params)])
    progress = progress_of(out)
    assert len(progress) == 20
    assert progress[-1]["progress"] == 40
    assert out[-1]["id"] == 2
    assert out[-1]["result"]["isError"] is False
    assert len(out) == 22  # initialize's answer, 20 notifications, the response


def test_notifications_cancelled_stops_a_handshake_era_call(
    paused: threading.Event,
) -> None:
    """The cancel may reach another worker: it leaves a mark in the cache
    under the caller, which the call reads at its next notification; the
    call rolls back, and the stream ends without a response."""
    from django.contrib.auth import get_user_model

    client = Client()
    client.force_login(get_user_model().objects.create_user("ada", password="pw"))
    body = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tools/call",
        "params": {
            "name": "contacts__create",
            "arguments": {"objects": contacts(30)},
            "_meta": {"progressToken": "k"},
        },
    }
    headers = {"Accept": BOTH, "MCP-Protocol-Version": "2025-11-25"}
    path = reverse("frisian_mcp:endpoint")
    response = client.post(
        path, json.dumps(body), content_type="application/json", headers=headers
    )
    stream = iter(
        cast(Iterable[bytes], cast(StreamingHttpResponse, response).streaming_content)
    )
    while b"notifications/progress" not in next(stream):
        pass
    cancel = {
        "jsonrpc": "2.0",
        "method": "notifications/cancelled",
        "params": {"requestId": 7, "reason": "changed my mind"},
    }
    answer = client.post(
        path, json.dumps(cancel), content_type="application/json", headers=headers
    )
    assert answer.status_code == 202
    paused.set()
    rest = messages(b"".join(stream))
    assert all("id" not in m for m in rest)  # no response, no more progress
    assert progress_of(rest) == []
    _join_workers()
    assert Contact.objects.count() == 0


def test_a_cancel_of_another_request_changes_nothing() -> None:
    from django.contrib.auth import get_user_model

    client = Client()
    client.force_login(get_user_model().objects.create_user("ada", password="pw"))
    headers = {"Accept": BOTH, "MCP-Protocol-Version": "2025-11-25"}
    path = reverse("frisian_mcp:endpoint")
    cancel: dict[str, Any] = {"jsonrpc": "2.0", "method": "notifications/cancelled"}
    cancel["params"] = {"requestId": 8}
    client.post(
        path, json.dumps(cancel), content_type="application/json", headers=headers
    )
    body = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tools/call",
        "params": {
            "name": "contacts__create",
            "arguments": {"objects": contacts(30)},
            "_meta": {"progressToken": "k"},
        },
    }
    response = client.post(
        path, json.dumps(body), content_type="application/json", headers=headers
    )
    streamed = cast(StreamingHttpResponse, response).streaming_content
    found = messages(b"".join(cast(Iterable[bytes], streamed)))
    assert found[-1]["id"] == 7
    assert Contact.objects.count() == 30


def test_a_bulk_update_reports_each_entry_checked() -> None:
    """The view's own bulk action is the host's code and reports nothing;
    the entries checked against its serializer before it runs do."""
    from django.test import override_settings

    from tests.hosts.bulk.models import Site

    settings = {"REQUIRE_AUTHENTICATION": False, "TOOL_LAYOUT": "flat"}
    with override_settings(ROOT_URLCONF="tests.hosts.bulk.urls", FRISIAN_MCP=settings):
        sites = [
            Site.objects.create(name=f"Site {n}", slug=f"site-{n}", status="active")
            for n in range(10)
        ]
        objects = [{"id": site.pk, "status": "planned"} for site in sites]
        response = call(
            "sites__bulk_partial_update", {"objects": objects}, progressToken="b"
        )
        streamed = cast(StreamingHttpResponse, response).streaming_content
    found = messages(b"".join(cast(Iterable[bytes], streamed)))
    progress = progress_of(found)
    assert [p["progress"] for p in progress] == list(range(1, 11))
    assert progress[-1]["message"] == "checked 10 of 10 rows"
    assert found[-1]["result"]["isError"] is False
    assert set(Site.objects.values_list("status", flat=True)) == {"planned"}
