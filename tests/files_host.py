"""The files host (tests/hosts/files) as the files tests mount it
(tests/test_files.py, tests/test_resources_files.py): the files extra's
hook, a cap of :data:`CAP` bytes, and the media in a folder of the test's.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Iterator
from pathlib import Path

from django.test import override_settings
from PIL import Image

__all__ = ["CAP", "HOOK", "SETTINGS", "files_host", "png"]

CAP = 2000
HOOK = "frisian_mcp.contrib.files.hooks.FileHook"
SETTINGS = {"REQUIRE_AUTHENTICATION": False, "TOOL_LAYOUT": "flat"}


@contextlib.contextmanager
def files_host(media: Path) -> Iterator[None]:
    """The files host served, with the hook and the cap, its media in ``media``."""
    with override_settings(
        ROOT_URLCONF="tests.hosts.files.urls",
        MEDIA_ROOT=str(media),
        FRISIAN_MCP={**SETTINGS, "CALL_HOOKS": [HOOK], "FILE_MAX_BYTES": CAP},
    ):
        yield


def png() -> bytes:
    """A 2x2 red PNG."""
    out = io.BytesIO()
    Image.new("RGB", (2, 2), "red").save(out, "PNG")
    return out.getvalue()
