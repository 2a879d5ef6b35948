"""Records as resources (ADR 0043): one URI template per retrieve tool.

``drf://<key>/<value>...`` names the record the retrieve tool ``key`` reads
with those path variables. ``resources/read`` runs that tool through its
view, so permissions, queryset, call hooks, redaction and the audit apply as
to ``tools/call``; a record the caller cannot see, under a template hidden
from it or not, answers exactly as one that does not exist.
"""

from __future__ import annotations

import re
import weakref
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import Any
from urllib.parse import quote, unquote_to_bytes, urlsplit

from django.core import checks
from django.core.exceptions import ImproperlyConfigured

from frisian_mcp import blobs, invocation, methods, outcomes, tokens
from frisian_mcp.conf import mcp_settings
from frisian_mcp.contracts import ContentResult
from frisian_mcp.exceptions import (
    HostError,
    InternalError,
    InvalidParams,
    JSONRPCError,
    ResourceNotFound,
    ToolError,
)
from frisian_mcp.jsonschema import plain
from frisian_mcp.registry import ToolRegistry, get_registry
from frisian_mcp.replies import dumps
from frisian_mcp.revisions import REVISIONS
from frisian_mcp.tools import Tool
from frisian_mcp.types import Call, CallContext, ErrorCode, JSONObject, Kind
from frisian_mcp.visibility import Visibility

__all__ = ["JSON", "Template", "clash_warnings", "listed", "read", "template_for",
           "templates"]  # fmt: skip

JSON = "application/json"
_TEMPLATES_CURSOR = "resources_templates_cursor"
_LIST_CURSOR = "resources_list_cursor"
#: One path segment (RFC 3986 ``pchar``), its percent-encoding well formed.
_SEGMENT = re.compile(r"(?:[A-Za-z0-9._~!$&'()*+,;=:@-]|%[0-9A-Fa-f]{2})+")


@dataclass(frozen=True)
class Template:
    """A retrieve tool as resources: its ``key``, flat ``tool`` name, and
    path ``variables`` (argument names, URL order) with the URL ``kwargs``
    they fill. Without variables it is one resource (``resources/list``)."""

    key: str
    tool: str
    variables: tuple[str, ...]
    kwargs: tuple[str, ...]

    @property
    def uri_template(self) -> str:
        """RFC 6570 Level 1: ``drf://contacts/{id}``."""
        return _origin(self.key) + "".join(f"/{{{v}}}" for v in self.variables)

    def uri(self, values: Sequence[str]) -> str:
        """The canonical URI of the record ``values`` name: lowercase key,
        everything outside ``unreserved`` percent-encoded in uppercase."""
        return _origin(self.key) + "".join("/" + quote(v, safe="") for v in values)


def templates(
    context: CallContext | None, registry: ToolRegistry | None = None
) -> list[Template]:
    """The templates (with variables) listed to the caller of ``context``."""
    return [t for _, _, t in _shown(context, registry or get_registry(), True)]


def listed(
    context: CallContext | None, registry: ToolRegistry | None = None
) -> list[Template]:
    """The resources ``resources/list`` lists to the caller of ``context``:
    templates without variables, each the one URI ``uri(())``."""
    return [t for _, _, t in _shown(context, registry or get_registry(), False)]


def template_for(key: str, registry: ToolRegistry | None = None) -> Template | None:
    """The template of resource key ``key`` (any case), whoever calls."""
    registry = registry or get_registry()
    tool = _indexed(registry)[0].get(key.lower())
    return _template(key.lower(), tool) if tool is not None else None


def clash_warnings(registry: ToolRegistry) -> list[checks.CheckMessage]:
    """W016: retrieve tools sharing a key even by their full names (names
    that differ only in case); none of them is served as a resource."""
    return [
        checks.Warning(
            f"Several retrieve tools share the resource key {key!r} (keys "
            "ignore case): none of them is served as a resource.",
            hint="Give the viewsets mcp_name attributes that differ in more "
            "than case (docs/resources.md).",
            id="frisian_mcp.W016",
        )
        for key in _indexed(registry)[1]
    ]


