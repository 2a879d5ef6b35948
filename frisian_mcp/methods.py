"""The MCP methods beyond tools: resources, prompts, completion and logging.

Each feature module registers its methods here (``@method``) and says when
its capability is served (``@capability``); :mod:`~frisian_mcp.jsonrpc`
answers a method only when its revision names it (:data:`REVISIONS
<frisian_mcp.revisions.REVISIONS>`) and its capability is served to this
server, else -32601 (2025-11-25 basic/lifecycle "Operation": only
negotiated capabilities are used). The feature modules are imported by the
app's ``ready()``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from frisian_mcp.types import CallContext, JSONObject

if TYPE_CHECKING:
    from frisian_mcp.registry import ToolRegistry
    from frisian_mcp.revisions import Revision

__all__ = ["Method", "MethodCall", "capabilities", "capability", "method", "served"]


class MethodCall(Protocol):
    """What a method is handed: one request's exchange under its revision."""

    context: CallContext
    revision: Revision

    def registry(self) -> ToolRegistry: ...

    def cacheable(self, result: JSONObject) -> JSONObject:
        """``result`` with 2026-07-28's per-caller caching hints."""
        ...


Handler = Callable[[MethodCall, JSONObject], JSONObject]
#: What a capability declares, given the registry's getter (called only by a
#: capability that needs it: ``initialize`` builds no registry otherwise).
Declared = Callable[[Callable[[], "ToolRegistry"]], JSONObject | None]


@dataclass(frozen=True)
class Method:
    """One JSON-RPC method: its handler and the capability it needs."""

    run: Handler
    capability: str


#: Methods by JSON-RPC name, filled by the feature modules.
METHODS: dict[str, Method] = {}
#: Capability name -> what the server declares for it (``None``: not served).
_CAPABILITIES: dict[str, Declared] = {}


def method(name: str, capability: str) -> Callable[[Handler], Handler]:
    """Register ``handler`` as the JSON-RPC method ``name``."""

    def register(handler: Handler) -> Handler:
        METHODS[name] = Method(handler, capability)
        return handler

    return register


def capability(
    name: str,
) -> Callable[
    [Declared],
    Declared,
]:
    """Register what the server declares as capability ``name``."""

    def register(
        declared: Declared,
    ) -> Declared:
        _CAPABILITIES[name] = declared
        return declared

    return register


def capabilities(registry: Callable[[], ToolRegistry]) -> JSONObject:
    """``initialize``'s and ``server/discover``'s capabilities object."""
    declared: JSONObject = {"tools": {"listChanged": False}}
    for name, declare in _CAPABILITIES.items():
        value = declare(registry)
        if value is not None:
            declared[name] = value
    return declared


def served(name: str, registry: Callable[[], ToolRegistry]) -> Method | None:
    """The method ``name`` if its capability is served, else ``None``."""
    found = METHODS.get(name)
    if found is None or found.capability not in _CAPABILITIES:
        return None
    if _CAPABILITIES[found.capability](registry) is None:
        return None
    return found
