"""Replies: a JSON-RPC answer as text, each tool result's structure encoded once;
the endpoint's DRF renderers (JSON, or a one-event SSE stream).

A ``CallToolResult`` carries its structure as text and (from 2025-06-18) as
``structuredContent``: :func:`encode` writes the text :func:`tool_result`
made into the envelope as it is, the same bytes as ``json.dumps`` of the
whole answer (docs/performance.md).
"""

from __future__ import annotations

import json
import secrets
import uuid
from typing import Any

from rest_framework.renderers import BaseRenderer

from frisian_mcp.jsonschema import plain
from frisian_mcp.types import JSONObject

__all__ = [
    "EventStreamRenderer",
    "JSONRPCRenderer",
    "ToolResult",
    "Verbatim",
    "dumps",
    "encode",
    "tool_result",
]


#: One encoder for every reply: ``json.dumps`` with options builds one per call.
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def dumps(value: Any) -> str:
    """``value`` as compact JSON text, non-ASCII as is (every reply's form)."""
    return _ENCODER.encode(value)


class ToolResult(dict[str, Any]):
    """A ``CallToolResult``; ``text`` is ``structure``, its ``structuredContent``, encoded."""

    structure: Any = None
    text: str | None = None


def tool_result(
    structured: JSONObject, *, is_error: bool, with_structure: bool
) -> ToolResult:
    """The JSON as text, and as ``structuredContent`` when ``with_structure``.

    What a view answers is encoded as it is when JSON has a type for each
    value (what DRF's serializers return); else it is made plain first
    (:func:`~frisian_mcp.jsonschema.plain`: decimals, lazy texts, dates).
    """
    if is_error:
        structured = {"error": structured}
    try:
        text = dumps(structured)
    except TypeError:  # a value JSON has no type for: DRF's own encoding
        structured = plain(structured)
        text = dumps(structured)
    result = ToolResult(content=[{"type": "text", "text": text}])
    if with_structure:
        result["structuredContent"] = result.structure = structured
        result.text = text
    result["isError"] = is_error
    return result


class Verbatim(str):
    """Text whose JSON string is itself between quotes (base64: no character
    needs escaping), so :func:`encode` writes it without scanning it; a
    resource's ``blob`` of a megabyte costs a copy, not an encoding."""


def encode(body: Any) -> str:
    """``body`` (a response, or a batch's list of them) as compact JSON text."""
    if isinstance(body, list):
        return "[" + ",".join(encode(response) for response in body) + "]"
    if not isinstance(body, dict) or next(reversed(body), None) != "result":
        return dumps(body)
    result = body["result"]
    # A file's blob comes in a hook's content (a plain dict), never in a
    # ToolResult: every tools/call of JSON skips the search.
    if type(result) is dict and isinstance(result.get("content"), list):
        blobs = _verbatim_blobs(result["content"])
        if blobs:
            return _spliced(body, blobs)
    keys = list(result) if isinstance(result, ToolResult) else ()
    if (
        len(keys) < 3  # "isError" follows
        or keys[0] != "content"
        or keys[1] != "structuredContent"
        or result["structuredContent"] is not result.structure
        or result.text is None
    ):
        return dumps(body)
    head = dumps({key: value for key, value in body.items() if key != "result"})
    rest = dumps({key: result[key] for key in keys[2:]})
    return (
        f'{head[:-1]}{"," if len(head) > 2 else ""}"result":{{"content":'
        f'{dumps(result["content"])},"structuredContent":{result.text},{rest[1:]}}}'
    )


def _verbatim_blobs(content: list[Any]) -> list[dict[str, Any]]:
    """The resources of ``content`` whose ``blob`` is :class:`Verbatim`."""
    resources = [block.get("resource") for block in content if isinstance(block, dict)]
    return [
        resource
        for resource in resources
        if isinstance(resource, dict) and isinstance(resource.get("blob"), Verbatim)
    ]


def _spliced(body: dict[str, Any], blobs: list[dict[str, Any]]) -> str:
    """``body`` encoded with each blob as a placeholder, then written in."""
    marks = {f"verbatim-{secrets.token_hex(16)}": r["blob"] for r in blobs}
    for resource, mark in zip(blobs, marks, strict=True):
        resource["blob"] = mark
    try:
        text = dumps(body)
    finally:
        for resource, blob in zip(blobs, marks.values(), strict=True):
            resource["blob"] = blob
    for mark, blob in marks.items():
        text = text.replace(f'"{mark}"', f'"{blob}"', 1)
    return text


class JSONRPCRenderer(BaseRenderer):
    """A JSON-RPC answer as compact JSON (:func:`encode`)."""

    media_type, format, charset = "application/json", "json", None

    def render(self, data: Any, media_type: Any = None, context: Any = None) -> bytes:
        return b"" if data is None else encode(data).encode()


class EventStreamRenderer(JSONRPCRenderer):
    """The answer as a one-event SSE stream; errors other than 200s as JSON."""

    media_type, format = "text/event-stream", "sse"

    def render(self, data: Any, media_type: Any = None, context: Any = None) -> bytes:
        response = context["response"]
        body = super().render(data)
        if response.status_code != 200 or not body:
            response["Content-Type"] = "application/json"
            return body
        # MCP 2025-11-25 basic/transports: a priming event (id, empty data)
        # first, then the response, then the stream ends. 2026-07-28
        # streams are not resumable: the response alone.
        stream = b"event: message\ndata: " + body + b"\n\n"
        if getattr(response, "priming", True):
            stream = f"id: {uuid.uuid4().hex}\ndata: \n\n".encode() + stream
        response["X-Accel-Buffering"] = "no"
        return stream