def read(
    context: CallContext, uri: str, registry: ToolRegistry | None = None
) -> tuple[list[JSONObject], JSONObject | None]:
    """The contents of the resource ``uri`` as the caller of ``context``
    reads it, and the record's JSON (``None``: the view answered a file).

    Raises :class:`ResourceNotFound` (as the request's revision answers it)
    for a URI that names nothing this caller may read, and -32602 with
    ``data.code`` for a view that refuses the caller (ADR 0043).
    """
    registry = registry or get_registry()
    missing = ResourceNotFound.of(REVISIONS[context.protocol_version].stateless)
    found = _parse(registry, context, uri)
    if found is None:
        raise missing
    template, values, field = found
    tool = _indexed(registry)[0][template.key].for_caller(context)
    context.exchange.tool = tool.name
    canonical = template.uri(values)
    call = Call(
        dict(zip(template.kwargs, values, strict=True)),
        arguments=dict(zip(template.variables, values, strict=True)),
    )
    call.input_schema = tool.schema.input_schema if tool.schema else {}
    try:
        # The argument schema is skipped: the URL pattern checks the values.
        answer = invocation.run(tool, call, context)
        if isinstance(answer.data, ContentResult):  # a file (ADR 0027)
            if field is not None:
                raise missing
            return [_file(answer.data, canonical)], None
        structured = outcomes.result(tool, call, answer)
        if field is not None:  # a file field's own resource
            uri = f"{canonical}/{quote(field, safe='')}"
            blob = blobs.one(tool, call, context, answer.data, field, uri)
            if blob is None:
                raise missing
            return [blob], None
        text, structured = _text(structured)
        record: JSONObject = {"uri": canonical, "mimeType": JSON, "text": text}
        files = blobs.attach(
            tool, call, context, answer.data, record,
            lambda name: f"{canonical}/{quote(name, safe='')}",
        )  # fmt: skip
    except ToolError as exc:
        raise _refusal(exc, missing) from None
    return [record, *files], structured


# -- the methods -------------------------------------------------------------


@methods.capability("resources")
def _declared(registry: Callable[[], ToolRegistry]) -> JSONObject | None:
    """``resources: {}`` whenever a retrieve tool exists (no subscriptions)."""
    try:
        tools = registry()
    except (HostError, ImproperlyConfigured):  # discovery: told by tools/list
        return None
    return {} if any(t.kind is Kind.READ for t in tools) else None


@methods.method("resources/templates/list", "resources")
def _list_templates(call: methods.MethodCall, params: JSONObject) -> JSONObject:
    return _page(call, params, _TEMPLATES_CURSOR, "resourceTemplates")


@methods.method("resources/list", "resources")
def _list_resources(call: methods.MethodCall, params: JSONObject) -> JSONObject:
    return _page(call, params, _LIST_CURSOR, "resources")


@methods.method("resources/read", "resources")
def _read(call: methods.MethodCall, params: JSONObject) -> JSONObject:
    uri = params.get("uri")
    if not isinstance(uri, str):
        raise InvalidParams(
            "Invalid params: resources/read needs a resource URI in params.uri."
        )
    contents, _ = read(call.context, uri, call.registry())
    result = call.cacheable({"contents": contents})
    if call.revision.stateless:  # the caller's record, which may change now
        result["ttlMs"] = 0
    return result


# -- listing ------------------------------------------------------------------


def _page(
    call: methods.MethodCall, params: JSONObject, purpose: str, key: str
) -> JSONObject:
    """One page of ``key`` from the cursor's offset, and its ``nextCursor``."""
    cursor = params.get("cursor")
    offset = 0 if cursor is None else tokens.read_cursor(purpose, cursor)
    size = max(1, mcp_settings.TOOLS_LIST_PAGE_SIZE)
    registry = call.registry()
    registry.share_schemas()
    walk = _shown(call.context, registry, key == "resourceTemplates", offset)
    found = list(islice(walk, size + 1))
    shown = [_described(tool, t, call) for _, tool, t in found[:size]]
    result: JSONObject = {key: shown}
    if len(found) > size:
        result["nextCursor"] = tokens.cursor(purpose, found[size - 1][0])
    return call.cacheable(result)


def _shown(
    context: CallContext | None, registry: ToolRegistry, templated: bool, start: int = 0
) -> Iterator[tuple[int, Tool, Template]]:
    """The templates with (or without) variables listed to the caller, from
    position ``start``, each with the caller's tool and the next position.
    Positions count every template of the kind: a page probes only those it
    walks past (as ``tools/list``, :meth:`ToolRegistry.page`)."""
    every = [t for t in _templates(registry) if bool(t.variables) == templated]
    seen = registry.visible(context)
    for position, template in enumerate(every[start:], start + 1):
        tool = _tool_of(registry, template, seen, context)
        if tool is not None:
            yield position, tool, template


def _tool_of(
    registry: ToolRegistry,
    template: Template,
    seen: Visibility,
    context: CallContext | None,
) -> Tool | None:
    """The template's tool as the caller gets it, if ``tools/list`` lists it."""
    tool = _indexed(registry)[0][template.key]
    if not seen(tool):
        return None
    tool = tool.for_caller(context)
    return tool if tool.definition() is not None else None


def _described(tool: Tool, template: Template, call: methods.MethodCall) -> JSONObject:
    """``uriTemplate`` (a resource's ``uri``), ``name``, ``title`` (from
    2025-06-18), ``description``, ``mimeType``."""
    field = "uriTemplate" if template.variables else "uri"  # without: one URI
    entry: JSONObject = {field: template.uri_template, "name": template.key}
    if call.revision.structured:
        entry["title"] = tool.title
    entry["description"] = tool.description
    if _answers_json(tool):
        entry["mimeType"] = JSON
    return entry


def _answers_json(tool: Tool) -> bool:
    """Whether the view renders JSON (else a file, or nothing known)."""
    endpoint = tool.endpoint
    renderers: Any = endpoint.initkwargs.get(
        "renderer_classes", getattr(endpoint.view_class, "renderer_classes", ())
    )
    types = (str(getattr(r, "media_type", "")).split(";")[0] for r in renderers)
    return any(t.strip().lower().endswith(("/json", "+json")) for t in types)


