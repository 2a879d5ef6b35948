"""Regressions found by the fuzzers: strings that are not plain text.

Lone surrogates, NUL characters and path values outside Latin-1 once ended
as -32603 and HTTP 500; each must be refused as bad input, writing nothing.
"""

from __future__ import annotations

from typing import Any

import pytest

from frisian_mcp.contrib.testing import tool_error
from tests.test_fuzz import (
    DEVICE,
    SITE,
    check_no_echo,
    check_not_5xx,
    check_response_object,
    decode_body,
    post_raw,
    row_counts,
    tool_reply,
)


def test_regression_lone_surrogate_in_request_id(db: None) -> None:
    """A ``\\ud800`` escape is valid JSON syntax but no Unicode text.

    Found by ``test_raw_bodies_and_headers``: ``json.loads`` accepts it, the
    id is echoed into the reply, and encoding that reply as UTF-8 (in
    ``views._render``) raises UnicodeEncodeError: HTTP 500. Any string in
    the body holding one fails somewhere later (see the next test); the body
    is not text and deserves a -32700 (or -32600) up front.
    """
    response = post_raw(b'{"jsonrpc":"2.0","id":"\\ud800","method":"ping"}')
    check_not_5xx(response)
    reply = decode_body(response)
    check_response_object(reply, None)


@pytest.mark.parametrize(
    ("tool_name", "arguments"),
    [
        ("contacts__create", {"first_name": "ZZQsurrogat\ud800"}),
        ("dcim__devices__partial_update", {"id": DEVICE, "name": "ZZQsurrogat\ud800"}),
        ("contacts__list", {"filters": {"search": "ZZQsurrogat\ud800"}}),
        ("contacts__list", {"filters": {"email": "ZZQsurrogat\ud800"}}),
        (
            "dcim__sites__create",
            {"name": "ZZQsurrogat\ud800", "slug": "fuzz-surrogate"},
        ),
        ("contacts__retrieve", {"id": "ZZQsurrogat\ud800"}),
        (
            "dcim__devices__create",
            {"name": "fuzz", "site": SITE, "tags": [{"name": "ZZQsurrogat\ud800"}]},
        ),
    ],
)
def test_regression_lone_surrogate_in_arguments(
    demo_data: None, tool_name: str, arguments: dict[str, Any]
) -> None:
    """Found by ``test_tool_arguments``: a string with a lone surrogate.

    It reached the encoding of the request body (or the database driver) and ends as -32603 with HTTP 500. It is not text: the call must
    be refused as bad input, writing nothing.
    """
    before = row_counts()
    _, reply = tool_reply(tool_name, arguments)
    rejected = "error" in reply or reply["result"]["isError"]
    assert rejected, reply
    assert row_counts() == before
    check_no_echo(reply.get("error") or reply["result"], arguments)


@pytest.mark.parametrize(
    ("tool_name", "arguments"),
    [
        ("contacts__retrieve", {"id": "ZZQnonlatin\u4e2d"}),
        ("contacts__destroy", {"id": "ZZQnonlatin\u0645"}),
        ("contacts__partial_update", {"id": "ZZQnonlatin\U0001f600", "notes": "x"}),
    ],
)
def test_regression_non_latin1_path_value(
    demo_data: None, tool_name: str, arguments: dict[str, Any]
) -> None:
    """Found by ``test_tool_arguments``: a path value outside Latin-1.

    ``invocation.requests.build_request`` puts the raw path into the WSGI
    ``PATH_INFO``, which WSGI (and Django's ``get_bytes_from_wsgi``) wants
    as UTF-8 bytes decoded as ISO-8859-1; ``"\u4e2d"`` raises
    UnicodeEncodeError, a -32603 and HTTP 500. It must be what any other
    id that is not a UUID gets: not found (or an argument error).
    """
    before = row_counts()
    _, reply = tool_reply(tool_name, arguments)
    if "error" in reply:
        assert reply["error"]["code"] == -32602, reply
    else:
        assert reply["result"]["isError"] is True, reply
        assert tool_error(reply["result"])["code"] == "not_found"
    assert row_counts() == before
    check_no_echo(reply.get("error") or reply["result"], arguments)


@pytest.mark.parametrize(
    "arguments",
    [
        {"name": "fuzz", "site": {"name": "ZZQnulchars\x00"}},
        {"name": "fuzz", "site": {"slug": "ZZQnulchars\x00"}},
        {"name": "fuzz", "site": SITE, "tags": [{"name": "ZZQnulchars\x00"}]},
    ],
)
def test_regression_nul_in_lookup_object(
    demo_data: None, arguments: dict[str, Any]
) -> None:
    """Found by ``test_tool_arguments`` on PostgreSQL: NUL in a lookup value.

    ``registry.references._resolve`` runs ``queryset.filter(**lookup)`` with
    the value as is; PostgreSQL refuses text holding NUL with a DataError,
    which ``_resolve`` does not catch: -32603, HTTP 500 (and an aborted
    transaction). SQLite just finds no row. Either way it is an
    ``invalid_reference``.
    """
    before = row_counts()
    _, reply = tool_reply("dcim__devices__create", arguments)
    assert reply["error"]["code"] == -32602, reply
    assert reply["error"]["data"]["code"] == "invalid_reference", reply
    assert row_counts() == before
    check_no_echo(reply["error"], arguments)
