"""Issue 18 item 1: frisian_mcp's own errors never reach the host's handler.

A host running drf-standardized-errors with ``DEBUG = False`` (its
production setting) turns every exception that is not a DRF ``APIException``
into a 500 and reports it as a server error. frisian_mcp raised its argument
errors inside the view's ``dispatch``, so every unknown key, missing field,
wrapper, bad lookup and bad token, and every database conflict, came back
as ``internal_error`` and paged the host's on-call engineer. Now each comes
back exactly as under DRF's default handler, whatever the handler and
``DEBUG``; the host's own errors keep the host's handler.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.conf import settings
from django.core.signals import got_request_exception
from django.test import Client, override_settings

from demo_project.dcim.models import Device, Site
from frisian_mcp.contrib.testing import MCPError, MCPTestClient, tool_error
from tests.hosts import standardized
from tests.testapp.models import Book, Publisher

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.urls("tests.hosts.standardized.urls"),
]

#: A marker no error may echo.
SECRET = "Zq9-secret"

#: error kind -> (tool, arguments); site 7001 is protected by a device.
KINDS: dict[str, tuple[str, dict[str, Any]]] = {
    "unknown key": ("publishers__create", {"nmae": SECRET}),
    "missing field": ("publishers__create", {"country": "NL"}),
    "wrong type": ("publishers__create", {"name": 5}),
    "wrapper": ("publishers__create", {"payload": {"name": SECRET}}),
    "bad lookup": (
        "books__create",
        {"title": "T", "isbn": "9780000000001", "publisher": {"name": SECRET}},
    ),
    "bad token": ("publishers__list", {"continuation_token": SECRET}),
    "conflict (unique)": ("racy__create", {"name": SECRET}),
    "conflict (protected)": ("sites__destroy", {"id": 7001}),
    "busy": ("busy__create", {"name": SECRET}),
    "refused query": ("oversized__list", {}),
}

#: What each kind answers: a JSON-RPC error code, or an isError result's code.
EXPECTED = {
    "unknown key": -32602,
    "missing field": -32602,
    "wrong type": -32602,
    "wrapper": -32602,
    "bad lookup": -32602,
    "bad token": -32602,
    "conflict (unique)": "conflict",
    "conflict (protected)": "conflict",
    "busy": "busy",
    "refused query": "request_rejected",
}

HANDLERS = {
    "drf default": ({}, False),
    "standardized, DEBUG off": (standardized.REST_FRAMEWORK, False),
    "standardized, DEBUG on": (standardized.REST_FRAMEWORK, True),
}


class ServerErrors:
    """What a host's error monitoring would see: the signal and ERROR logs."""

    def __init__(self, caplog: pytest.LogCaptureFixture) -> None:
        self.caplog = caplog
        self.signals: list[Any] = []

    def receive(self, sender: Any, request: Any = None, **kwargs: Any) -> None:
        self.signals.append(request)

    @property
    def reported(self) -> list[str]:
        records = [r for r in self.caplog.records if r.levelno >= logging.ERROR]
        return [f"{r.name}: {r.getMessage()}" for r in records] + [
            f"got_request_exception for {getattr(r, 'path', r)}" for r in self.signals
        ]


@pytest.fixture
def server_errors(caplog: pytest.LogCaptureFixture) -> Iterator[ServerErrors]:
    caplog.set_level(logging.INFO)
    errors = ServerErrors(caplog)
    got_request_exception.connect(errors.receive)
    yield errors
    got_request_exception.disconnect(errors.receive)


def _handled_by(name: str) -> Any:
    extra, debug = HANDLERS[name]
    return override_settings(
        DEBUG=debug, REST_FRAMEWORK={**settings.REST_FRAMEWORK, **extra}
    )


def _outcome(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """The call's JSON-RPC error, or its tool result, without correlation ids."""
    # A server error the host reports would be re-raised by the test client.
    mcp = MCPTestClient(Client(raise_request_exception=False))
    mcp.initialize()
    try:
        outcome = {"result": mcp.call_tool(tool, arguments)}
    except MCPError as error:
        outcome = {"error": {"code": error.code, "message": error.message}}
        outcome["error"]["data"] = error.data
    # Correlation ids are 16 hex digits, new for each call.
    text = re.sub(r"\b[0-9a-f]{16}\b", "<id>", json.dumps(outcome))
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def _code(outcome: dict[str, Any]) -> int | str:
    if "error" in outcome:
        code: int = outcome["error"]["code"]
        return code
    error: str = tool_error(outcome["result"])["code"]
    return error


@pytest.fixture
def stored() -> Callable[[], tuple[int, ...]]:
    """Counts the rows of every model the calls touch; adds site 7001."""
    site = Site.objects.create(pk=7001, name="HQ", slug="hq")
    Device.objects.create(name="sw1", site=site)

    def count() -> tuple[int, ...]:
        return (
            Publisher.objects.count(),
            Book.objects.count(),
            Site.objects.count(),
            Device.objects.count(),
        )

    return count


@pytest.mark.parametrize("handler", sorted(HANDLERS))
@pytest.mark.parametrize("kind", sorted(KINDS))
def test_frisian_errors_come_back_as_under_drfs_default_handler(
    kind: str,
    handler: str,
    server_errors: ServerErrors,
    stored: Callable[[], tuple[int, ...]],
) -> None:
    tool, arguments = KINDS[kind]
    before = stored()
    with _handled_by("drf default"):
        expected = _outcome(tool, arguments)
    assert stored() == before
    with _handled_by(handler):
        outcome = _outcome(tool, arguments)
    assert stored() == before
    assert _code(outcome) == EXPECTED[kind]
    assert outcome == expected
    assert SECRET not in str(outcome)
    assert server_errors.reported == []


@pytest.mark.parametrize("handler", sorted(HANDLERS))
def test_the_hosts_validation_errors_keep_its_handler_and_are_read_by_field(
    handler: str, server_errors: ServerErrors
) -> None:
    # The country check quotes the value; the host's handler renders it in
    # its own shape, which is read field by field and redacted.
    with _handled_by(handler):
        outcome = _outcome("publishers__create", {"name": "P", "country": "zq"})
    (entry,) = outcome["error"]["data"]["fields"]
    assert entry["field"] == "country"
    assert entry["message"] == "<value> is not an upper-case country code."
    assert "zq" not in str(outcome)
    assert not Publisher.objects.exists()
    assert server_errors.reported == []


def test_the_hosts_not_found_keeps_its_handler() -> None:
    with _handled_by("standardized, DEBUG off"):
        outcome = _outcome("publishers__retrieve", {"id": 987654})
    error = tool_error(outcome["result"])
    assert error["code"] == "not_found"
    assert "987654" not in str(outcome)


def test_the_hosts_own_bug_still_reaches_its_handler_and_monitoring(
    server_errors: ServerErrors,
) -> None:
    # Not frisian_mcp's error: the host's handler answers 500 and reports
    # it, as it would over REST.
    with _handled_by("standardized, DEBUG off"):
        outcome = _outcome("broken__create", {"name": "P"})
    assert _code(outcome) == "internal_error"
    assert len(server_errors.signals) == 1
    assert not Publisher.objects.exists()
