"""A prompt's messages: the builders a host uses, and the check before sending.

A prompt function returns a string (one ``user`` text message) or a list of
messages built with :func:`user`, :func:`assistant` and :func:`embed`; a
bare content block in the list is a ``user`` message. Every block is held
to the shapes of the schema's ``ContentBlock`` (2025-11-25 server/prompts
"Data Types") before it is sent: a wrong one is the host's bug, -32603.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Mapping
from typing import Any

from frisian_mcp.exceptions import HostError
from frisian_mcp.types import JSONObject

__all__ = ["Content", "RecordValue", "assistant", "checked", "embed", "user"]

#: What a message's content may be given as: text, a block, or a record read.
Content = str | Mapping[str, Any]
_ROLES = ("user", "assistant")
#: A URI has a scheme (RFC 3986 section 3.1).
_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:\S*$")
#: The members each block type must have as strings.
_REQUIRED = {
    "text": ("text",),
    "image": ("data", "mimeType"),
    "audio": ("data", "mimeType"),
    "resource_link": ("uri", "name"),
    "resource": (),
}


class RecordValue(dict[str, Any]):
    """A record read as the caller, as an embedded resource block.

    The dict is ``{"type": "resource", "resource": {uri, mimeType, text}}``
    (``blob`` for a file); ``data`` is the record's JSON (``None`` for a
    file) and ``uri`` its canonical URI.
    """

    def __init__(self, contents: Mapping[str, Any], data: Any) -> None:
        super().__init__(type="resource", resource=dict(contents))
        self.data = data
        self.uri: str = contents["uri"]


def user(content: Content) -> JSONObject:
    """A ``user`` message: ``content`` is text or a content block."""
    return {"role": "user", "content": _block(content)}


def assistant(content: Content) -> JSONObject:
    """An ``assistant`` message: ``content`` is text or a content block."""
    return {"role": "assistant", "content": _block(content)}


def embed(
    resource: str | Mapping[str, Any],
    text: str | None = None,
    *,
    mime_type: str = "text/plain",
    blob: bytes | None = None,
) -> JSONObject:
    """An embedded resource block (2025-11-25 server/prompts "Embedded Resources").

    ``resource`` is a record read as the caller (a ``Record`` argument,
    ``context.read(uri)``), embedded as read; or a URI, with its ``text``
    or its ``blob`` (bytes, sent base64-encoded) and its ``mime_type``.
    """
    if not isinstance(resource, str):
        return dict(resource)
    body: JSONObject = {"uri": resource, "mimeType": mime_type}
    if blob is not None:
        body["blob"] = base64.b64encode(blob).decode("ascii")
    else:
        body["text"] = "" if text is None else text
    return {"type": "resource", "resource": body}


def _block(content: Content) -> JSONObject:
    if isinstance(content, str):
        return {"type": "text", "text": content}
    return dict(content)


def checked(name: str, returned: object) -> list[JSONObject]:
    """The ``messages`` of prompt ``name``'s return value, each block checked.

    Raises:
        HostError: the value is not a string or a list of messages, or a
            block lacks what the schema requires (logged as -32603).
    """
    if isinstance(returned, str):
        return [user(returned)]
    if not isinstance(returned, list | tuple):
        raise _wrong(name, "returned neither a string nor a list of messages")
    messages = []
    for item in returned:
        if not isinstance(item, Mapping):
            raise _wrong(name, "returned a message that is not an object")
        message = dict(item) if "role" in item else user(item)
        if message.get("role") not in _ROLES or set(message) != {"role", "content"}:
            raise _wrong(name, "returned a message without role user or assistant")
        problem = _problem(message["content"])
        if problem:
            raise _wrong(name, problem)
        messages.append(message)
    return messages


def _problem(block: object) -> str | None:
    """What is wrong with a content block, or ``None``."""
    if not isinstance(block, Mapping):
        return "returned content that is not an object"
    kind = block.get("type")
    if kind not in _REQUIRED:
        return f"returned a block of type {kind!r}, not one of {', '.join(_REQUIRED)}"
    missing = [k for k in _REQUIRED[kind] if not isinstance(block.get(k), str)]
    if missing:
        return f"returned a {kind} block without {', '.join(missing)}"
    if kind in ("image", "audio") and not _base64(block["data"]):
        return f"returned a {kind} block whose data is not base64"
    if kind == "resource_link" and not _URI.match(block["uri"]):
        return "returned a resource link without a valid URI"
    if kind == "resource":
        return _resource_problem(block.get("resource"))
    return None


def _resource_problem(resource: object) -> str | None:
    # "MUST include a valid resource URI, the appropriate MIME type, either
    # text content or base64-encoded blob data" (2025-11-25 server/prompts).
    if not isinstance(resource, Mapping):
        return "returned an embedded resource that is not an object"
    uri, mime = resource.get("uri"), resource.get("mimeType")
    if not isinstance(uri, str) or not _URI.match(uri) or not isinstance(mime, str):
        return "returned an embedded resource without a valid URI and MIME type"
    text, blob = resource.get("text"), resource.get("blob")
    if isinstance(text, str) == isinstance(blob, str):
        return "returned an embedded resource without either text or blob"
    if isinstance(blob, str) and not _base64(blob):
        return "returned an embedded resource whose blob is not base64"
    return None


def _base64(data: str) -> bool:
    try:
        base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


def _wrong(name: str, problem: str) -> HostError:
    return HostError(TypeError(f"The prompt {name!r} {problem}."))
