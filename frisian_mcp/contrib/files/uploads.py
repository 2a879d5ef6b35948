"""File arguments into uploaded files, and the body a form-only view parses.

A base64 argument is decoded strictly (RFC 4648, no stray characters) into
an uploaded file named by its ``*_filename`` argument, that name cleaned as
Django cleans a multipart upload's. A view whose parsers take no JSON gets
the body a REST client would send it: multipart with the files, or
URL-encoded without.
"""

from __future__ import annotations

import binascii
import html
import io
import json
import mimetypes
import secrets
from collections.abc import Mapping
from typing import Any, cast
from urllib.parse import urlencode

from django.core.exceptions import FieldDoesNotExist, SuspiciousFileOperation
from django.core.files.storage import Storage, default_storage
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.handlers.wsgi import LimitedStream, WSGIRequest
from django.db import models
from django.http import multipartparser
from rest_framework.parsers import MultiPartParser

from frisian_mcp.conf import extra_settings as mcp_settings
from frisian_mcp.exceptions import ToolInputError
from frisian_mcp.types import ErrorCode

__all__ = ["decode_files", "keep_echoes", "refused", "request_bytes", "send_as_form"]

#: Room, besides the file, in a call that carries one: the JSON-RPC
#: envelope, the file's name and the other arguments.
_ENVELOPE_BYTES = 65_536


