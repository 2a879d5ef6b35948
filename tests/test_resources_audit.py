"""A resource read leaves its audit record, naming no value (ADR 0043)."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator

import pytest
from django.contrib.auth.models import User
from django.test import Client

from frisian_mcp.contrib.testing import MCPError, MCPTestClient
from tests.mounted import mounted
from tests.testapp.models import Publisher

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def audit_log(audit_stream: io.StringIO) -> Iterator[io.StringIO]:
    """The audit logger's output (tests/conftest.py), resources mounted."""
    with mounted("tests.urls_resources", {"REQUIRE_AUTHENTICATION": False}):
        yield audit_stream


@pytest.mark.parametrize("era", ["2025-11-25", "2026-07-28"])
def test_a_read_is_audited_as_its_retrieve_tool(
    audit_log: io.StringIO, era: str
) -> None:
    row = Publisher.objects.create(name="Zqxdutch", country="NL", code="ZQX1")
    django = Client()
    django.force_login(User.objects.create_user("auditor", password="pw"))
    mcp = MCPTestClient(django, protocol_version=era)
    mcp.request("resources/read", {"uri": f"drf://dutch/{row.pk}"})
    with pytest.raises(MCPError):
        mcp.request("resources/read", {"uri": "drf://coded/ZQX-missing"})
    records = [json.loads(line) for line in audit_log.getvalue().splitlines()]
    read, missing = records[-2:]
    assert (read["method"], read["tool"], read["outcome"]) == (
        "resources/read",
        "dutch__retrieve",
        "ok",
    )
    assert (missing["method"], missing["outcome"]) == ("resources/read", "not_found")
    assert missing["tool"] == "coded__retrieve"
    assert "ZQX" not in audit_log.getvalue()
    assert "Zqxdutch" not in audit_log.getvalue()
