"""The test settings without any extra: the core alone (tests/test_package.py)."""

from __future__ import annotations

from tests.settings import *  # noqa: F403

INSTALLED_APPS = [
    app
    for app in INSTALLED_APPS  # noqa: F405
    if not app.startswith("frisian_mcp.contrib")
]

# The extras' call hooks are extras too.
FRISIAN_MCP = {**FRISIAN_MCP, "CALL_HOOKS": []}  # noqa: F405
