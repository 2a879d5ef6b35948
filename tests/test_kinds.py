"""The kinds table: what each kind implies, as tools/list shows it (ADR 0029)."""

from __future__ import annotations

import pytest

from frisian_mcp.arguments import ARGUMENTS, NAMES
from frisian_mcp.contrib.testing import MCPTestClient
from frisian_mcp.kinds import KINDS
from frisian_mcp.registry import get_registry
from frisian_mcp.tools import lean_annotations

pytestmark = pytest.mark.django_db


def test_each_listed_tool_carries_its_rows_annotations_and_arguments() -> None:
    mcp = MCPTestClient()
    mcp.initialize()
    listed = {t["name"]: t for t in mcp.list_tools()}
    seen = set()
    for tool in get_registry():
        if tool.name not in listed or tool.schema is None:
            continue
        row = tool.endpoint.row
        seen.add(tool.endpoint.category)
        entry = listed[tool.name]
        assert entry["annotations"] == lean_annotations(row.annotations)
        declared = set(entry["inputSchema"].get("properties", ())) & NAMES
        paging = {"page", "page_size", "continuation_token"}
        assert declared - paging <= set(row.arguments)
    assert {"list", "read", "create", "update", "delete"} <= seen


WRITES = ["create", "update", "delete", "action", "bulk_update", "bulk_delete"]


def test_the_oauth_default_scopes_are_the_rows_scopes() -> None:
    from frisian_mcp.contrib.oauth.authentication import CATEGORIES, DEFAULT_SCOPES

    assert DEFAULT_SCOPES == {
        "mcp:read": ["list", "read", "safe_action"],
        "mcp:write": WRITES,
    }
    assert frozenset(KINDS) == CATEGORIES


def test_a_row_reads_only_when_it_neither_writes_nor_destroys() -> None:
    for row in KINDS.values():
        hints = row.annotations
        assert hints["readOnlyHint"] is (row.scope == "read")
        assert hints["readOnlyHint"] or "destructiveHint" in hints
        assert row.bulk is (row.kind == "create")


def test_every_argument_a_kind_takes_has_one_row() -> None:
    """Each protocol argument is said once, in ``ARGUMENTS`` (ADR 0042)."""
    assert set(ARGUMENTS) >= NAMES
    for name, row in ARGUMENTS.items():
        assert row.name == name
        assert len(row.listing) <= 60 or name not in NAMES
        assert len(row.explained()) > len(row.listing)
