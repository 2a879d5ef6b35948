"""Issue 25 item 13: a refused write names the rule it broke and its model.

A translation platform's project create also writes the project's
translations; when the database refused one of them for a missing NOT NULL
value, the agent read "The change conflicts with existing data (Project)":
the wrong model and the wrong cause. Now the ``conflict`` says which rule
(``cause``: unique, NOT NULL, foreign key, check), which model's table
refused the row (``model``) and which field or constraint, read from
PostgreSQL's SQLSTATE and diagnostics or from SQLite's result code and
message; never a value.

These tests commit for real (``transaction=True``), as REST runs the same
requests in autocommit (``DEBUG = False``: REST answers 500), and compare
the rows each leaves. Run them on PostgreSQL too (``DATABASE_URL``).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.db import connection
from django.test import Client, override_settings

from frisian_mcp.contrib.testing import MCPTestClient, tool_error
from tests.hosts.platform.models import Project, Translation

pytestmark = pytest.mark.django_db(transaction=True)

MARKER = "zq-k7m3q9wx"
SQLITE = connection.vendor == "sqlite"


@pytest.fixture(autouse=True)
def _platform() -> Any:
    with override_settings(ROOT_URLCONF="tests.hosts.platform.urls", DEBUG=False):
        yield


def rows() -> tuple[int, int]:
    """(projects, translations) stored, then forgotten."""
    found = (Project.objects.count(), Translation.objects.count())
    Translation.objects.all().delete()
    Project.objects.filter(parent__isnull=False).delete()
    Project.objects.all().delete()
    return found


def conflict(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """The tool's error: a ``conflict`` result that echoes no value."""
    mcp = MCPTestClient()
    mcp.initialize()
    response = mcp.post(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": tool, "arguments": arguments},
        }
    )
    assert MARKER[3:] not in response.content.decode()
    result = json.loads(response.content)["result"]
    assert result["isError"] is True, result
    error: dict[str, Any] = tool_error(result)
    assert error["code"] == "conflict"
    return error


@pytest.mark.parametrize(
    ("body", "cause", "model", "named"),
    [
        # A translation written by perform_create without its language.
        ({"languages": [None]}, "not_null", "translation", "language_code"),
        # Two translations of one language: the child's unique constraint.
        ({"languages": ["nl", "nl"]}, "unique", "translation", None),
        # A progress the serializer does not bound: the child's check.
        (
            {"languages": ["nl"], "progress": 500},
            "check",
            "translation",
            "platform_progress_le_100",
        ),
        # A negative one: the column's own check (PositiveSmallIntegerField).
        ({"languages": ["nl"], "progress": -5}, "check", "translation", "progress"),
        # A parent that does not exist: the project's own foreign key.
        ({"parent_id": 424242}, "foreign_key", "project", None),
    ],
)
def test_a_refused_write_names_its_rule_and_model(
    body: dict[str, Any], cause: str, model: str, named: str | None
) -> None:
    arguments = {"slug": MARKER, **body}
    error = conflict("projects__create", arguments)
    over_mcp = rows()
    response = Client(raise_request_exception=False).post(
        "/api/projects/", arguments, content_type="application/json"
    )
    assert response.status_code == 500
    assert over_mcp == rows()
    assert error["cause"] == cause
    if cause == "foreign_key" and SQLITE:
        # SQLite says "FOREIGN KEY constraint failed", and nothing of where.
        assert "model" not in error
        assert "refer to a row that does not exist" in error["message"]
        return
    assert error["model"] == model
    if cause != "unique":
        assert "conflicts with existing data" not in error["message"]
        assert f"a {model} row" in error["message"]
    else:
        assert "(translation)" in error["message"]
        assert "fields" not in error  # the project's slug did not collide
    if named is not None:  # PostgreSQL names the column's check for it
        assert named in error["message"], error


def test_deleting_a_row_others_still_refer_to_names_the_foreign_key() -> None:
    parent = Project.objects.create(slug="parent")
    Project.objects.create(slug="child", parent=parent)
    error = conflict("projects__destroy", {"id": parent.pk})
    assert error["cause"] == "foreign_key"
    assert error.get("model", "project") == "project"
    assert rows() == (2, 0)
