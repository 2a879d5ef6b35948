"""File names as Django cleans them (issue 26 item 2).

A name sent in ``<field>_filename`` is stored as a REST multipart upload of
that name stores it, and a download's name is the one the view meant. The
REST upload names its file the way RFC 2231 lets a client name it exactly
(``filename*``), so Django's own parser sees every character; a browser
would percent-encode quotes and line breaks, which Django keeps as sent.
Each name goes up through a view that parses JSON (``papers__create``) and
one that parses only multipart (``uploads__create``), on whichever database
``DATABASE_URL`` names (PostgreSQL refuses a NUL in text).
"""

from __future__ import annotations

import base64
import json
import logging
from base64 import b64decode
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from django.db import transaction
from django.test import Client, override_settings
from django.utils.http import content_disposition_header

from demo_project.contacts.models import Attachment, Contact
from frisian_mcp.contrib.files.responses import file_name
from frisian_mcp.contrib.testing import MCPError, MCPTestClient
from tests.hosts.files.models import Paper

pytestmark = pytest.mark.django_db

HOOK = "frisian_mcp.contrib.files.hooks.FileHook"
SETTINGS = {
    "REQUIRE_AUTHENTICATION": False,
    "TOOL_LAYOUT": "flat",
    "CALL_HOOKS": [HOOK],
}
CONTENT = b"the same bytes"
#: REST's upload URL of each tool's view.
URLS = {"papers__create": "/api/papers/", "uploads__create": "/api/uploads/"}
TOOLS = pytest.mark.parametrize("tool", sorted(URLS))

#: A name as sent, and the name Django's multipart parser makes of it.
CLEANED = [
    ("a\r\nX: 1\r\n.txt", "aX: 1.txt"),
    ("a\x00b.txt", "ab.txt"),
    ("a\"; filename*=UTF-8''evil.exe", "a\"; filename*=UTF-8''evil.exe"),
    ("'single' \"double\".txt", "'single' \"double\".txt"),
    ("../../etc/passwd", "passwd"),
    ("a\\b", "b"),
    ("C:\\Users\\ada\\cv.pdf", "cv.pdf"),
    ("résumé 2026.pdf", "résumé 2026.pdf"),
    ("数据\t文件.bin", "数据文件.bin"),
    ("日本語.txt", "日本語.txt"),
    ("&amp;lt;b&gt;.txt", "&lt;b>.txt"),
    ("x;y=z.txt", "x;y=z.txt"),
]
#: Names nothing is left of: no file name, or none the storage can keep.
NOTHING_LEFT = ["..", "dir/..", "\x00\r\n", "€", "?!"]


@pytest.fixture(autouse=True)
def _files_host(tmp_path: Path) -> Iterator[None]:
    with override_settings(
        ROOT_URLCONF="tests.hosts.files.urls",
        MEDIA_ROOT=str(tmp_path),
        FRISIAN_MCP=SETTINGS,
    ):
        yield


@pytest.fixture
def mcp() -> MCPTestClient:
    client = MCPTestClient()
    client.initialize()
    return client


def rest_upload(url: str, name: str) -> Any:
    """A multipart upload of ``CONTENT`` named ``name`` (RFC 2231)."""
    boundary = "frisian-boundary-26"
    head = (
        f"--{boundary}\r\n"
        'Content-Disposition: form-data; name="title"\r\n\r\nrest\r\n'
        f"--{boundary}\r\n"
        'Content-Disposition: form-data; name="attachment"; '
        f"filename*=utf-8''{quote(name, safe='')}\r\n"
        "Content-Type: application/octet-stream\r\n\r\n"
    )
    body = head.encode() + CONTENT + f"\r\n--{boundary}--\r\n".encode()
    kind = f"multipart/form-data; boundary={boundary}"
    return Client().generic("POST", url, body, content_type=kind)


def rest_download_name(pk: int) -> str | None:
    response: Any = Client().get(f"/api/papers/{pk}/download/")
    assert response.status_code == 200
    assert b"".join(response.streaming_content) == CONTENT
    return file_name(response["Content-Disposition"])


def upload(mcp: MCPTestClient, tool: str, name: str) -> dict[str, Any]:
    arguments = {"title": "mcp", "attachment": base64.b64encode(CONTENT).decode()}
    return mcp.call_tool(tool, {**arguments, "attachment_filename": name})


def downloaded_name(mcp: MCPTestClient, pk: int) -> str:
    result = mcp.call_tool("papers__download", {"id": pk})
    assert result["isError"] is False, result
    [found] = [b["resource"] for b in result["content"] if b["type"] == "resource"]
    sent = found["text"].encode() if "text" in found else b64decode(found["blob"])
    assert sent == CONTENT
    name: str = found["_meta"]["filename"]
    return name


def problems(caplog: pytest.LogCaptureFixture) -> list[str]:
    """Records of errors or tracebacks: a clean call leaves none."""
    return [
        r.getMessage()
        for r in caplog.records
        if r.levelno >= logging.ERROR or r.exc_info is not None
    ]


@TOOLS
@pytest.mark.parametrize(("sent", "cleaned"), CLEANED)
def test_a_name_is_stored_as_a_rest_upload_stores_it(
    mcp: MCPTestClient,
    caplog: pytest.LogCaptureFixture,
    tool: str,
    sent: str,
    cleaned: str,
) -> None:
    response = rest_upload(URLS[tool], sent)
    assert response.status_code == 201, response.content
    rest = Paper.objects.get(pk=response.json()["id"])
    stored = str(rest.attachment.name)
    rest.attachment.storage.delete(stored)  # the MCP upload gets the same name
    caplog.clear()
    created = upload(mcp, tool, sent)
    assert created["isError"] is False, created
    assert problems(caplog) == []
    row = Paper.objects.get(pk=created["structuredContent"]["id"])
    assert row.filename == rest.filename == cleaned
    assert row.attachment.name == stored
    assert row.attachment.read() == CONTENT
    assert downloaded_name(mcp, row.pk) == rest_download_name(row.pk) == cleaned
    assert rest_download_name(rest.pk) == cleaned


