"""A file the view answered, as MCP content: an embedded resource.

Binary bodies travel base64-encoded (``blob``), text bodies as ``text``, with
the host's ``Content-Type`` as ``mimeType`` and the name from its
``Content-Disposition``, parsed as Django parses header parameters (RFC 6266;
RFC 5987 ``filename*`` first). At most ``FILE_MAX_BYTES`` + 1 bytes are ever
read from a stream.
"""

from __future__ import annotations

import base64
import contextlib
import re
from email.message import Message
from typing import Any

from django.http import HttpResponseBase
from rest_framework.response import Response

from frisian_mcp.conf import extra_settings as mcp_settings
from frisian_mcp.exceptions import ToolExecutionError
from frisian_mcp.hooks import ContentResult, release
from frisian_mcp.replies import Verbatim
from frisian_mcp.types import ErrorCode, JSONObject

__all__ = ["file_content", "file_name", "is_text"]

_TEXT_TYPES = frozenset(
    {"application/csv", "application/xml", "application/javascript"}
)
_CHARSET = re.compile(r"charset\s*=\s*\"?([\w.:-]+)", re.I)


def file_name(disposition: str) -> str | None:
    """The file name a ``Content-Disposition`` gives; ``filename*`` first.

    The header's parameters are read as ``email.message.Message`` reads
    them (as Django's ``parse_header_parameters`` does): a quoted string is
    one value, whatever it holds, so a name cannot turn into another.
    """
    header = Message()
    header["Content-Disposition"] = disposition
    try:  # typeshed says str values; an RFC 2231 one is a tuple
        params: list[Any] = header.get_params([], header="Content-Disposition")[1:]
    except TypeError:  # the stdlib's lot on mixed RFC 2231 continuations
        return None
    plain: str | None = None
    for key, value in params:
        if key == "filename" and isinstance(value, tuple):  # filename*: last
            charset, _, text = value
            # An unknown or lying charset: the plain name, if any.
            with contextlib.suppress(LookupError, UnicodeError):
                return str(text).encode("latin-1").decode(charset or "us-ascii")
        elif key == "filename" and plain is None:
            plain = value
    return plain or None  # an empty name names nothing


def is_text(media_type: str) -> bool:
    """Whether a media type is text: ``text/*``, CSV, XML, JSON and kin."""
    kind = media_type.split(";")[0].strip().lower()
    return (
        kind.startswith("text/")
        or kind in _TEXT_TYPES
        or kind.endswith(("+xml", "+json", "/json"))
    )


def file_content(tool: str, url: str, response: HttpResponseBase) -> ContentResult:
    """``response``'s body as a resource; an error naming the REST URL when
    it is larger than ``FILE_MAX_BYTES``."""
    cap = mcp_settings.FILE_MAX_BYTES
    body = _read(response, cap)
    media_type = response.get("Content-Type", "") or "application/octet-stream"
    if body is None:
        raise _too_large(tool, url, response, cap)
    name = file_name(response.get("Content-Disposition", ""))
    resource: JSONObject = {"uri": url, "mimeType": media_type}
    text = _decoded(body, media_type) if is_text(media_type) else None
    if text is not None:
        resource["text"] = text
    else:
        resource["blob"] = Verbatim(base64.b64encode(body).decode("ascii"))
    resource["_meta"] = {"filename": name, "size": len(body)}
    summary = f"A file of {len(body)} bytes ({media_type.split(';')[0]})"
    summary += f" named {name}." if name else "."
    return ContentResult(
        content=[
            {"type": "text", "text": summary},
            {"type": "resource", "resource": resource},
        ]
    )


def _read(response: HttpResponseBase, cap: int) -> bytes | None:
    """The whole body, or ``None`` once it passes ``cap`` bytes."""
    if not response.streaming:
        content: Any = (
            response.rendered_content
            if isinstance(response, Response)
            else getattr(response, "content", b"")
        )
        return bytes(content) if len(content) <= cap else None
    body = bytearray()
    try:
        stream = getattr(response, "file_to_stream", None)
        if stream is not None and hasattr(stream, "read"):  # a FileResponse
            body += stream.read(cap + 1)
            return bytes(body) if len(body) <= cap else None
        for chunk in response.streaming_content:  # type: ignore[attr-defined]
            body += chunk if isinstance(chunk, bytes) else str(chunk).encode()
            if len(body) > cap:
                return None
    finally:
        release(response)
    return bytes(body)


def _decoded(body: bytes, media_type: str) -> str | None:
    found = _CHARSET.search(media_type)
    try:
        return body.decode(found[1] if found else "utf-8")
    except (LookupError, UnicodeDecodeError):
        return None  # not the text it claims: sent as bytes


def _too_large(
    tool: str, url: str, response: HttpResponseBase, cap: int
) -> ToolExecutionError:
    length = response.get("Content-Length", "")
    size = int(length) if length.isdigit() else None
    told = f"{size} bytes" if size is not None else f"more than {cap} bytes"
    return ToolExecutionError(
        f"{tool} answers a file of {told}, larger than the {cap} bytes a tool "
        "result carries (FILE_MAX_BYTES). Nothing was read past the limit.",
        code=ErrorCode.REQUEST_REJECTED,
        tool=tool,
        hint="Fetch the file from the REST API at 'url' with the same credentials.",
        extra={"size": size, "limit": cap, "url": url},
    )
