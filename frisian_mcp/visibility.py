"""Who may see which tool, and where what a process builds may be kept.

A listing shows a caller only the tools their permissions (and their
credential's grant, :class:`ToolGrant`) allow; the call itself is always
checked in full. Without a store, each caller's answers are kept in the
process until its rights change (ADR 0032); a :class:`BaseStore`
(``STORE_BACKEND``) may keep each caller's visible set and the built schemas
beyond the process (ADR 0006); docs/extending.md describes both hooks.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol, runtime_checkable

from frisian_mcp.conf import mcp_settings
from frisian_mcp.contracts import BaseStore
from frisian_mcp.invocation import Probe
from frisian_mcp.rights import Answers
from frisian_mcp.tools import Tool
from frisian_mcp.types import CallContext

__all__ = ["BaseStore", "ToolGrant", "Visibility", "grant_of"]


@runtime_checkable
class ToolGrant(Protocol):
    """What ``request.auth`` implements when its credential reaches only some tools.

    An OAuth token's scopes, an API key bound to a few tools: the listing
    shows a tool only if :meth:`allows_tool`, and a call to it runs only
    if :meth:`check_tool` raises nothing (a
    :class:`~frisian_mcp.exceptions.Forbidden`, with its challenge).
    """

    def allows_tool(self, tool: Tool) -> bool:
        """Whether the credential reaches ``tool`` (listing and call)."""

    def check_tool(self, tool: Tool) -> None:
        """Raise ``Forbidden`` unless the credential reaches ``tool``."""


def grant_of(context: CallContext | None) -> ToolGrant | None:
    """The caller's ``request.auth`` when it narrows the tools, else ``None``."""
    auth = context.auth if context is not None else None
    # isinstance(auth, ToolGrant) says the same at a thousand times the cost
    # (typing's protocol check, on every call): both methods, neither None.
    if getattr(auth, "allows_tool", None) is None:
        return None
    return auth if getattr(auth, "check_tool", None) is not None else None


class _Tools(Protocol):
    """What :class:`Visibility` reads of the registry above it."""

    answers: Answers

    @property
    def store(self) -> BaseStore | None: ...
    def __iter__(self) -> Iterator[Tool]: ...


class Visibility:
    """Whether one caller may use a tool: its grant, its permission classes."""

    def __init__(self, registry: _Tools, context: CallContext | None) -> None:
        # A credential's grant narrows the list whatever the setting says.
        self._grant = grant_of(context)
        self._probing = mcp_settings.FILTER_TOOLS_BY_PERMISSION
        self.everything = context is None or (not self._probing and self._grant is None)
        self._registry = registry
        self._names: frozenset[str] | None = None
        self._store = registry.store if self._probing and not self.everything else None
        self._probe: Probe | None = None
        if context is not None:  # without a store, answers kept in the process
            kept = registry.answers.of(context) if self._store is None else {}
            self._probe = Probe(context, kept)

    def __call__(self, tool: Tool) -> bool:
        if self.everything or self._probe is None:
            return True
        if self._grant is not None and not self._grant.allows_tool(tool):
            return False
        return self.permitted(tool)

    def permitted(self, tool: Tool) -> bool:
        """Whether the caller's permissions, scopes aside, let it see ``tool``."""
        probe = self._probe
        if not self._probing or probe is None:
            return True
        if self._store is None:
            return probe.allows(tool)
        if self._names is None:
            self._names = self._store.visible(
                probe.context,
                lambda: frozenset(t.name for t in self._registry if probe.allows(t)),
            )
        return tool.name in self._names
