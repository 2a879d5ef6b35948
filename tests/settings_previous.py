"""A project's settings from the release before the extras (issue 25 item 8).

Only ``frisian_mcp`` installed, and the keys a host of that release set: the
layout, the shared cache, its permission models, OAuth. tests/test_extras.py
checks that they give the warnings the CHANGELOG's "Upgrading" names, and
keep serving.
"""

from __future__ import annotations

from tests.settings_core import *  # noqa: F403

FRISIAN_MCP = {
    "REQUIRE_AUTHENTICATION": False,
    "TOOL_LAYOUT": "auto",
    "DISPATCHER_THRESHOLD": 10,
    "DISPATCHER_GROUP_BY": "app",
    "CACHE": "default",
    "CACHE_TTL_MS": 60_000,
    "PERMISSION_MODELS": ["guardian.UserObjectPermission"],
    "OAUTH": {"RESOURCE": "https://api.example.com/mcp"},
}
