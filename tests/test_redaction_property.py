"""Property: no fragment of any value a call sent appears in its error.

A high-entropy marker is embedded in a longer value (a prefix, a suffix, a
URL's host or path, JSON inside a string, a query term, an item of a comma
list) or in a key name, and the value is sent where some message will
mention it: a host's ``validate()``, a filter set, a lookup, an enum, an
unknown argument or filter key, a wrapper, a bulk item, a path lookup.
Whatever the error, no four characters of the marker in a row are in the
reply, and nothing is written.
"""

from __future__ import annotations

import json
import string
from typing import Any

import pytest
from django.test import override_settings
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from demo_project.contacts.models import Contact
from demo_project.dcim.models import Device
from frisian_mcp.contrib.testing import MCPTestClient, tool_error
from tests.testapp.models import Book

pytestmark = pytest.mark.django_db

# Letters outside a-f, digits outside 0-1: no window of a marker can be
# part of a hex correlation id, a number or a word of the reply by chance.
LETTERS = "ghjkmnpqrstuvwxyzGHJKMNPQRSTUVWXYZ"
DIGITS = "23456789"
markers = st.lists(
    st.tuples(st.sampled_from(LETTERS), st.sampled_from(DIGITS)), min_size=4, max_size=6
).map(lambda pairs: "".join(a + b for a, b in pairs))
noise = st.text(alphabet=string.ascii_lowercase + "_", min_size=1, max_size=6)

#: How a marker sits inside a longer value (no whitespace: one query word).
EMBEDDINGS = (
    "{m}",
    "{a}{m}",
    "{m}{a}",
    "{a}-{m}:1",
    "https://{m}.example/{a}",
    "https://{a}.example/{m}?q={a}",
    '{{"{a}":"{m}"}}',
    '["AND",[["{m}","exact",1]]]',
    "{a},{m},{a}",
    "{a}:{m}",
)
#: How a marker sits inside a key name.
KEYS = ("{m}", "x_{m}", "{a}{m}", "{m}_{a}")


def embedded(template: str, marker: str, around: str) -> str:
    return template.format(m=marker, a=around)


def calls(value: str, key: str) -> list[tuple[str, dict[str, Any]]]:
    """Calls that each fail with a message about ``value`` or ``key``."""
    book = {"title": "T", "isbn": "1"}
    return [
        ("components__create", {**book, "flags": value}),
        ("components__create", {**book, "repo": f"https://{value}.example/r.git"}),
        ("components__create", {**book, "rules": json.dumps({"checks": [value]})}),
        ("components__create", {**book, "title": f"Draft {value}"}),
        ("components__create", {**book, "shelf_mark": value}),
        ("components__create", {"objects": [{**book, "flags": value}, book]}),
        ("components__retrieve", {"id": f"9{value}"}),
        (
            "documents__list",
            {"filters": {"custom_field_query": json.dumps(["AND", [[value, "x", 1]]])}},
        ),
        ("documents__list", {"filters": {"query": f"title:a nofield{value}:b"}}),
        ("documents__list", {"filters": {"genre__in": ["fiction", value]}}),
        ("platform__list", {"filters": {key: "x"}}),
        ("contacts__create", {"email": "ada@example.com", key: 1}),
        ("contacts__create", {"data": {"email": value}}),
        ("contacts__create", {"email": value}),
        ("dcim__devices__create", {"name": "d", "site": {"name": value}}),
        ("dcim__devices__create", {"name": "d", "site": {key: "x"}}),
        ("dcim__sites__list", {"filters": {"status": value}}),
    ]


@override_settings(ROOT_URLCONF="tests.hosts.quoting.urls")
@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    marker=markers,
    around=noise,
    template=st.sampled_from(EMBEDDINGS),
    key_template=st.sampled_from(KEYS),
    which=st.integers(min_value=0, max_value=16),
)
def test_no_fragment_of_a_sent_value_in_any_error(
    marker: str, around: str, template: str, key_template: str, which: int
) -> None:
    value = embedded(template, marker, around)
    key = embedded(key_template, marker, around)
    tool, arguments = calls(value, key)[which]
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
    assert response.status_code == 200
    reply = json.loads(response.content)
    error = reply.get("error") or tool_error(reply["result"])
    assert error["code"] != "internal_error"
    body = response.content.decode().casefold()
    fragments = {marker[i : i + 4].casefold() for i in range(len(marker) - 3)}
    assert not [f for f in fragments if f in body], (tool, arguments, body)
    assert not Book.objects.exists()
    assert not Contact.objects.exists()
    assert not Device.objects.exists()
