"""API keys bound to a glob of tool names: ``Authorization: Key <name>``."""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import User
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.request import Request

from frisian_mcp.exceptions import Forbidden
from frisian_mcp.tools import Tool

#: Each key's user and the tools it reaches.
KEYS = {
    "reader": ("keyholder", "contacts__list"),
    "contacts": ("keyholder", "contacts__*"),
}


@dataclass(frozen=True)
class APIKey:
    """``request.auth`` of a key: a ``ToolGrant``."""

    name: str
    tools: str

    def allows_tool(self, tool: Tool) -> bool:
        return fnmatch.fnmatchcase(tool.name, self.tools)

    def check_tool(self, tool: Tool) -> None:
        if not self.allows_tool(tool):
            raise Forbidden(
                "Forbidden: this API key does not reach the tool.",
                data={"code": "permission_denied"},
                challenge=f'Key realm="tools", key="{self.name}"',
            )


class KeyAuthentication(BaseAuthentication):
    """The key's user, with the key as ``request.auth``."""

    def authenticate(self, request: Request) -> tuple[Any, APIKey] | None:
        parts = get_authorization_header(request).split()
        if len(parts) != 2 or parts[0] != b"Key":
            return None
        name = parts[1].decode("ascii", "replace")
        if name not in KEYS:
            raise exceptions.AuthenticationFailed("Unknown key.")
        username, tools = KEYS[name]
        user, _ = User.objects.get_or_create(username=username)
        return user, APIKey(name, tools)

    def authenticate_header(self, request: Request) -> str:
        return 'Key realm="tools"'


class RealmBearerAuthentication(BaseAuthentication):
    """A Bearer scheme that never authenticates: its challenge leads a 401."""

    def authenticate(self, request: Request) -> None:
        return None

    def authenticate_header(self, request: Request) -> str:
        return 'Bearer realm="api"'
