"""Dispatcher tools: one tool per group of resources, for large APIs.

A dispatcher stands for a group (an app, a URL namespace or a path segment)
and routes ``{"resource", "action", ...}`` to the flat tool it names. Every
other argument is forwarded untouched, so the flat tool's guards see it: a
``data`` wrapper sent to a dispatcher is refused as it is by the flat tool.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from frisian_mcp.conf import extra_settings as mcp_settings
from frisian_mcp.discovery import valid_name, viewset_option
from frisian_mcp.exceptions import LIST_LIMIT, ToolInputError, few
from frisian_mcp.tools import Tool
from frisian_mcp.types import ErrorCode, JSONObject, ToolDefinition

__all__ = ["DispatcherTool", "build_dispatchers"]

#: Above this many resources a dispatcher lists them through ``help`` only,
#: so its ``tools/list`` entry stays the same size however the API grows.
ENUM_LIMIT = 50
_ROUTING = ("resource", "action")


@dataclass
class DispatcherTool:
    """One group's dispatcher: routes (resource, action) to flat tools."""

    name: str
    group: str
    routes: dict[str, dict[str, str]] = field(default_factory=dict)

    @property
    def actions(self) -> list[str]:
        """Every action some resource of the group offers, sorted."""
        return sorted(
            {action for actions in self.routes.values() for action in actions}
        )

    def definition(self) -> ToolDefinition:
        """The dispatcher's ``tools/list`` entry."""
        resources = sorted(self.routes)
        resource: JSONObject = {
            "type": "string",
            "description": "The resource to act on.",
        }
        if len(resources) <= ENUM_LIMIT:
            resource["enum"] = resources
            overview = self._overview(resources)
        else:
            resource["description"] += ' Call with {"help": true} for the list.'
            overview = f" It has {len(resources)} resources; call with help: true to list them."
        return {
            "name": self.name,
            "title": f"{self.group} tools",
            "description": (
                f"Acts on the {self.group} resources. Send resource and action, plus "
                "the arguments of that action flat at the top level (fields, lookup "
                "id, filters...). Send help: true, alone or with resource and "
                "action, for the arguments an action takes." + overview
            ),
            "inputSchema": {
                "type": "object",
                "properties": {
                    "resource": resource,
                    "action": {
                        "type": "string",
                        "enum": self.actions,
                        "description": "What to do: list, retrieve, create, update, partial_update, destroy, or a custom action.",
                    },
                    "help": {
                        "type": "boolean",
                        "description": "true: document the group, a resource, or an action instead of running it.",
                    },
                },
                "additionalProperties": True,
            },
            "annotations": {
                "title": f"{self.group} tools",
                "readOnlyHint": False,
                "destructiveHint": True,
                "idempotentHint": False,
                "openWorldHint": False,
            },
        }

    def _overview(self, resources: list[str]) -> str:
        """Which actions the resources offer, each set named once.

        The actions every resource offers are named once, and only the
        resources with more are named again: the entry grows by a resource
        name per viewset, not by its whole action list.
        """
        common = set.intersection(*(set(self.routes[r]) for r in resources))
        extra = [
            f"{r} also {', '.join(sorted(set(self.routes[r]) - common))}"
            for r in resources
            if set(self.routes[r]) - common
        ]
        text = ""
        if common:
            shared = (
                f"Resource {resources[0]}" if len(resources) == 1 else "Every resource"
            )
            text = f" {shared} offers {', '.join(sorted(common))}."
        if extra:
            text += f" Other actions: {'; '.join(extra)}."
        return text

    def route(self, arguments: Mapping[str, Any]) -> tuple[str | None, JSONObject]:
        """``(flat tool, its arguments)``, or ``(None, help result)``."""
        args = dict(arguments)
        resource = args.pop("resource", None)
        action = args.pop("action", None)
        wants_help = args.get("help") is True
        if resource is None and action is None and wants_help:
            return None, self.help()
        if not isinstance(resource, str) or resource not in self.routes:
            raise self._routing_error(
                "resource", sorted(self.routes), missing=resource is None
            )
        actions = self.routes[resource]
        if action is None and wants_help:
            return None, self.help(resource)
        if not isinstance(action, str) or action not in actions:
            raise self._routing_error(
                "action", sorted(actions), missing=action is None, resource=resource
            )
        return actions[action], args

    def help(self, resource: str | None = None) -> JSONObject:
        """The group's resources and actions, or one resource's actions."""
        if resource is not None:
            return {
                "help": {
                    "dispatcher": self.name,
                    "resource": resource,
                    "actions": sorted(self.routes[resource]),
                    "usage": 'Add "action" (and help: true) for the arguments of one action.',
                }
            }
        return {
            "help": {
                "dispatcher": self.name,
                "resources": {r: sorted(a) for r, a in sorted(self.routes.items())},
                "usage": (
                    'Call with {"resource": ..., "action": ..., <arguments>}; add '
                    "help: true to document an action."
                ),
            }
        }

    def _routing_error(
        self,
        argument: str,
        allowed: list[str],
        *,
        missing: bool,
        resource: str | None = None,
    ) -> ToolInputError:
        what = "is required" if missing else "is not one of the allowed values"
        scope = f" of resource {resource!r}" if resource is not None else ""
        count = f" ({len(allowed)})" if len(allowed) > LIST_LIMIT else ""
        return ToolInputError(
            f"{self.name}: {argument} {what}. Allowed {argument}s{scope}{count}: "
            f"{few(allowed)}.",
            code=ErrorCode.INVALID_ARGUMENT,
            tool=self.name,
            field=argument,
            fields=[
                {
                    "field": argument,
                    "code": "required" if missing else "invalid_choice",
                    "message": what,
                }
            ],
            hint="Call the dispatcher with help: true for its resources and actions.",
        )


def build_dispatchers(tools: Iterable[Tool]) -> dict[str, DispatcherTool]:
    """Group ``tools`` into dispatchers, by name."""
    by_group: dict[str, list[Tool]] = {}
    for tool in tools:
        by_group.setdefault(group_of(tool), []).append(tool)
    dispatchers: dict[str, DispatcherTool] = {}
    for group in sorted(by_group):
        name = valid_name(group)
        dispatcher = DispatcherTool(name=name, group=group)
        for tool in sorted(by_group[group], key=lambda t: t.name):
            base, _, action = tool.name.rpartition("__")
            if not base:
                base, action = tool.name, tool.endpoint.action
            resource = base[len(group) + 2 :] if base.startswith(group + "__") else base
            routes = dispatcher.routes.setdefault(resource, {})
            if action in routes:
                # Two tools met under one (resource, action): keep both, the
                # second under its full name.
                routes = dispatcher.routes.setdefault(base, {})
            routes[action] = tool.name
        dispatchers[name] = dispatcher
    return dispatchers


def group_of(tool: Tool) -> str:
    """The dispatcher group of ``tool``."""
    explicit = viewset_option(tool.endpoint.view_class, "group")
    if explicit:
        return str(explicit)
    first = tool.name.split("__", 1)[0]
    by = mcp_settings.DISPATCHER_GROUP_BY
    if by == "app":
        model = tool.model
        return model._meta.app_label if model is not None else first
    if by == "namespace":
        return tool.endpoint.namespace.split(":", 1)[0] or first
    return first
