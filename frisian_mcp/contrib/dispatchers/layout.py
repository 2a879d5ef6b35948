"""The dispatcher layout: one listed tool per group, routing to the flat tools.

Each caller gets dispatchers holding only the routes it may use; callers
with the same permissions share them (and their definitions).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING, Any

from frisian_mcp.contrib.dispatchers.tools import DispatcherTool, build_dispatchers
from frisian_mcp.hooks import BaseLayout
from frisian_mcp.types import JSONObject, ToolDefinition

if TYPE_CHECKING:  # the app registers the layout at set-up, before either
    from frisian_mcp.registry import ToolRegistry
    from frisian_mcp.visibility import Visibility

__all__ = ["DispatcherLayout"]

#: Distinct visible sets whose dispatchers are kept; more clears them all.
SETS_KEPT = 64


class DispatcherLayout(BaseLayout):
    """``TOOL_LAYOUT = "dispatcher"``: a :class:`DispatcherTool` per group."""

    def __init__(self, registry: ToolRegistry) -> None:
        super().__init__(registry)
        self.dispatchers = build_dispatchers(registry)
        self._sets: dict[frozenset[str], dict[str, DispatcherTool]] = {}

    def names(self) -> Collection[str]:
        """Every dispatcher's name."""
        return self.dispatchers.keys()

    def definitions(self, seen: Visibility) -> list[ToolDefinition]:
        """The caller's dispatchers, each with only the routes it may use."""
        return [d.definition() for d in self._visible(seen).values()]

    def route(
        self, name: str, arguments: Mapping[str, Any], seen: Visibility
    ) -> tuple[str, Mapping[str, Any]] | JSONObject:
        """The flat tool ``(resource, action)`` names, or the help asked for."""
        if arguments.get("help") is True:
            self._build_routes(name, arguments.get("resource"))
        dispatcher = self._visible(seen).get(name)
        if dispatcher is None:
            raise self.registry.unknown_tool(name, seen)
        target, routed = dispatcher.route(arguments)
        return routed if target is None else (target, routed)

    def describe(self) -> list[str]:
        """A line per dispatcher, then one per resource with its actions."""
        lines = []
        for dispatcher in self.dispatchers.values():
            size = len(dispatcher.routes)
            lines.append(f"{dispatcher.name}  (dispatcher: {size} resources)")
            lines.extend(
                f"  {resource}: {', '.join(sorted(actions))}"
                for resource, actions in sorted(dispatcher.routes.items())
            )
        return lines

    def _build_routes(self, name: str, resource: object) -> None:
        """Build the schemas a dispatcher's help names (ADR 0010).

        The listing does not build every schema, so a dispatcher names a
        left-out tool's action until its schema is built; help builds the
        group's (or the resource's) first, and so never names one.
        """
        routes = self.dispatchers[name].routes
        chosen = routes.get(resource) if isinstance(resource, str) else None
        for actions in [chosen] if chosen else routes.values():
            for tool_name in actions.values():
                tool = self.registry.get(tool_name)
                if tool is not None:
                    tool.schema  # noqa: B018 - builds it
        self.registry.share_schemas()

    def _visible(self, seen: Visibility) -> dict[str, DispatcherTool]:
        """The dispatchers holding only the routes the caller may use.

        Tools known to be left out (built, without a schema) are dropped too.
        """
        visible = [tool for tool in self.registry if not tool.left_out and seen(tool)]
        if len(visible) == len(self.registry):
            return self.dispatchers
        key = frozenset(tool.name for tool in visible)
        if key not in self._sets:
            if len(self._sets) >= SETS_KEPT:
                self._sets.clear()
            self._sets[key] = build_dispatchers(visible)
        return self._sets[key]
