"""Who may see which tool: the caller's permission classes, probed.

A listing shows a caller only the tools their permissions (and an OAuth
token's scopes) allow; the call itself is always checked in full. With a
shared cache, the visible set is probed once per caller and kept for
``CACHE_TTL_MS`` or until permissions change (ADR 0006).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol

from frisian_mcp import cache, oauth
from frisian_mcp.conf import mcp_settings
from frisian_mcp.invocation import Probe
from frisian_mcp.tools import Tool
from frisian_mcp.types import CallContext

__all__ = ["Visibility"]


class Registry(Protocol):
    """What visibility needs of the registry: its tools and their digest."""

    @property
    def fingerprint(self) -> str: ...

    def __iter__(self) -> Iterator[Tool]: ...


class Visibility:
    """Whether one caller may use a tool: its permission classes, probed.

    With a shared cache, the caller's whole visible set is probed once and
    kept for ``CACHE_TTL_MS`` or until permissions change (ADR 0006).
    """

    def __init__(self, registry: Registry, context: CallContext | None) -> None:
        # An OAuth token's scopes narrow the list whatever the setting says.
        self._scopes = oauth.granted(context.auth) if context is not None else None
        self._probing = mcp_settings.FILTER_TOOLS_BY_PERMISSION
        self.everything = context is None or (
            not self._probing and self._scopes is None
        )
        self._probe = Probe(context) if context is not None else None
        self._registry = registry
        self._names: frozenset[str] | None = None
        self._cached = (
            self._probing
            and not self.everything
            and mcp_settings.CACHE_TTL_MS > 0
            and cache.backend() is not None
        )

    def __call__(self, tool: Tool) -> bool:
        if self.everything or self._probe is None:
            return True
        method = tool.endpoint.method
        if self._scopes is not None and not oauth.permits(
            self._scopes, tool.name, tool.kind, method
        ):
            return False
        return self.permitted(tool)

    def permitted(self, tool: Tool) -> bool:
        """Whether the caller's permissions, scopes aside, let it see ``tool``."""
        if not self._probing or self._probe is None:
            return True
        if not self._cached:
            return self._probe.allows(tool)
        if self._names is None:
            self._names = self._load(self._probe)
        return tool.name in self._names

    def _load(self, probe: Probe) -> frozenset[str]:
        key = cache.visible_key(self._registry.fingerprint, probe.context)
        names = cache.load(key)
        if not isinstance(names, frozenset):
            names = frozenset(t.name for t in self._registry if probe.allows(t))
            cache.store(key, names, mcp_settings.CACHE_TTL_MS / 1000)
        return names
