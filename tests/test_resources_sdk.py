"""The official SDK's client lists and reads resources (issue 28, ADR 0043).

Through tests/sdk_client.py: the SDK's own code negotiates, mirrors the
``Mcp-Name`` header, parses and checks the results, in each era.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client as DjangoClient
from mcp import Client
from mcp.shared.exceptions import MCPError

from tests.mounted import mounted
from tests.sdk_client import InProcessServer
from tests.testapp.models import Publisher

pytestmark = pytest.mark.django_db

MODES = pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])


@pytest.fixture(autouse=True)
def _mounted(db: None) -> Iterator[None]:
    with mounted("tests.urls_resources", {"REQUIRE_AUTHENTICATION": False}):
        yield


def server() -> InProcessServer:
    django = DjangoClient()
    django.force_login(User.objects.create_user("reader", password="pw"))
    return InProcessServer(django)


@MODES
def test_the_sdk_lists_and_reads_a_record(mode: str) -> None:
    row = Publisher.objects.create(name="Dutch", country="NL", code="A/B")

    async def body(client: Client) -> dict[str, Any]:
        templates = await client.list_resource_templates()
        resources = await client.list_resources()
        read = await client.read_resource(f"drf://dutch/{row.pk}")
        coded = await client.read_resource("drf://coded/A%2FB")
        try:
            await client.read_resource("drf://staff/1")
        except MCPError as exc:
            missing = exc.error.code
        return {
            "templates": [t.uri_template for t in templates.resource_templates],
            "resources": [str(r.uri) for r in resources.resources],
            "read": read.contents,
            "coded": coded.contents,
            "missing": missing,
        }

    found = server().run(body, mode)
    assert "drf://dutch/{id}" in found["templates"]
    assert "drf://staff/{id}" not in found["templates"]
    assert found["resources"] == ["drf://first", "drf://me"]
    [content] = found["read"]
    assert str(content.uri) == f"drf://dutch/{row.pk}"
    assert json.loads(content.text)["name"] == "Dutch"
    assert json.loads(found["coded"][0].text)["code"] == "A/B"
    assert found["missing"] == (-32602 if mode == "2026-07-28" else -32002)
