"""A record's file fields as resources (ADR 0043, through the files extra).

tests/hosts/files' papers: ``attachment``, an optional ``picture`` and an
optional ``appendix``; each file the record shows is read after its JSON,
and is a resource of its own one segment deeper.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.files.base import ContentFile
from django.test import override_settings

from frisian_mcp.contrib.testing import MCPError, MCPTestClient
from tests.extras import without
from tests.files_host import CAP, SETTINGS, files_host, png
from tests.hosts.files.models import Paper

pytestmark = pytest.mark.django_db

ERAS = ("2025-11-25", "2026-07-28")


@pytest.fixture(autouse=True)
def _urls(tmp_path: Path) -> Iterator[None]:
    with files_host(tmp_path):
        yield


def client(era: str = "2025-11-25") -> MCPTestClient:
    mcp = MCPTestClient(protocol_version=era)
    mcp.initialize()
    return mcp


def paper(attachment: bytes, picture: bytes | None = None) -> Paper:
    row = Paper(title="t", filename="notes.bin")
    row.attachment.save("notes.bin", ContentFile(attachment), save=False)
    if picture is not None:
        row.picture.save("red.png", ContentFile(picture), save=False)
    row.save()
    return row


def read(mcp: MCPTestClient, uri: str) -> list[dict[str, Any]]:
    contents: list[dict[str, Any]] = mcp.request("resources/read", {"uri": uri})[
        "contents"
    ]
    return contents


@pytest.mark.parametrize("era", ERAS)
def test_a_record_brings_its_files_after_its_json(era: str) -> None:
    row = paper(b"\x00\x01binary", png())
    record, attachment, picture = read(client(era), f"drf://papers/{row.pk}")
    shown = json.loads(record["text"])
    assert shown["attachment"].endswith(".bin")  # still the REST URL
    assert record["uri"] == f"drf://papers/{row.pk}"
    assert "_meta" not in record
    assert attachment["uri"] == f"drf://papers/{row.pk}/attachment"
    assert base64.b64decode(attachment["blob"]) == b"\x00\x01binary"
    assert attachment["_meta"]["filename"] == "notes.bin"
    assert picture["uri"] == f"drf://papers/{row.pk}/picture"
    assert picture["mimeType"] == "image/png"
    assert base64.b64decode(picture["blob"]) == png()


def test_a_file_is_a_resource_of_its_own() -> None:
    row = paper(b"\x00abc", png())
    mcp = client()
    [picture] = read(mcp, f"drf://papers/{row.pk}/picture")
    assert picture["uri"] == f"drf://papers/{row.pk}/picture"
    assert base64.b64decode(picture["blob"]) == png()
    for field in ("title", "appendix", "nothing", "picture/more"):
        with pytest.raises(MCPError) as info:
            mcp.request("resources/read", {"uri": f"drf://papers/{row.pk}/{field}"})
        assert (info.value.code, info.value.data) == (-32002, {"code": "not_found"})


def test_a_missing_record_has_no_files() -> None:
    with pytest.raises(MCPError) as info:
        client("2026-07-28").request(
            "resources/read", {"uri": "drf://papers/999/attachment"}
        )
    assert (info.value.code, info.value.data) == (-32602, {"code": "not_found"})


def test_files_over_the_cap_are_named_never_dropped() -> None:
    row = paper(b"x" * (CAP + 1), png())
    record, picture = read(client(), f"drf://papers/{row.pk}")
    assert picture["uri"].endswith("/picture")
    assert record["_meta"] == {
        "files_left_out": [{"field": "attachment", "size": CAP + 1, "limit": CAP}]
    }


def test_files_are_added_while_their_sum_fits() -> None:
    row = paper(b"a" * 1500, b"b" * 1000)
    record, attachment = read(client(), f"drf://papers/{row.pk}")
    assert attachment["uri"].endswith("/attachment")
    assert record["_meta"] == {
        "files_left_out": [{"field": "picture", "size": 1000, "limit": CAP}]
    }


@pytest.mark.parametrize("era", ERAS)
def test_a_file_too_large_to_read_alone_says_where_rest_serves_it(era: str) -> None:
    row = paper(b"y" * (CAP + 5))
    with pytest.raises(MCPError) as info:
        client(era).request(
            "resources/read", {"uri": f"drf://papers/{row.pk}/attachment"}
        )
    data = info.value.data
    assert info.value.code == -32602
    assert data["code"] == "request_rejected"
    assert data["limit"] == CAP
    assert data["url"].endswith(row.attachment.url)


def test_without_the_extra_files_stay_urls_and_say_which_extra() -> None:
    row = paper(b"\x00abc")
    with without("files"), override_settings(FRISIAN_MCP=SETTINGS):
        mcp = client()
        [record] = read(mcp, f"drf://papers/{row.pk}")
        with pytest.raises(MCPError) as info:
            mcp.request("resources/read", {"uri": f"drf://papers/{row.pk}/attachment"})
    assert json.loads(record["text"])["attachment"].endswith(".bin")
    assert info.value.code == -32602
    assert info.value.data["code"] == "request_rejected"
    assert "files extra" in info.value.data["hint"]
