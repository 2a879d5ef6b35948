"""Request bodies: UTF-8 JSON that means one thing to every reader.

:func:`parse` decodes a body strictly and refuses duplicate keys, lone
surrogate escapes and deep nesting (docs/security.md, "Hostile input").
"""

from __future__ import annotations

import base64
import functools
import json
import re
from typing import Any

from rest_framework.parsers import BaseParser

from frisian_mcp.exceptions import (
    BodyError,
    InvalidParams,
    InvalidRequest,
    ParseError,
    plain_name,
)
from frisian_mcp.types import JSONObject

__all__ = [
    "NOTIFICATION",
    "BodyError",
    "StrictJSONParser",
    "envelope",
    "header_value",
    "parse",
    "readable_id",
    "safe_method",
    "too_large",
]

_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
_BASE64_SENTINEL = re.compile(r"=\?base64\?([A-Za-z0-9+/]*={0,2})\?=")


class _Duplicated(dict[str, Any]):
    """An object in which ``key`` appeared more than once."""

    key: str = ""


def parse(payload: bytes, max_depth: int) -> Any:
    """The decoded body: a JSON object or array.

    Raises :class:`BodyError` (its ``request_id`` set when the body's own id
    is readable text).
    """
    duplicates: list[_Duplicated] = []
    pairs = functools.partial(_pairs, duplicates)
    try:
        # MCP messages are UTF-8 (a BOM is tolerated); json.loads would also
        # guess UTF-16/32 and let raw surrogate bytes through.
        message = json.loads(payload.decode("utf-8-sig"), object_pairs_hook=pairs)
    except RecursionError as exc:
        raise BodyError(_too_deep(max_depth)) from exc
    except (ValueError, UnicodeDecodeError) as exc:
        raise BodyError(ParseError()) from exc
    if (
        b"\\u" in payload
        and _SURROGATE_ESCAPE.search(payload)
        and not _is_text(message)
    ):
        # Valid syntax, but a lone surrogate escape is no character: no
        # database or reply could carry it. Pairs decode to one and pass.
        raise BodyError(
            ParseError(
                "Parse error: a string holds a lone UTF-16 surrogate escape "
                "(\\ud800-\\udfff without its pair), which is no Unicode text."
            ),
            readable_id(message),
        )
    if payload.count(b"[") + payload.count(b"{") > max_depth and _nests_deeper(
        message, max_depth
    ):
        raise BodyError(_too_deep(max_depth))
    if duplicates:
        first = duplicates[0]
        trusted = not (message is first and first.key == "id")
        raise BodyError(
            InvalidRequest(
                f"Invalid request: the key {_path_to(message, first)} appears more "
                "than once in one object; send each key once."
            ),
            readable_id(message) if trusted else None,
        )
    if not isinstance(message, dict | list):
        raise BodyError(
            InvalidRequest("Invalid request: the body must be a JSON object.")
        )
    return message


class StrictJSONParser(BaseParser):
    """:func:`parse` as a DRF parser, of at most ``limit`` bytes (413); the
    view's parser context carries ``limit`` and ``max_depth``."""

    media_type = "application/json"

    def parse(
        self, stream: Any, media_type: Any = None, parser_context: Any = None
    ) -> Any:
        context = parser_context or {}
        limit = context["limit"]
        payload = stream.read(limit + 1) if stream is not None else b""
        if len(payload) > limit:
            raise too_large(limit)
        return parse(payload, context["max_depth"])


def too_large(limit: int) -> InvalidRequest:
    """413: a body over ``limit`` bytes."""
    return InvalidRequest(
        f"Request body too large: the limit is {limit} bytes.", http_status=413
    )


def _too_deep(max_depth: int) -> InvalidRequest:
    return InvalidRequest(
        f"Invalid request: the body nests arrays and objects deeper than "
        f"{max_depth} levels."
    )