@TOOLS
@pytest.mark.parametrize("sent", NOTHING_LEFT)
def test_a_name_that_cleans_to_nothing_is_refused_as_rest_refuses_it(
    mcp: MCPTestClient, caplog: pytest.LogCaptureFixture, tool: str, sent: str
) -> None:
    with transaction.atomic():  # REST's save fails, as in autocommit
        assert rest_upload(URLS[tool], sent).status_code == 400
    assert not Paper.objects.exists()
    caplog.clear()
    with pytest.raises(MCPError) as caught:
        upload(mcp, tool, sent)
    error = caught.value
    assert (error.code, error.data["code"]) == (-32602, "invalid_argument")
    assert error.data["field"] == "attachment_filename"
    text = error.response.content.decode()
    assert json.dumps(sent)[1:-1] not in text
    assert problems(caplog) == []
    assert not Paper.objects.exists()


def test_validate_mode_refuses_the_name_too(mcp: MCPTestClient) -> None:
    arguments = {"title": "v", "attachment": base64.b64encode(CONTENT).decode()}
    with pytest.raises(MCPError) as caught:
        mcp.call_tool(
            "papers__create",
            {**arguments, "attachment_filename": "..", "mode": "validate"},
        )
    assert caught.value.data["field"] == "attachment_filename"


@pytest.mark.parametrize(
    ("refused", "field"),
    [
        ({"attachment_filename": "€"}, "attachment_filename"),
        ({"attachment": base64.b64encode(b"z" * 2001).decode()}, "attachment"),
    ],
)
@override_settings(FRISIAN_MCP={**SETTINGS, "FILE_MAX_BYTES": 2000})
def test_a_bulk_item_refused_by_the_hook_is_named_by_its_index(
    refused: dict[str, str], field: str
) -> None:
    mcp = MCPTestClient()
    mcp.initialize()
    data = base64.b64encode(CONTENT).decode()
    items = [
        {"title": "a", "attachment": data, "attachment_filename": "a\r\n.txt"},
        {"title": "b", "attachment": data, "attachment_filename": "b.txt", **refused},
    ]
    with pytest.raises(MCPError) as caught:
        mcp.call_tool("papers__create", {"objects": items})
    data = caught.value.data
    assert (data["code"], data["field"]) == ("invalid_argument", field)
    assert [(f["index"], f["field"]) for f in data["fields"]] == [(1, field)]
    assert caught.value.message.startswith("Item 1: ")
    assert not Paper.objects.exists()


@pytest.mark.parametrize(
    "name",
    [
        "a\"; filename*=UTF-8''evil.exe",
        'a";filename="b.exe',
        'a\\"; filename=evil.exe',
        "x'y'z.txt",
        "%41%42.txt",
        "  spaced  .txt",
        "tab\there\r\n.txt",
        '€ and "quotes".txt',
        "a/b.txt",
        "日本語",
    ],
)
def test_a_download_name_reads_back_as_the_view_wrote_it(name: str) -> None:
    """Django's ``FileResponse`` header, read by the files extra's parser."""
    for as_attachment in (True, False):
        header = content_disposition_header(as_attachment, name)
        assert header is not None
        assert file_name(header) == name


@pytest.mark.parametrize(
    ("header", "name"),
    [
        ("attachment; FILENAME=\"A.txt\"; Filename*=UTF-8''%C3%A9", "é"),
        ("attachment; filename*=UTF-8''%E2.pdf; filename=\"y.pdf\"", "y.pdf"),
        ("attachment; filename*=''plain", "plain"),
        ("attachment; filename*1=a; filename*=b; filename=c", None),
        ("attachment; filename=", None),
        ("", None),
    ],
)
def test_odd_headers_give_a_name_or_none_never_an_error(
    header: str, name: str | None
) -> None:
    assert file_name(header) == name


@pytest.mark.parametrize(
    ("sent", "cleaned"),
    [
        ("a\r\nX: 1\r\n.txt", "aX: 1.txt"),
        ("a\"; filename*=UTF-8''evil.exe", "a\"; filename*=UTF-8''evil.exe"),
    ],
)
def test_the_demo_stores_and_answers_the_name_as_cleaned(
    caplog: pytest.LogCaptureFixture, sent: str, cleaned: str
) -> None:
    """The issue's two names, through the demo's attachments."""
    contact = Contact.objects.create(email="ada@example.com", first_name="Ada")
    with override_settings(ROOT_URLCONF="demo_project.urls"):
        mcp = MCPTestClient()
        mcp.initialize()
        file = base64.b64encode(CONTENT).decode()
        arguments = {"contact": str(contact.pk), "file": file, "file_filename": sent}
        made = mcp.call_tool("attachments__create", arguments)
        assert made["isError"] is False, made
        pk = made["structuredContent"]["id"]
        got = mcp.call_tool("attachments__download", {"id": pk})
    assert Attachment.objects.get(pk=pk).filename == cleaned
    [found] = [b["resource"] for b in got["content"] if b["type"] == "resource"]
    assert found["_meta"]["filename"] == cleaned
    assert problems(caplog) == []
