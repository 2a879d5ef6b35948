"""Property: whatever arguments reach contacts__create, no garbage is written.

Random argument objects (declared fields, typos, wrappers, bulk bodies,
values of every JSON type) either create rows holding exactly the declared
fields that were sent, or come back as an error with no row written; never a
server error, always a valid JSON-RPC response.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from demo_project.contacts.models import Contact
from frisian_mcp.contrib.testing import MCPTestClient

pytestmark = pytest.mark.django_db

DECLARED = ("email", "first_name", "last_name", "phone", "notes")
OTHER_KEYS = (
    "emial",
    "data",
    "objects",
    "items",
    "id",
    "created_at",
    "page",
    "mode",
    "x-y",
    "",
)

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**40), max_value=2**40),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
    st.sampled_from(["ada@example.com", "Ada", "+31 20 555 0100", ""]),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(DECLARED + OTHER_KEYS), inner, max_size=3),
    ),
    max_leaves=6,
)
flat = st.dictionaries(st.sampled_from(DECLARED + OTHER_KEYS), values, max_size=5)
good_item = st.fixed_dictionaries(
    {},
    optional={
        "email": st.just("ada@example.com"),
        "first_name": st.text(max_size=20),
        "notes": st.text(max_size=30),
    },
)
bulk = st.builds(
    lambda key, items: {key: items},
    st.sampled_from(["objects", "data", "items"]),
    st.lists(st.one_of(good_item, flat), max_size=4),
)
arguments = st.one_of(flat, bulk, good_item)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(arguments)
def test_no_call_writes_garbage(args: dict[str, Any]) -> None:
    mcp = MCPTestClient(headers={"MCP-Protocol-Version": "2025-11-25"})
    before = set(Contact.objects.values_list("pk", flat=True))
    response = mcp.post(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "contacts__create", "arguments": args},
        }
    )
    assert response.status_code < 500
    body = json.loads(response.content)
    assert body["jsonrpc"] == "2.0"
    assert body["id"] == 1
    new = Contact.objects.exclude(pk__in=before)
    if "error" in body or body["result"]["isError"]:
        assert not new.exists(), args
        return
    structured = body["result"]["structuredContent"]
    sent = next(iter(args.values())) if "created" in structured else [args]
    rows = sorted(new, key=lambda c: c.created_at)
    assert len(rows) == len(sent)
    for row, item in zip(rows, sent, strict=True):
        assert set(item) <= set(DECLARED), item
        assert item, "an empty write was accepted"
        assert any(str(v).strip() for v in item.values()), (
            "an all-blank create was accepted"
        )
        for field in DECLARED:
            # DRF's CharField trims surrounding whitespace.
            assert getattr(row, field) == item.get(field, "").strip(), (field, item)
