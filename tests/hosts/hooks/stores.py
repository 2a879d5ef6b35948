"""A store that keeps schemas and visible sets in a dict of the process."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from frisian_mcp.types import CallContext
from frisian_mcp.visibility import BaseStore

#: What every ProcessStore keeps, and what it was asked.
KEPT: dict[str, Any] = {}
ASKED: list[str] = []


class ProcessStore(BaseStore):
    """Schemas by tool name; visible sets by caller, never invalidated."""

    def share_schemas(self) -> None:
        schemas = KEPT.setdefault("schemas", {})
        for tool in self.registry:
            if not tool.built and tool.name in schemas:
                tool.adopt(schemas[tool.name])
            elif tool.built:
                schemas[tool.name] = tool.schema

    def visible(
        self, context: CallContext, probe: Callable[[], frozenset[str]]
    ) -> frozenset[str]:
        ASKED.append(context.caller)
        found: frozenset[str] = KEPT.setdefault(context.caller, probe())
        return found


class NotAStore:
    """Named by STORE_BACKEND by mistake."""

    def __init__(self, registry: Any) -> None:
        self.registry = registry
