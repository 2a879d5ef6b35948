"""The inner request asks for what a tool result can carry (issue 25 item 5).

A view wrapped in ``@gzip_page`` compresses its answer for a request that
says ``Accept-Encoding: gzip``, and all common HTTP clients say so to the
MCP endpoint; a view with ``@etag`` answers 304 to a matching
``If-None-Match``. The inner request of a tool call carries neither, nor any
other header of the MCP POST's own body, connection or conditions: its
answer is the JSON or the bytes REST gives a client that asks plainly. The
host's own middleware (``GZipMiddleware``, ``ConditionalGetMiddleware``)
works on the MCP endpoint's answer as on any other.
"""

from __future__ import annotations

import base64
import gzip
import json
from collections.abc import Iterator
from typing import Any

import pytest
from django.conf import settings
from django.test import Client, override_settings

from frisian_mcp.contrib.testing import MCPTestClient
from tests.hosts.catalogue.models import Feature, Product

pytestmark = pytest.mark.django_db

FILES = "frisian_mcp.contrib.files.hooks.FileHook"
#: What an HTTP client sends to the MCP endpoint along with its call.
OUTER = {
    "Accept-Encoding": "gzip, deflate, br",
    "If-None-Match": '"catalogue-v1"',
    "If-Modified-Since": "Wed, 01 Jan 2025 00:00:00 GMT",
    "Range": "bytes=0-10",
    "Connection": "keep-alive",
    "Accept-Language": "nl",
    "X-Forwarded-For": "203.0.113.9",
}


@pytest.fixture(autouse=True)
def _host() -> Iterator[None]:
    with override_settings(
        ROOT_URLCONF="tests.hosts.catalogue.urls",
        DEBUG=False,
        FRISIAN_MCP={
            "REQUIRE_AUTHENTICATION": False,
            "TOOL_LAYOUT": "flat",
            "CALL_HOOKS": [FILES],
        },
    ):
        yield


@pytest.fixture(autouse=True)
def catalogue() -> None:
    """Enough rows that every answer is worth compressing (200 bytes)."""
    for i in range(20):
        Product.objects.create(pk=101 + i, name=f"Product {i}", sku=f"SKU-{i:03}")
    for i in range(30):
        Feature.objects.create(pk=101 + i, name=f"feature-number-{i:02}")


@pytest.fixture
def outer() -> MCPTestClient:
    client = MCPTestClient(headers=OUTER)
    client.initialize()
    return client


def rest(url: str, **headers: str) -> Any:
    response = Client().get(url, headers=headers)
    assert response.status_code == 200, response.status_code
    return response


def resource(result: dict[str, Any]) -> dict[str, Any]:
    assert result["isError"] is False, result
    (block,) = [c for c in result["content"] if c["type"] == "resource"]
    found: dict[str, Any] = block["resource"]
    return found


def test_the_views_compress_for_a_client_that_takes_gzip() -> None:
    """What the tests below rule out: REST's answer to the same header."""
    for url in ("/api/products/export/", "/api/products/sheet/", "/api/features/"):
        response = rest(url, **{"Accept-Encoding": "gzip"})
        assert response["Content-Encoding"] == "gzip", url


def test_a_compressing_views_json_comes_as_json(outer: MCPTestClient) -> None:
    result = outer.call_tool("products__export")
    assert result["isError"] is False, result
    plain = json.loads(rest("/api/products/export/").content)
    assert result["structuredContent"] == plain
    assert len(plain["products"]) == 20


def test_a_compressing_views_file_comes_as_its_bytes(outer: MCPTestClient) -> None:
    sent = resource(outer.call_tool("products__sheet"))
    assert sent["mimeType"].startswith("text/csv")
    assert sent["text"] == rest("/api/products/sheet/").content.decode()


@pytest.mark.parametrize(
    ("tool", "url"),
    [("features__list", "/api/features/"), ("features__sheet", "/api/features/sheet/")],
)
def test_a_view_compressed_at_dispatch_answers_plainly(
    outer: MCPTestClient, tool: str, url: str
) -> None:
    result = outer.call_tool(
        tool, {} if tool == "features__sheet" else {"page_size": 25}
    )
    plain = rest(url)
    if tool == "features__sheet":
        assert resource(result)["text"] == plain.content.decode()
    else:
        rows = result["structuredContent"]["results"]
        assert rows == json.loads(plain.content)["results"]


def test_a_conditional_view_answers_its_data_not_304(outer: MCPTestClient) -> None:
    assert Client().get("/api/products/stamp/", headers=OUTER).status_code == 304
    result = outer.call_tool("products__stamp")
    assert result["structuredContent"] == json.loads(
        rest("/api/products/stamp/").content
    )


def test_the_inner_request_keeps_what_the_hosts_code_needs(
    outer: MCPTestClient,
) -> None:
    received = set(outer.call_tool("products__received")["structuredContent"]["result"])
    assert {"HTTP_ACCEPT_LANGUAGE", "HTTP_X_FORWARDED_FOR"} <= received
    assert received.isdisjoint(
        {
            "HTTP_ACCEPT_ENCODING",
            "HTTP_IF_NONE_MATCH",
            "HTTP_IF_MODIFIED_SINCE",
            "HTTP_RANGE",
            "HTTP_CONNECTION",
            "HTTP_CONTENT_LENGTH",
            "HTTP_CONTENT_TYPE",
        }
    ), received


def middleware(*names: str) -> list[str]:
    return [*settings.MIDDLEWARE, *names]


@override_settings(
    MIDDLEWARE=middleware(
        "django.middleware.gzip.GZipMiddleware",
        "django.middleware.http.ConditionalGetMiddleware",
    )
)
def test_the_hosts_middleware_compresses_the_endpoints_answer() -> None:
    """GZipMiddleware compresses the MCP answer itself, once: inside it,
    the JSON and the file's bytes are as REST's plain answers."""
    client = MCPTestClient(headers=OUTER)
    client.initialize()
    call = {"jsonrpc": "2.0", "id": 7, "method": "tools/call"}
    for tool, url in (
        ("products__export", "/api/products/export/"),
        ("products__sheet", "/api/products/sheet/"),
        ("products__stamp", "/api/products/stamp/"),
    ):
        response = client.post({**call, "params": {"name": tool, "arguments": {}}})
        body = response.content
        if tool != "products__stamp":  # long enough to compress (200 bytes)
            assert response["Content-Encoding"] == "gzip", tool
            body = gzip.decompress(body)
        reply = json.loads(body)
        result = reply["result"]
        plain = rest(url).content
        if tool == "products__sheet":
            sent = resource(result)
            data = sent.get("text", "").encode() or base64.b64decode(sent["blob"])
            assert data == plain
        else:
            assert result["structuredContent"] == json.loads(plain), tool


@override_settings(MIDDLEWARE=middleware("django.middleware.gzip.GZipMiddleware"))
def test_the_test_client_reads_a_compressed_answer() -> None:
    """A host's GZipMiddleware compresses any answer over 200 bytes, an
    initialize with instructions too: the testing extra decodes it."""
    options = {"REQUIRE_AUTHENTICATION": False, "SERVER_INSTRUCTIONS": "x " * 200}
    with override_settings(FRISIAN_MCP=options):
        client = MCPTestClient(headers=OUTER)
        response = client.post(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {"protocolVersion": "2025-11-25", "capabilities": {}},
            }
        )
        assert response["Content-Encoding"] == "gzip"
        assert client.initialize()["instructions"] == "x " * 200
