"""Limits that agree (issue 26 item 3): a file the cap allows can arrive.

With the files hook on and ``MAX_REQUEST_BYTES`` left unset, the endpoint
takes the body a call with a file of ``FILE_MAX_BYTES`` needs (the file
after base64, and room for the call); an 800,000-byte upload got HTTP 413
at the 1 MiB default while the cap was 4 MiB. A limit the project sets is
kept, and ``check`` warns when it is too small for the cap (W012).
"""

from __future__ import annotations

import base64
import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.test import Client, override_settings

from frisian_mcp.checks import check_settings
from frisian_mcp.conf import DEFAULTS
from frisian_mcp.contrib.files.checks import check_file_settings
from frisian_mcp.contrib.files.uploads import request_bytes
from frisian_mcp.hooks import request_limit
from tests.extras import without
from tests.hosts.files.models import Paper

pytestmark = pytest.mark.django_db

HOOK = "frisian_mcp.contrib.files.hooks.FileHook"
SETTINGS = {"REQUIRE_AUTHENTICATION": False, "TOOL_LAYOUT": "flat"}
FILES = {**SETTINGS, "CALL_HOOKS": [HOOK]}
MIB = 1_048_576
CAP = DEFAULTS["FILE_MAX_BYTES"]
#: Room for the call besides the file (docs/files.md, "Sizes").
ENVELOPE_BYTES = 65_536


@pytest.fixture(autouse=True)
def _files_host(tmp_path: Path) -> Iterator[None]:
    with override_settings(
        ROOT_URLCONF="tests.hosts.files.urls", MEDIA_ROOT=str(tmp_path)
    ):
        yield


def upload(size: int) -> Any:
    """POST a ``papers__create`` carrying ``size`` bytes; the raw response."""
    content = bytes(range(256)) * (size // 256) + b"\x7f" * (size % 256)
    message = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {
            "name": "papers__create",
            "arguments": {
                "title": "big",
                "attachment": base64.b64encode(content).decode(),
                "attachment_filename": "big.bin",
            },
        },
    }
    return Client().post(
        "/mcp",
        json.dumps(message),
        content_type="application/json",
        headers={"Accept": "application/json, text/event-stream"},
    )


def _installed(settings: dict[str, Any]) -> contextlib.AbstractContextManager[None]:
    """Settings that list no file hook stand for a project without the extra,
    which adds its hook by being installed (ADR 0032)."""
    return contextlib.nullcontext() if "CALL_HOOKS" in settings else without("files")


@pytest.mark.parametrize(
    ("settings", "limit"),
    [
        (SETTINGS, MIB),
        (FILES, 4 * -(-CAP // 3) + ENVELOPE_BYTES),
        ({**FILES, "FILE_MAX_BYTES": 300_000}, MIB),
        ({**FILES, "FILE_MAX_BYTES": 3_000_000}, 4_000_000 + ENVELOPE_BYTES),
        ({**FILES, "MAX_REQUEST_BYTES": 1000}, 1000),
        ({**FILES, "MAX_REQUEST_BYTES": MIB}, MIB),
    ],
)
def test_the_request_limit_takes_what_the_file_cap_needs_unless_set(
    settings: dict[str, Any], limit: int
) -> None:
    with _installed(settings), override_settings(FRISIAN_MCP=settings):
        assert request_limit() == limit


def test_request_bytes_is_the_base64_of_the_file_and_room() -> None:
    for size in (1, 2, 3, 4, 800_000, CAP):
        encoded = len(base64.b64encode(b"x" * size))
        assert request_bytes(size) == encoded + ENVELOPE_BYTES


@pytest.mark.parametrize("size", [800_000, CAP])
def test_a_file_the_cap_allows_arrives_under_the_default_limit(size: int) -> None:
    with override_settings(FRISIAN_MCP=FILES):
        response = upload(size)
    assert response.status_code == 200, response.content[:300]
    result = response.json()["result"]
    assert result["isError"] is False, result
    assert Paper.objects.get().attachment.size == size


def test_a_body_past_the_raised_limit_is_still_413() -> None:
    with override_settings(FRISIAN_MCP=FILES):
        body = b" " * (request_limit() + 1)
        response = Client().post("/mcp", body, content_type="application/json")
    assert response.status_code == 413
    assert not Paper.objects.exists()


def test_a_limit_the_project_sets_is_kept() -> None:
    with override_settings(FRISIAN_MCP={**FILES, "MAX_REQUEST_BYTES": MIB}):
        response = upload(800_000)
    assert response.status_code == 413
    assert not Paper.objects.exists()


@pytest.mark.parametrize(
    ("settings", "ids"),
    [
        (FILES, []),
        ({**FILES, "MAX_REQUEST_BYTES": MIB}, ["frisian_mcp.W012"]),
        ({**FILES, "MAX_REQUEST_BYTES": request_bytes(CAP) - 1}, ["frisian_mcp.W012"]),
        ({**FILES, "MAX_REQUEST_BYTES": request_bytes(CAP)}, []),
        ({**FILES, "MAX_REQUEST_BYTES": MIB, "FILE_MAX_BYTES": 700_000}, []),
        (
            {**FILES, "MAX_REQUEST_BYTES": 6_000_000, "FILE_MAX_BYTES": 5 * MIB},
            ["frisian_mcp.W012"],
        ),
        ({**SETTINGS, "MAX_REQUEST_BYTES": 1000}, []),
        ({**FILES, "MAX_REQUEST_BYTES": "big"}, ["frisian_mcp.E007"]),
        (
            {**FILES, "MAX_REQUEST_BYTES": 1000, "FILE_MAX_BYTES": 0},
            ["frisian_mcp.E007"],
        ),
    ],
)
def test_check_warns_when_the_two_limits_contradict(
    settings: dict[str, Any], ids: list[str]
) -> None:
    with _installed(settings), override_settings(FRISIAN_MCP=settings):
        found = [*check_settings(), *check_file_settings()]
    assert [m.id for m in found] == ids
    for message in found:
        assert message.hint
