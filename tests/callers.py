"""Callers of a mounted read-only test app, as the resources and completion
tests make them (tests/test_resources.py, tests/test_completion.py): one
kind of person, in one protocol era, and the error a request of theirs gets.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from frisian_mcp.contrib.testing import MCPError, MCPTestClient

__all__ = ["ERAS", "SETTINGS", "client_as", "error"]

#: The handshake era's last revision, and the stateless one.
ERAS = ("2025-11-25", "2026-07-28")
#: The endpoint lets anyone call (the views decide), tools named flat.
SETTINGS: dict[str, Any] = {"REQUIRE_AUTHENTICATION": False, "TOOL_LAYOUT": "flat"}


def client_as(kind: str, era: str) -> MCPTestClient:
    """An initialized client: ``anonymous``, or a new user of that name
    (``staff`` is staff)."""
    django = Client()
    if kind != "anonymous":
        user = User.objects.create_user(kind, password="pw", is_staff=kind == "staff")
        django.force_login(user)
    mcp = MCPTestClient(django, protocol_version=era)
    mcp.initialize()
    return mcp


def error(mcp: MCPTestClient, method: str, params: dict[str, Any]) -> MCPError:
    """The JSON-RPC error ``method`` must answer with ``params``."""
    with pytest.raises(MCPError) as info:
        mcp.request(method, params)
    return info.value
