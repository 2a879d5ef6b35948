"""The endpoint answers alike whatever the host's DRF defaults (ADR 0039).

``MCPView`` is an ``APIView``, whose policies DRF reads from the host's
``REST_FRAMEWORK`` when the class is defined: the endpoint sets each one
itself. A fresh process imports it under a host that sets every default to
something unusual (tests/settings_unusual_drf.py) and posts real bodies.
"""

from __future__ import annotations

import json

import pytest

from tests.scripts import last_json

SCRIPT = r"""
import json, django
django.setup()
from django.core.management import call_command
call_command("migrate", verbosity=0)
from django.contrib.auth.models import User
from django.test import Client
from rest_framework.authtoken.models import Token

user = User.objects.create_user("agent")
token = Token.objects.create(user=user).key
client = Client()
def post(body, accept="application/json, text/event-stream", auth=True,
         content_type="application/json"):
    headers = {"HTTP_ACCEPT": accept}
    if auth:
        headers["HTTP_AUTHORIZATION"] = f"Token {token}"
    response = client.post(
        "/mcp", body, content_type=content_type, **headers
    )
    return {
        "status": response.status_code,
        "type": response.get("Content-Type"),
        "challenge": response.get("WWW-Authenticate"),
        "body": response.content.decode(),
    }
init = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {},
    "clientInfo": {"name": "t", "version": "1"}}})
ping = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "ping"})
print(json.dumps({
    "initialize": post(init),
    "pings": [post(ping) for _ in range(3)],
    "sse": post(ping, accept="text/event-stream"),
    "anonymous": post(ping, auth=False),
    "html": post(ping, accept="text/html"),
    "form": post("a=1", content_type="application/x-www-form-urlencoded"),
    "bad": post("{"),
    "get": {"status": client.get("/mcp").status_code},
}))
"""


@pytest.mark.subprocess
def test_the_hosts_drf_defaults_never_change_the_endpoint() -> None:
    seen = last_json(SCRIPT, "tests.settings_unusual_drf")
    initialize = seen["initialize"]
    assert (initialize["status"], initialize["type"]) == (200, "application/json")
    assert json.loads(initialize["body"])["result"]["protocolVersion"] == "2025-11-25"
    # Neither the host's throttles nor its permission classes apply.
    for pong in seen["pings"]:
        assert (pong["status"], json.loads(pong["body"])["result"]) == (200, {})
    sse = seen["sse"]
    assert (sse["status"], sse["type"]) == (200, "text/event-stream")
    assert '"result":{}' in sse["body"]
    anonymous = seen["anonymous"]
    assert (anonymous["status"], anonymous["challenge"]) == (401, "Token")
    refusal = json.loads(anonymous["body"])["error"]
    assert (refusal["code"], refusal["data"]["code"]) == (-32600, "not_authenticated")
    assert seen["html"]["status"] == 406
    assert json.loads(seen["html"]["body"])["error"]["code"] == -32600
    assert seen["form"]["status"] == 415
    assert json.loads(seen["form"]["body"])["error"]["code"] == -32600
    assert seen["bad"]["status"] == 400
    assert json.loads(seen["bad"]["body"])["error"]["code"] == -32700
    assert seen["get"]["status"] == 405
