"""A -32603 keeps the request's id once the body was read (issue 22 item 6).

An authenticator that fails unexpectedly (a database gone away, a bug) made
the endpoint answer -32603 with ``"id": null`` although the request had
one: a client could not tell which request failed.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client, override_settings

pytestmark = pytest.mark.django_db

SECRET = "hostile-7f3a9c"


class BrokenAuthentication:
    def authenticate(self, request: Any) -> Any:
        raise RuntimeError(SECRET)

    def authenticate_header(self, request: Any) -> str:
        return "Broken"


@override_settings(
    FRISIAN_MCP={
        "REQUIRE_AUTHENTICATION": False,
        "AUTHENTICATION_CLASSES": [f"{__name__}.BrokenAuthentication"],
    }
)
@pytest.mark.parametrize(
    ("body", "request_id"),
    [
        ({"jsonrpc": "2.0", "id": "req-42", "method": "tools/list"}, "req-42"),
        ({"jsonrpc": "2.0", "id": 42, "method": "ping"}, 42),
        ([{"jsonrpc": "2.0", "id": 1, "method": "ping"}], None),
    ],
)
def test_an_internal_error_keeps_the_request_id(
    client: Client, body: Any, request_id: Any
) -> None:
    response = client.post("/mcp", json.dumps(body), content_type="application/json")
    assert response.status_code == 500
    answer = response.json()
    assert answer["id"] == request_id
    assert answer["error"]["code"] == -32603
    assert SECRET not in response.content.decode()


def test_an_internal_error_on_a_body_that_is_no_json_has_no_id(client: Client) -> None:
    with override_settings(
        FRISIAN_MCP={
            "REQUIRE_AUTHENTICATION": False,
            "AUTHENTICATION_CLASSES": [f"{__name__}.BrokenAuthentication"],
        }
    ):
        response = client.post(
            "/mcp", b'{"id": 3, "method": ', content_type="application/json"
        )
    assert response.status_code == 500
    assert response.json()["id"] is None
