"""Contracts: the classes hosts and extras subclass, and the viewset options.

Each ``Base*`` class documents one extension point (docs/extending.md). It
imports only the settings and the value types, so that every layer may
import it; a tool, its schema and a registry are typed ``Any`` here
(docs/architecture.md, "Layers", which names the public paths).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Mapping
from itertools import takewhile
from typing import TYPE_CHECKING, Any

from frisian_mcp.conf import mcp_settings
from frisian_mcp.types import (
    PATH_VARIABLE,
    UNSAFE_NAME,
    Call,
    CallContext,
    Endpoint,
    JSONObject,
    SchemaProblem,
    ToolDefinition,
    dotted,
)

if TYPE_CHECKING:
    from django.core.handlers.wsgi import WSGIRequest
    from django.http import HttpResponseBase

__all__ = [
    "BaseCallHook",
    "BaseDiscoveryBackend",
    "BaseLayout",
    "BaseStore",
    "ContentResult",
    "viewset_option",
]


class BaseDiscoveryBackend:
    """Contract of a discovery backend (docs/extending.md).

    Subclasses implement :meth:`get_endpoints` and may override
    :meth:`get_tool_name`; both must be deterministic so ``tools/list`` is
    the same in every process. ``problems`` lists the views whose code kept
    discovery from reading their methods (ADR 0015).
    """

    def __init__(self) -> None:
        self.problems: list[SchemaProblem] = []

    def get_endpoints(self) -> list[Endpoint]:
        """Return every endpoint to expose, in a deterministic order."""
        raise NotImplementedError(
            f"{type(self).__name__} must implement get_endpoints()."
        )

    def get_path_prefix(self, endpoints: Iterable[Endpoint]) -> str:
        """The regex of the path prefix tool names leave out.

        ``PATH_PREFIX`` when set; else the leading static segments every
        endpoint shares, leaving each at least one.
        """
        configured = mcp_settings.PATH_PREFIX
        if configured is not None:
            return configured if configured.startswith("^") else "^" + configured
        heads = [_static_head(e.path) for e in endpoints]
        if not heads:
            return "^/"
        common: list[str] = []
        for parts in zip(*heads, strict=False):
            if len(set(parts)) != 1:
                break
            common.append(parts[0])
        common = common[: max(0, min(len(h) for h in heads) - 1)]
        return "^/" + "".join(re.escape(s) + "/" for s in common)

    def get_tool_name(self, endpoint: Endpoint, path_prefix: str) -> str:
        """Propose a name: static path segments and the action.

        ``/api/dcim/sites/{id}/`` PATCH becomes ``dcim__sites__partial_update``;
        a viewset's ``mcp_name`` replaces the path part.
        """
        path = re.sub(path_prefix, "/", endpoint.path, count=1, flags=re.IGNORECASE)
        segments = [
            s
            for s in path.strip("/").split("/")
            if s and not PATH_VARIABLE.fullmatch(s)
        ]
        handler = getattr(endpoint.view_class, endpoint.handler_name, None)
        url_path = getattr(handler, "url_path", None) if endpoint.actions else None
        if url_path:
            tail = [
                s
                for s in str(url_path).strip("/").split("/")
                if not PATH_VARIABLE.fullmatch(s)
            ]
            if tail and segments[-len(tail) :] == tail:
                segments = segments[: -len(tail)]
        resource = viewset_option(endpoint.view_class, "name")
        parts = [str(resource)] if resource else [_safe(s) for s in segments]
        if not parts:
            snake = re.sub(r"(?<!^)(?=[A-Z])", "_", endpoint.view_class.__name__)
            parts = [_safe(snake.lower())]
        return "__".join([*parts, _safe(endpoint.action)])


def viewset_option(view_class: type[Any], key: str) -> Any:
    """A per-viewset option: ``mcp_<key>`` on the class, else VIEWSET_OPTIONS."""
    value = getattr(view_class, f"mcp_{key}", None)
    if value is not None:
        return value
    entry = (mcp_settings.VIEWSET_OPTIONS or {}).get(dotted(view_class))
    return entry.get(key) if isinstance(entry, Mapping) else None


class BaseCallHook:
    """Steps into tool calls; every method's default changes nothing.

    ``tool`` is a :class:`~frisian_mcp.tools.Tool`, ``schema`` its
    :class:`~frisian_mcp.schema.ToolSchema`. ``settings``: the
    ``FRISIAN_MCP`` keys the hook reads, so a check can tell a setting that
    no listed hook reads.
    """

    settings: tuple[str, ...] = ()
    #: Whether :meth:`map_request` gives a view that parses only forms
    #: (multipart or URL-encoded) its body; without such a hook, the body
    #: tools of those views are left out, since every call would get 415.
    sends_forms: bool = False

    def get_request_bytes(self) -> int:
        """The request body this hook's calls may need, in bytes (0: none).

        Where the project does not set ``MAX_REQUEST_BYTES``, the endpoint
        takes bodies up to the largest of its default and every hook's
        answer (:func:`~frisian_mcp.hooks.request_limit`): the files extra's uploads travel
        inside the JSON-RPC body.
        """
        return 0

    def map_schema(self, tool: Any, schema: Any) -> Any:
        """The tool's schema as listed and checked (built once per tool).

        A hook may add protocol arguments (in ``input_schema`` and
        ``protocol_arguments``) and words to ``description``.
        """
        return schema

    def check_call(
        self, tool: Any, call: Call, view: Any, context: CallContext
    ) -> None:
        """Run after the view's access checks, before its action.

        Raise a :class:`~frisian_mcp.exceptions.ToolError` to answer the call
        instead (nothing is written), or
        :class:`~frisian_mcp.exceptions.InputRequired` to ask the client
        first. ``call.notes`` adds to a ``mode: "validate"`` report.
        """

    def map_request(self, tool: Any, call: Call, request: WSGIRequest) -> None:
        """Shape the call before its view is set up.

        A hook may change ``call.body`` in place (decode a file argument)
        or the inner ``request`` (a multipart body for a view that parses
        nothing else).
        """

    def map_response(
        self, tool: Any, call: Call, request: WSGIRequest, response: HttpResponseBase
    ) -> ContentResult | None:
        """A 2xx answer whose body is not JSON (see :func:`~frisian_mcp.hooks.foreign_body`).

        ``request`` is the inner one (its URL serves the file over REST).
        Return the result's content blocks, or ``None`` to leave the
        response to the next hook. Raise a
        :class:`~frisian_mcp.exceptions.ToolError` to answer an error.
        """
        return None


class ContentResult(dict[str, Any]):
    """A tool result given as MCP content blocks (``{"content": [...]}``),
    not as JSON: no ``structuredContent``, and no text copy of it."""


class BaseLayout:
    """A ``TOOL_LAYOUT`` besides ``"flat"``: entries that stand for tools.

    One instance per :class:`~frisian_mcp.registry.ToolRegistry`.
    ``tools/list`` lists its entries instead of the flat tools; a call to an
    entry is routed to a flat tool, which runs as if called by name (flat
    names stay callable). ``seen`` is the caller's
    :class:`~frisian_mcp.visibility.Visibility`.
    """

    def __init__(self, registry: Any) -> None:
        self.registry = registry

    def names(self) -> Collection[str]:
        """Every entry's name, whoever calls."""
        raise NotImplementedError

    def definitions(self, seen: Any) -> list[ToolDefinition]:
        """The entries the caller of ``seen`` may use, in listing order."""
        raise NotImplementedError

    def route(
        self, name: str, arguments: Mapping[str, Any], seen: Any
    ) -> tuple[str, Mapping[str, Any]] | JSONObject:
        """``(flat tool, its arguments)`` for a call to entry ``name``.

        Or the call's result, when the entry answers itself (``help``).
        Raise a :class:`~frisian_mcp.exceptions.ToolInputError` for
        arguments that reach no tool; a flat tool name the caller may not
        see is unknown to it, as if called by name.
        """
        raise NotImplementedError

    def describe(self) -> list[str]:
        """Lines for ``manage.py frisian_mcp_tools``' table (default: names)."""
        return sorted(self.names())


class BaseStore:
    """Keeps built schemas and each caller's visible tools beyond one process.

    ``STORE_BACKEND`` names a subclass, built once per
    :class:`~frisian_mcp.registry.ToolRegistry`. Without
    one, schemas live in the process's tools and each caller's permission
    answers in the registry (:class:`~frisian_mcp.rights.Answers`). A store
    is advice: whatever it cannot reach, the process builds or probes
    itself, and an unreachable backend never raises from here.
    """

    def __init__(self, registry: Any) -> None:
        self.registry = registry

    def share_schemas(self) -> None:
        """Adopt schemas built elsewhere (``Tool.adopt``); keep those built here."""

    def visible(
        self, context: CallContext, probe: Callable[[], frozenset[str]]
    ) -> frozenset[str]:
        """The names of the tools the caller may see: kept ones, or ``probe()``'s."""
        return probe()


def _static_head(path: str) -> list[str]:
    segments = path.strip("/").split("/")
    return list(takewhile(lambda s: s and not PATH_VARIABLE.search(s), segments))


def _safe(text: str) -> str:
    return UNSAFE_NAME.sub("_", text).strip("_") or "x"