# -- the index of keys ----------------------------------------------------------

_INDEXES: weakref.WeakKeyDictionary[ToolRegistry, tuple[dict[str, Tool], list[str]]] = (
    weakref.WeakKeyDictionary()
)


def _indexed(registry: ToolRegistry) -> tuple[dict[str, Tool], list[str]]:
    """Every retrieve tool by key, and the clashing keys; from names alone
    (the checks build no schema), once per registry."""
    found = _INDEXES.get(registry)
    if found is None:
        found = _INDEXES[registry] = _build(registry)
    return found


def _build(registry: ToolRegistry) -> tuple[dict[str, Tool], list[str]]:
    """Key: the flat name without ``__retrieve``, lowercased; tools whose
    keys collide keep their full (lowercased) names (ADR 0043)."""
    tools = [t for t in registry if t.kind is Kind.READ]
    short = Counter(t.name.removesuffix("__retrieve").lower() for t in tools)
    proposed = []
    for tool in tools:
        key = tool.name.removesuffix("__retrieve").lower()
        proposed.append((key if short[key] == 1 else tool.name.lower(), tool))
    counts = Counter(key for key, _ in proposed)
    kept = sorted((p for p in proposed if counts[p[0]] == 1), key=lambda p: p[0])
    return dict(kept), sorted(key for key, n in counts.items() if n > 1)


def _templates(registry: ToolRegistry) -> list[Template]:
    """Every retrieve tool's template, by key (those with a schema)."""
    found = (_template(k, t) for k, t in _indexed(registry)[0].items())
    return [t for t in found if t is not None]


def _template(key: str, tool: Tool) -> Template | None:
    schema = tool.schema
    if schema is None:  # left out: no tool, no resource
        return None
    named = {kwarg: name for name, kwarg in schema.path_arguments.items()}
    kwargs = tool.endpoint.path_variables
    return Template(key, tool.name, tuple(named.get(k, k) for k in kwargs), kwargs)


# -- reading ------------------------------------------------------------------


def _origin(key: str) -> str:
    return f"{mcp_settings.RESOURCE_SCHEME}://{key}"


def _parse(
    registry: ToolRegistry, context: CallContext, uri: str
) -> tuple[Template, list[str], str | None] | None:
    """The template, decoded values and file field ``uri`` names for this
    caller, if any.

    Strict (2025-11-25 server/resources "Security Considerations": servers
    MUST validate URIs): printable ASCII; the scheme; an authority without
    userinfo or port; no query or fragment; one segment per variable.
    """
    if not (uri.isascii() and uri.isprintable()) or any(c in uri for c in " ?#\\"):
        return None
    try:
        parts = urlsplit(uri)
    except ValueError:
        return None
    authority = parts.netloc
    if (
        parts.scheme.lower() != mcp_settings.RESOURCE_SCHEME
        or not authority
        or any(c in authority for c in "@:[]%")
    ):
        return None
    template = template_for(authority, registry)
    if template is None:
        return None
    segments = parts.path.split("/")[1:] if parts.path else []
    found = [_decoded(s) for s in segments]
    values = [v for v in found if v is not None]
    count = len(template.variables)
    if len(values) != len(found) or len(values) not in (count, count + 1):
        return None  # one more: a file field of the record (ADR 0043)
    if _tool_of(registry, template, registry.visible(context), context) is None:
        return None
    return template, values[:count], (values[count] if len(values) > count else None)


def _decoded(segment: str) -> str | None:
    """One segment's value: well-formed percent-encoding of UTF-8, not empty."""
    if not _SEGMENT.fullmatch(segment):
        return None
    try:
        return unquote_to_bytes(segment).decode("utf-8")
    except UnicodeDecodeError:
        return None


def _text(structured: JSONObject) -> tuple[str, JSONObject]:
    """The record as JSON text (and as made plain, where it had to be)."""
    try:
        return dumps(structured), structured
    except TypeError:  # a value JSON has no type for: DRF's own encoding
        structured = plain(structured)
        return dumps(structured), structured


def _file(content: ContentResult, uri: str) -> JSONObject:
    """A file the view answered (files extra): its resource, at ``uri``."""
    for block in content.get("content", ()):
        if block.get("type") == "resource":
            return {**block["resource"], "uri": uri}
    raise ValueError("a file's content holds no resource")


def _refusal(exc: ToolError, missing: ResourceNotFound) -> JSONRPCError:
    """A view's refusal of a listed template: not found (404), else -32602
    with its ``data.code`` (401, 403, 429...); a failure is -32603."""
    if exc.code is ErrorCode.NOT_FOUND:
        return missing
    data = exc.payload()
    message = data.pop("message")
    if exc.code is ErrorCode.INTERNAL_ERROR:
        return InternalError(message, data={"code": exc.code.value})
    return InvalidParams(message, data=data)
