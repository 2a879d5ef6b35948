"""The testing extra: an MCP client over Django's test ``Client``.

:class:`MCPTestClient` POSTs JSON-RPC bodies to the mounted endpoint and
decodes the HTTP response; docs/testing.md shows it in a test. Not an app:
nothing to install. Importing it imports ``django.test``; use it from tests
only (ADR 0021).
"""

from __future__ import annotations

import base64
import gzip
import itertools
import json
from collections.abc import Mapping
from typing import Any

from django.http import HttpResponse
from django.test import Client
from django.urls import reverse

from frisian_mcp.revisions import (
    CLIENT_CAPABILITIES_META,
    MODERN_VERSION_META,
    MODERN_VERSIONS,
)

__all__ = ["MCPError", "MCPTestClient", "tool_error"]

DEFAULT_PROTOCOL_VERSION = "2025-11-25"
#: 2026-07-28 methods whose Mcp-Name header mirrors params.name or params.uri.
_NAMED = frozenset({"tools/call", "prompts/get", "resources/read"})


class MCPError(Exception):
    """A JSON-RPC error response: ``code``, ``message``, ``data``, ``response``."""

    def __init__(self, error: Mapping[str, Any], response: HttpResponse) -> None:
        self.code: int = error.get("code", 0)
        self.message: str = error.get("message", "")
        self.data: Any = error.get("data")
        self.response = response
        super().__init__(f"{self.code}: {self.message}")


def tool_error(result: Mapping[str, Any]) -> Any:
    """The error object of an ``isError`` result, read from its text.

    A tool listed with an outputSchema answers an error as text only, no
    ``structuredContent`` (ADR 0038); the text holds the same JSON either way.
    """
    if result.get("isError") is not True:
        raise AssertionError(f"Not an error result: {result!r}")
    return json.loads(result["content"][0]["text"])["error"]


class MCPTestClient:
    """Speak MCP over HTTP to the endpoint of the project under test.

    Args:
        client: the Django test client to use (default: a new ``Client()``);
            log it in or give it headers to test as a particular user.
        path: the endpoint's path (default: ``reverse("frisian_mcp:endpoint")``).
        protocol_version: the version to ask for in ``initialize``, or a
            2026-07-28 version to send with every request (no handshake).
        headers: extra HTTP headers sent with every request, e.g.
            ``{"Authorization": "Token ..."}``.
    """

    def __init__(
        self,
        client: Client | None = None,
        *,
        path: str | None = None,
        protocol_version: str = DEFAULT_PROTOCOL_VERSION,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        self.client = client or Client()
        self.path = path or reverse("frisian_mcp:endpoint")
        self.requested_version = protocol_version
        self.modern = protocol_version in MODERN_VERSIONS
        self.protocol_version: str | None = protocol_version if self.modern else None
        self.headers = dict(headers or {})
        self._ids = itertools.count(1)

    def post(
        self, body: Any, *, headers: Mapping[str, str] | None = None, raw: bool = False
    ) -> HttpResponse:
        """POST ``body`` (JSON-encoded unless ``raw``) and return the response."""
        all_headers = {"Accept": "application/json, text/event-stream", **self.headers}
        if self.protocol_version:
            all_headers["MCP-Protocol-Version"] = self.protocol_version
        all_headers.update(headers or {})
        data = body if raw else json.dumps(body)
        response: HttpResponse = self.client.post(  # type: ignore[assignment]
            self.path, data=data, content_type="application/json", headers=all_headers
        )
        return response

    def request(self, method: str, params: Mapping[str, Any] | None = None) -> Any:
        """Send a request; return its ``result`` or raise :class:`MCPError`."""
        message: dict[str, Any] = {
            "jsonrpc": "2.0",
            "id": next(self._ids),
            "method": method,
        }
        headers: dict[str, str] = {}
        if self.modern:
            params = {**(params or {})}
            params["_meta"] = {
                MODERN_VERSION_META: self.requested_version,
                CLIENT_CAPABILITIES_META: {},
                "io.modelcontextprotocol/clientInfo": _CLIENT_INFO,
                **params.get("_meta", {}),
            }
            headers["Mcp-Method"] = method
            named = params.get("uri" if method == "resources/read" else "name")
            if method in _NAMED and isinstance(named, str):
                headers["Mcp-Name"] = _header_value(named)
        if params is not None:
            message["params"] = dict(params)
        response = self.post(message, headers=headers)
        payload = _decode(response)
        if not isinstance(payload, dict) or payload.get("id") != message["id"]:
            raise AssertionError(
                f"Not a response to request {message['id']}: {payload!r}"
            )
        if "error" in payload:
            raise MCPError(payload["error"], response)
        return payload["result"]

    def notify(
        self, method: str, params: Mapping[str, Any] | None = None
    ) -> HttpResponse:
        """Send a notification; the server answers 202 with no body."""
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = dict(params)
        return self.post(message)

    def initialize(self) -> dict[str, Any]:
        """Run the handshake: ``initialize`` then ``notifications/initialized``.

        In the 2026-07-28 revision there is none: this runs
        ``server/discover`` and returns its result.
        """
        if self.modern:
            discovered: dict[str, Any] = self.request("server/discover")
            return discovered
        result: dict[str, Any] = self.request(
            "initialize",
            {
                "protocolVersion": self.requested_version,
                "capabilities": {},
                "clientInfo": _CLIENT_INFO,
            },
        )
        self.protocol_version = result["protocolVersion"]
        self.notify("notifications/initialized")
        return result

    def list_tools(self) -> list[dict[str, Any]]:
        """Every tool, following ``nextCursor`` to the end."""
        tools: list[dict[str, Any]] = []
        params: dict[str, Any] = {}
        while True:
            result = self.request("tools/list", params)
            tools.extend(result["tools"])
            cursor = result.get("nextCursor")
            if not cursor:
                return tools
            params = {"cursor": cursor}

    def call_tool(
        self, name: str, arguments: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        """Call a tool; return the ``CallToolResult`` (check ``isError``).

        Argument errors come back as :class:`MCPError` (JSON-RPC -32602)
        under the default error style.
        """
        params: dict[str, Any] = {"name": name}
        if arguments is not None:
            params["arguments"] = dict(arguments)
        result: dict[str, Any] = self.request("tools/call", params)
        return result


_CLIENT_INFO = {"name": "frisian_mcp.testing", "version": "1"}


def _header_value(value: str) -> str:
    """``value`` as a header: as is when plain ASCII, else the Base64 sentinel."""
    if (
        value.isascii()
        and value.isprintable()
        and value == value.strip()
        and not (value.startswith("=?base64?") and value.endswith("?="))
    ):
        return value
    return "=?base64?" + base64.b64encode(value.encode("utf-8")).decode() + "?="


def _decode(response: HttpResponse) -> Any:
    content_type = response.get("Content-Type", "")
    raw = response.content
    if response.get("Content-Encoding") == "gzip":  # a host's GZipMiddleware
        raw = gzip.decompress(raw)
    body = raw.decode()
    if content_type.startswith("text/event-stream"):
        messages = [
            json.loads(line[len("data: ") :])
            for line in body.splitlines()
            if line.startswith("data: ") and line[len("data: ") :].strip()
        ]
        return messages[-1] if messages else None
    if not body:
        return None
    return json.loads(body)