def request_bytes(cap: int) -> int:
    """The request body a call with a file of ``cap`` bytes needs: the file
    after base64 (4 bytes for every 3 begun) and ``_ENVELOPE_BYTES``."""
    return 4 * -(-cap // 3) + _ENVELOPE_BYTES


def decode_files(
    tool: str,
    files: Mapping[str, str],
    body: dict[str, Any],
    sent: Mapping[str, Any],
    model: type[models.Model] | None = None,
    index: int | None = None,
) -> None:
    """Replace each file argument's value in ``body`` (bulk item ``index``)
    by an uploaded file.

    ``files`` maps argument names to field names; ``sent`` is the call's
    arguments (the ``*_filename`` ones); ``model`` the view's, whose file
    fields' storages must take the names. Refuses bad base64, files over
    ``FILE_MAX_BYTES`` and names that clean to nothing, without quoting them.
    """
    cap = mcp_settings.FILE_MAX_BYTES
    for argument, field in files.items():
        value = body.get(field)
        if not isinstance(value, str):
            continue  # null, or absent: the serializer decides
        too_large = f"holds a file larger than {cap} bytes"
        if len(value) > (cap // 3 + 1) * 4 + 4:
            raise refused(tool, argument, too_large, index)
        try:  # strict: only the alphabet, padded right, nothing after
            data = binascii.a2b_base64(value, strict_mode=True)
        except (binascii.Error, ValueError):
            continue  # the stored file's URL sent back, else refused: keep_echoes
        if len(data) > cap:
            raise refused(tool, argument, too_large, index)
        name = sent.get(argument + "_filename")
        if name is not None:
            name = _upload_name(tool, argument, name, _storage(model, field), index)
        kind = mimetypes.guess_type(name or field)[0] or "application/octet-stream"
        body[field] = SimpleUploadedFile(name or field, data, content_type=kind)


def _upload_name(
    tool: str, argument: str, sent: Any, storage: Storage, index: int | None = None
) -> str:
    """``sent``, the name of file argument ``argument``, as the name of a
    multipart upload: cleaned by Django's ``MultiPartParser`` (HTML entities
    decoded; no path, no characters that do not print), and one ``storage``
    can store (``FileField`` asks its ``get_valid_name``). Refused when
    nothing is left, where REST answers 400.
    """
    # The parser's cleaning reads none of its state: no request is needed.
    parser = object.__new__(multipartparser.MultiPartParser)
    name = parser.sanitize_file_name(str(sent))
    try:
        if name is not None:
            storage.get_valid_name(name)
    except SuspiciousFileOperation:
        name = None
    if name is None:
        raise refused(
            tool,
            argument + "_filename",
            "leaves no file name once cleaned as an upload's",
            index,
            hint="Name the file as it is called, e.g. 'report.pdf': a path "
            "keeps its last part, and characters that do not print are dropped.",
        )
    return name


def _storage(model: type[models.Model] | None, field: str) -> Storage:
    """The storage of ``model``'s file field ``field``, else the default."""
    try:
        found = model._meta.get_field(field) if model is not None else None
    except FieldDoesNotExist:
        found = None
    return cast(Storage, getattr(found, "storage", None) or default_storage)


def keep_echoes(
    tool: str, files: Mapping[str, str], body: dict[str, Any], view: Any
) -> None:
    """Keep the stored file where an update sends back what its record
    shows (what retrieve returns updates unchanged): the file's URL, or
    ``null`` for no file where the field takes no null. Any other text is
    refused. Runs after the view's access checks, so a refusal tells no
    more than the view would.
    """
    sent = {
        a: f
        for a, f in files.items()
        if f in body and (body[f] is None or isinstance(body[f], str))
    }
    if not sent:
        return
    instance = None
    if view.request.method in ("PUT", "PATCH") and hasattr(view, "get_object"):
        instance = view.get_object()
    shown = view.get_serializer(instance).data if instance is not None else {}
    fields = view.get_serializer().fields
    for argument, field in sent.items():
        if body[field] is None:
            if not fields[field].allow_null and instance and shown.get(field) is None:
                del body[field]  # no file before, none after
            continue  # else the serializer answers null as over REST
        if instance is None or shown.get(field) != body[field]:
            raise refused(tool, argument, "holds no valid base64")
        body[field] = getattr(instance, fields[field].source)


def refused(
    tool: str,
    argument: str,
    reason: str,
    index: int | None = None,
    hint: str | None = None,
) -> ToolInputError:
    """The refusal of a file argument (of bulk item ``index``), naming it,
    never quoting it."""
    problem = {"field": argument, "code": "invalid_argument", "message": reason}
    return ToolInputError(
        f"{'' if index is None else f'Item {index}: '}'{argument}' {reason}; "
        "nothing was written.",
        code=ErrorCode.INVALID_ARGUMENT,
        tool=tool,
        field=argument,
        fields=None if index is None else [{"index": index, **problem}],
        hint=hint
        or "Send the file's bytes base64-encoded (standard alphabet, with "
        f"padding), at most FILE_MAX_BYTES ({mcp_settings.FILE_MAX_BYTES}) "
        "bytes; fetch larger ones over the REST API.",
    )


def send_as_form(view_class: type[Any], request: WSGIRequest, body: Any) -> None:
    """Give ``request`` ``body`` as the form a REST client would send."""
    if not isinstance(body, dict):
        return  # a list body has no form; the view answers 400 as to REST
    multipart = any(issubclass(p, MultiPartParser) for p in view_class.parser_classes)
    if multipart:
        boundary = secrets.token_hex(16)
        payload = _multipart(boundary, body)
        kind = f"multipart/form-data; boundary={boundary}"
    else:
        payload = urlencode(list(_pairs(body)), doseq=False).encode()
        kind = "application/x-www-form-urlencoded"
    request.META.update(CONTENT_TYPE=kind, CONTENT_LENGTH=str(len(payload)))
    request.META["wsgi.input"] = io.BytesIO(payload)
    request._set_content_type_params(request.META)  # type: ignore[attr-defined]
    stream: Any = LimitedStream(io.BytesIO(payload), len(payload))
    request._stream = stream
    request._read_started = False  # type: ignore[attr-defined]


def _pairs(body: Mapping[str, Any]) -> Any:
    """``(key, text)`` pairs of the plain values: lists repeat the key."""
    for key, value in body.items():
        for item in value if isinstance(value, list) else [value]:
            if item is None or isinstance(item, SimpleUploadedFile):
                continue
            if isinstance(item, bool):
                yield key, "true" if item else "false"
            elif isinstance(item, dict | list):
                yield key, json.dumps(item)
            else:
                yield key, str(item)


def _multipart(boundary: str, body: Mapping[str, Any]) -> bytes:
    """A ``multipart/form-data`` body (RFC 7578) of plain values and files."""
    out = io.BytesIO()
    for key, text in _pairs(body):
        out.write(f"--{boundary}\r\n".encode())
        out.write(_disposition(key).encode() + b"\r\n\r\n")
        out.write(text.encode() + b"\r\n")
    for key, value in body.items():
        if isinstance(value, SimpleUploadedFile):
            out.write(f"--{boundary}\r\n".encode())
            out.write(_disposition(key, value.name).encode() + b"\r\n")
            out.write(f"Content-Type: {value.content_type}\r\n\r\n".encode())
            value.seek(0)
            out.write(value.read() + b"\r\n")
    out.write(f"--{boundary}--\r\n".encode())
    return out.getvalue()


def _disposition(key: str, filename: str | None = None) -> str:
    """A part's ``Content-Disposition``: the field's name quoted as browsers
    quote it; the file's (cleaned: no backslash, no line break) with HTML
    entities, which Django's parser decodes into exactly that name."""
    quoted = key.replace("\\", "\\\\").replace('"', "%22")
    line = f'Content-Disposition: form-data; name="{quoted}"'
    if filename is not None:
        line += f'; filename="{html.escape(filename)}"'
    return line
