"""What a prompt function is handed first: the caller, and reads as the caller.

Whatever a prompt reads through its :class:`PromptContext` goes through the
caller's own views (ADR 0044): tools as ``tools/call`` runs them, records
as ``resources/read`` reads them (ADR 0043).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from django.contrib.auth.models import AnonymousUser

from frisian_mcp.exceptions import ResourceNotFound
from frisian_mcp.prompt_messages import RecordValue
from frisian_mcp.types import CallContext, JSONObject

if TYPE_CHECKING:
    from frisian_mcp.registry import ToolRegistry

__all__ = ["PromptContext"]


class PromptContext:
    """What a prompt function is handed first: the caller, and their tools."""

    def __init__(
        self, context: CallContext, registry: Callable[[], ToolRegistry] | None = None
    ) -> None:
        self.call_context = context
        self._registry = registry

    @property
    def user(self) -> Any:
        """The caller (``AnonymousUser`` for an anonymous one)."""
        return self.call_context.user or AnonymousUser()

    @property
    def request(self) -> Any:
        """The endpoint's HTTP request."""
        return self.call_context.request

    def call_tool(self, name: str, arguments: Mapping[str, Any]) -> JSONObject:
        """Run tool ``name`` as the caller: its ``structuredContent``.

        A refusal (``ToolError``) not caught by the prompt answers
        ``prompts/get`` as -32602 with the tool's error code.
        """
        from frisian_mcp.registry import get_registry

        registry = (self._registry or get_registry)()
        return registry.dispatch(name, dict(arguments), self.call_context)

    def read(self, uri: str) -> RecordValue:
        """The resource ``uri`` as the caller reads it (``resources/read``).

        A URI naming nothing the caller may read answers ``prompts/get`` as
        ``resources/read`` would (ADR 0043), unless the prompt catches it.
        """
        from frisian_mcp import resources

        contents, data = resources.read(self.call_context, uri)
        return RecordValue(contents[0], data)

    def record(self, key: str, value: str) -> RecordValue:
        """The record of resource ``key`` whose one variable is ``value``,
        read as the caller.

        Raises:
            ResourceNotFound: no such record, or none this caller may see.
        """
        from frisian_mcp import resources

        template = resources.template_for(key)
        if template is None or len(template.variables) != 1:
            raise ResourceNotFound
        return self.read(template.uri([value]))
