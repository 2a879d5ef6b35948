"""What hosts answer, in whatever shape their exception handler renders it.

Real projects install other exception handlers (drf-standardized-errors,
RFC 9457 problem details) and answer refusals with their own reasons. The
agent gets the fields and the host's reason, never a value it sent.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings
from django.test import override_settings

from frisian_mcp.contrib.testing import MCPError, MCPTestClient, tool_error
from tests.testapp.models import Book, Publisher

pytestmark = pytest.mark.django_db

#: fits the two-letter column; the country check quotes it.
SECRET = "zq"


def _handled_by(handler: str) -> Any:
    return override_settings(
        REST_FRAMEWORK={**settings.REST_FRAMEWORK, "EXCEPTION_HANDLER": handler}
    )


@pytest.mark.parametrize(
    "handler",
    [
        "drf_standardized_errors.handler.exception_handler",
        "tests.testapp.handlers.problem",
    ],
)
def test_other_error_shapes_name_the_field_and_echo_nothing(handler: str) -> None:
    with _handled_by(handler):
        mcp = MCPTestClient()
        mcp.initialize()
        with pytest.raises(MCPError) as info:
            mcp.call_tool(
                "testapp__publishers__create", {"name": "P", "country": SECRET}
            )
    error = info.value
    assert error.code == -32602
    assert SECRET not in error.response.content.decode()
    (entry,) = error.data["fields"]
    assert entry["field"] == "country"
    assert entry["message"] == "<value> is not an upper-case country code."
    assert not Publisher.objects.exists()


def test_an_unknown_error_shape_gets_one_value_free_entry() -> None:
    with _handled_by("tests.testapp.handlers.opaque"):
        mcp = MCPTestClient()
        mcp.initialize()
        with pytest.raises(MCPError) as info:
            mcp.call_tool(
                "testapp__publishers__create", {"name": "P", "country": SECRET}
            )
    (entry,) = info.value.data["fields"]
    assert entry["field"] == "non_field_errors"
    assert "the same request over REST shows why" in entry["message"]
    assert SECRET not in info.value.response.content.decode()
    assert not Publisher.objects.exists()


@override_settings(ROOT_URLCONF="tests.urls_errors")
def test_the_hosts_own_conflict_reason_reaches_the_agent() -> None:
    publisher = Publisher.objects.create(name="Kept", country="NL")
    Book.objects.create(title="A", isbn="1", publisher=publisher)
    Book.objects.create(title="B", isbn="2", publisher=publisher)
    mcp = MCPTestClient()
    mcp.initialize()
    result = mcp.call_tool("publishers__destroy", {"id": publisher.pk})
    assert result["isError"] is True
    payload = tool_error(result)
    assert payload["code"] == "conflict"
    assert payload["detail"] == "Cannot delete: 2 books still name this publisher."
    assert "2 books still name this publisher" in result["content"][0]["text"]
    assert Publisher.objects.filter(pk=publisher.pk).exists()


@override_settings(ROOT_URLCONF="tests.urls_errors")
def test_a_short_number_the_caller_sent_does_not_mangle_the_hosts_reason() -> None:
    # The publisher's id is 2, and so is the count in the host's reason: a
    # one- or two-digit number carries nothing worth hiding, and redacting
    # it would turn the count into "<value> books".
    publisher = Publisher.objects.create(pk=2, name="Kept", country="NL")
    Book.objects.create(title="A", isbn="1", publisher=publisher)
    Book.objects.create(title="B", isbn="2", publisher=publisher)
    mcp = MCPTestClient()
    mcp.initialize()
    result = mcp.call_tool("publishers__destroy", {"id": 2})
    payload = tool_error(result)
    assert payload["detail"] == "Cannot delete: 2 books still name this publisher."
    assert Publisher.objects.filter(pk=2).exists()


@override_settings(ROOT_URLCONF="tests.urls_errors")
def test_a_host_reason_quoting_the_lookup_is_redacted() -> None:
    mcp = MCPTestClient()
    mcp.initialize()
    result = mcp.call_tool("publishers__retrieve", {"id": 987654})
    payload = tool_error(result)
    assert payload["code"] == "not_found"
    assert "987654" not in str(result)