def _pairs(
    duplicates: list[_Duplicated], items: list[tuple[str, Any]]
) -> dict[str, Any]:
    """``json.loads``' object hook: a dict, marked when a key repeats."""
    obj = dict(items)
    if len(obj) == len(items):
        return obj
    marked = _Duplicated(obj)
    seen: set[str] = set()
    for key, _ in items:
        if key in seen:
            marked.key = key
            break
        seen.add(key)
    duplicates.append(marked)
    return marked


def readable_id(message: Any) -> Any:
    """The message's id when it is a valid one (a string of text or an integer)."""
    request_id = message.get("id") if isinstance(message, dict) else None
    if isinstance(request_id, bool) or not isinstance(request_id, str | int):
        return None
    if isinstance(request_id, str) and not _is_text(request_id):
        return None
    return request_id


class _Notification:
    """Marks a message without an id."""


NOTIFICATION: Any = _Notification()


def envelope(message: Any) -> tuple[str | None, Any, JSONObject]:
    """Check one message; return (method, id, params) or raise."""
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        raise InvalidRequest('Invalid request: "jsonrpc" must be "2.0".')
    if "method" not in message:
        if "id" in message and ("result" in message or "error" in message):
            return None, readable_id(message), {}
        raise InvalidRequest("Invalid request: a request needs a method.")
    method = message["method"]
    if not isinstance(method, str) or not method:
        raise InvalidRequest("Invalid request: method must be a non-empty string.")
    params = message.get("params")
    params = {} if params is None else params
    if "id" not in message:
        return method, NOTIFICATION, params if isinstance(params, dict) else {}
    request_id = message["id"]
    if isinstance(request_id, bool) or not isinstance(request_id, str | int):
        # 2025-11-25 basic/index "Requests": ids are strings or integers.
        raise InvalidRequest("Invalid request: id must be a string or an integer.")
    if method.startswith("notifications/"):
        raise InvalidRequest("Invalid request: notifications must not carry an id.")
    if not isinstance(params, dict):
        raise InvalidParams("Invalid params: params must be an object.")
    return method, request_id, params


def header_value(value: str | None) -> str | None:
    """A mirrored header's value, decoded from ``=?base64?...?=`` when so sent.

    2026-07-28 streamable-http "Value Encoding". ``None`` when absent or
    undecodable.
    """
    match = _BASE64_SENTINEL.fullmatch(value) if value is not None else None
    if match is None:
        return value
    try:
        return base64.b64decode(match.group(1), validate=True).decode("utf-8")
    except (ValueError, UnicodeDecodeError):
        return None


def _is_text(value: Any) -> bool:
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _nests_deeper(value: Any, limit: int) -> bool:
    """Whether arrays and objects nest deeper than ``limit`` levels (no recursion)."""
    stack = [(value, 1)] if isinstance(value, dict | list) else []
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return True
        for child in node.values() if isinstance(node, dict) else node:
            if isinstance(child, dict | list):
                stack.append((child, depth + 1))
    return False


def _path_to(root: Any, target: _Duplicated) -> str:
    """The key path of ``target``'s repeated key, names shown only when plain."""
    stack: list[tuple[Any, str]] = [(root, "")]
    while stack:
        node, path = stack.pop()
        if node is target:
            name = plain_name(target.key) or "<key>"
            return f"{path}.{name}" if path else name
        children = node.items() if isinstance(node, dict) else enumerate(node)
        for key, child in children:
            if isinstance(child, dict | list):
                step = (
                    f"[{key}]"
                    if isinstance(key, int)
                    else f".{plain_name(key) or '<key>'}"
                )
                stack.append((child, (path + step).lstrip(".")))
    return "<key>"


def safe_method(method: str) -> str:
    """``method`` if it is short plain text, else ``<method>`` (never echo)."""
    plain = method.replace("/", "").replace("_", "")
    shown = len(method) <= 64 and plain.isascii() and plain.isalnum()
    return method if shown else "<method>"
