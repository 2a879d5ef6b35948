"""Request bodies: the serializer drf-spectacular finds, or the operator's.

``request_bodies`` (``VIEWSET_OPTIONS`` or ``mcp_request_bodies``) declares
an action's JSON body where the host's OpenAPI is wrong or guessed. A body
spectacular guessed is ``unchecked``: keys beyond it reach the view (ADR
0030); where the guess is likely wrong, a check names it (W009).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from django.core import checks
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.plumbing import (
    build_basic_type,
    force_instance,
    is_basic_type,
    is_serializer,
)
from rest_framework import serializers
from rest_framework.serializers import ModelSerializer

from frisian_mcp import spectacular
from frisian_mcp.discovery import query_parameter, viewset_option
from frisian_mcp.exceptions import ConfigurationError, host_call
from frisian_mcp.fields import argument_schema
from frisian_mcp.jsonschema import drop_required, schema_problem, to_json_schema
from frisian_mcp.relations import Relation, relation_schema
from frisian_mcp.types import ACTIONS, Endpoint, Kind, dotted

__all__ = [
    "BULK_ARGUMENTS",
    "Bodies",
    "BodySchema",
    "declared_body",
    "declared_errors",
    "declared_problems",
    "guessed_warnings",
    "request_body",
]

#: The keywords of a declared object body a tool's inputSchema carries itself.
_FLAT = frozenset(
    {"type", "properties", "required", "additionalProperties", "title"}
    | {"description", "$defs", "$schema"}
)


@dataclass(frozen=True)
class BodySchema:
    """A request body as top-level properties, or as one ``argument``.

    ``unchecked``: a guess, so keys beyond it go to the view unchecked (ADR
    0030), ``guessed`` from that serializer, ``warning``: W009's reason and
    hint. ``item``: a bulk tool's entry (ADR 0033). ``files``: file fields,
    which no JSON body carries (``required`` may name them).
    """

    properties: Mapping[str, Any] = field(default_factory=dict)
    required: tuple[str, ...] = ()
    relations: Mapping[str, Relation] = field(default_factory=dict)
    argument: str | None = None
    defs: Mapping[str, Any] = field(default_factory=dict)
    guessed: str | None = None
    unchecked: bool = False
    warning: tuple[str, str] | None = None
    item: BodySchema | None = None
    files: tuple[str, ...] = ()


#: Serializer bodies by (view class, serializer class), mapped once.
Bodies = dict[tuple[type[Any], type[Any]], BodySchema]
#: A bulk tool's one argument, its list (ADR 0033).
BULK_ARGUMENTS = {Kind.BULK_UPDATE: "objects", Kind.BULK_DELETE: "ids"}


def request_body(
    endpoint: Endpoint, view: Any, auto: AutoSchema, cache: Bodies
) -> BodySchema:
    """The body ``endpoint``'s tool sends: declared, the serializer's, or a guess."""
    if endpoint.kind in BULK_ARGUMENTS:
        return _bulk_body(endpoint, view, auto, cache)
    if endpoint.method not in ("POST", "PUT", "PATCH", "DELETE"):
        return BodySchema()
    declared = declared_body(endpoint)
    if declared is not None:
        return declared
    if endpoint.method == "DELETE":
        if spectacular.guessed_request(auto):  # DRF's destroy reads none
            return BodySchema(unchecked=not endpoint.stock)
        return _body(view, auto, _request_serializer(view, auto), cache)
    serializer = _request_serializer(view, auto)
    body = _body(view, auto, serializer, cache)
    partial = endpoint.method == "PATCH" and body.argument is None
    allocates = _allocates(endpoint, auto)
    if partial or allocates:
        # An allocator fills in what it allocates (ADR 0018), from one
        # object as from a list (ADR 0033).
        kept = body.required if body.argument else ()  # a list body is sent
        body = replace(_optional(body), required=kept)
        listed = body.properties.get(body.argument or "") or {}
        if allocates and listed.get("type") == "array":
            one = {"anyOf": [listed, listed["items"]]}
            properties = {**body.properties, str(body.argument): one}
            body = replace(body, properties=properties)
    if endpoint.kind != Kind.ACTION:
        return _stock_body(endpoint, auto, serializer, body)
    if not spectacular.declared_request(auto):
        # An inferred body the action may not even read.
        body = replace(body, required=())
    if (
        body.argument is not None
        or not spectacular.guessed_request(auto)
        or spectacular.chosen_for_action(view, auto)
    ):
        return body
    return _guessed(endpoint, serializer, body)


def _request_serializer(view: Any, auto: AutoSchema) -> Any:
    return spectacular.serializer(view, auto.get_request_serializer)


def _guessed(endpoint: Endpoint, serializer: Any, body: BodySchema) -> BodySchema:
    """A custom action's guessed body, open to keys beyond it (ADR 0030).

    W009 names it where the serializer serves more than this handler: a
    viewset's, or a generic view's that has stock actions. A plain view's
    own ``serializer_class`` is the serializer DRF documents for its input.
    """
    if not is_serializer(serializer):
        return replace(body, unchecked=True)
    name = type(serializer).__qualname__
    body = replace(body, unchecked=True, guessed=name)
    cls = endpoint.view_class
    if endpoint.actions is None and not any(
        action.mixin is not None and issubclass(cls, action.mixin)
        for action in ACTIONS.values()
    ):
        return body
    own = type(serializer) is getattr(cls, "serializer_class", None)
    source = "serializer_class" if own else "get_serializer_class()"
    reason = (
        f"takes the fields of {name} as a guess: drf-spectacular guessed the "
        f"body of {dotted(cls)}.{endpoint.handler_name} from the view's {source}"
    )
    return replace(body, warning=(reason, name))


def _stock_body(
    endpoint: Endpoint, auto: AutoSchema, serializer: Any, body: BodySchema
) -> BodySchema:
    """A stock action's body: unchecked where the OpenAPI declares another
    than the view's serializer; W009 where DRF's own handler validates with
    the view's, so the declaration is surely wrong."""
    if not spectacular.declared_request(auto):
        return body
    runs = spectacular.inferred_request(auto)
    fields = [_writable(s) for s in (serializer, runs)]
    if None in fields or fields[0] == fields[1]:
        return body
    declared, validating = (type(s).__qualname__ for s in (serializer, runs))
    body = replace(body, required=(), unchecked=True, guessed=declared)
    if not endpoint.stock:  # its own handler may read either
        return body
    reason = (
        f"takes the fields of {declared}, the body the OpenAPI declares for "
        f"{dotted(endpoint.view_class)}.{endpoint.handler_name}, but the view "
        f"validates it with {validating}"
    )
    return replace(body, warning=(reason, validating))


def _writable(serializer: Any) -> frozenset[str] | None:
    """The names a (non-list) serializer writes; ``None`` if it is none."""
    if not is_serializer(serializer) or isinstance(
        serializer, serializers.ListSerializer
    ):
        return None
    fields: Any = host_call(getattr, serializer, "fields")
    return frozenset(name for name, f in fields.items() if not f.read_only)


def declared_body(endpoint: Endpoint) -> BodySchema | None:
    """The body ``request_bodies`` declares for the endpoint's handler: an
    object schema's properties as arguments, any other as ``body``. Raises
    :class:`ConfigurationError` for a schema that is not JSON Schema 2020-12."""
    bodies = viewset_option(endpoint.view_class, "request_bodies")
    if not isinstance(bodies, Mapping) or endpoint.handler_name not in bodies:
        return None
    schema = bodies[endpoint.handler_name]
    problem = schema_problem(schema)
    if problem is not None:
        cls = endpoint.view_class
        raise ConfigurationError(
            f"request_bodies[{endpoint.handler_name!r}] of {dotted(cls)} {problem}."
        )
    schema = copy.deepcopy(dict(schema))
    schema.pop("$schema", None)
    defs = schema.pop("$defs", None) or {}
    properties = schema.get("properties")
    if (
        schema.get("type") == "object"
        and isinstance(properties, Mapping)
        and set(schema) <= _FLAT
    ):
        required = tuple(r for r in schema.get("required", ()) if r in properties)
        return BodySchema(dict(properties), required, defs=defs)
    return BodySchema({"body": schema}, ("body",), argument="body", defs=defs)


def declared_problems(view_class: type[Any]) -> list[str]:
    """What is wrong with a view's ``request_bodies`` and ``query_parameters``.

    Each body is a JSON Schema 2020-12 object for a method of the view; each
    parameter a JSON Schema type name, a schema or an OpenAPI parameter.
    """
    view = dotted(view_class)
    bodies = viewset_option(view_class, "request_bodies")
    params = viewset_option(view_class, "query_parameters")
    found = [
        f"{key} of {view} must be a dict"
        for key, value in (("request_bodies", bodies), ("query_parameters", params))
        if value is not None and not isinstance(value, Mapping)
    ]
    schemas = []
    for name, schema in bodies.items() if isinstance(bodies, Mapping) else ():
        where = f"request_bodies[{name!r}] of {view}"
        if not callable(getattr(view_class, str(name), None)):
            found.append(f"{where} names no method of the view")
        schemas.append((where, schema))
    for name, spec in params.items() if isinstance(params, Mapping) else ():
        where = f"query_parameters[{name!r}] of {view}"
        if isinstance(spec, str | Mapping):
            schemas.append((where, query_parameter(name, spec)["schema"]))
        else:
            found.append(f"{where} must be a JSON Schema type name or a dict")
    for where, schema in schemas:
        problem = schema_problem(schema)
        if problem is not None:
            found.append(f"{where} {problem}")
    return found


def guessed_warnings(
    tool: str,
    endpoint: Endpoint,
    schema: Any,  # a schema.ToolSchema, above
) -> list[checks.CheckMessage]:
    """W009 (of a built schema): a body that is a guess (ADR 0030)."""
    warning = schema.body_warning if schema is not None else None
    if warning is None:
        return []
    reason, serializer = warning
    cls, handler = endpoint.view_class, endpoint.handler_name
    view = dotted(cls)
    message = (
        f"The tool {tool} {reason}. Keys beyond those fields reach the view "
        "unchecked, and the fields it names are checked by that serializer's "
        "rules."
    )
    hint = (
        f"Declare the body {handler} reads: FRISIAN_MCP['VIEWSET_OPTIONS']"
        f"[{view!r}]['request_bodies'][{handler!r}] = a JSON Schema (or "
        "mcp_request_bodies on the class), or @extend_schema(request=...) on "
        f"the action (request={serializer} if it reads those fields)."
    )
    return [checks.Warning(message, hint=hint, obj=view, id="frisian_mcp.W009")]


def declared_errors(views: Iterable[type[Any]]) -> list[checks.CheckMessage]:
    """E010: ``request_bodies`` and ``query_parameters`` that cannot be used."""
    return [
        checks.Error(
            f"{problem}.",
            hint="Declare a JSON Schema 2020-12 object per action method name "
            "(request_bodies) or query parameter (docs/settings.md).",
            obj=dotted(cls),
            id="frisian_mcp.E010",
        )
        for cls in sorted(views, key=lambda c: (c.__module__, c.__qualname__))
        for problem in declared_problems(cls)
    ]


def _body(view: Any, auto: AutoSchema, serializer: Any, cache: Bodies) -> BodySchema:
    if serializer is None:
        return BodySchema()
    if not is_serializer(serializer):
        raw = build_basic_type(serializer) if is_basic_type(serializer) else None
        raw = serializer if isinstance(serializer, dict) else raw
        if not raw:
            return BodySchema()
        schema = to_json_schema(raw, spectacular.components(auto))
        return BodySchema(properties={"body": schema}, argument="body")
    key = (view.__class__, type(serializer))
    if key not in cache:
        cache[key] = _map_serializer(serializer, auto)
    return cache[key]


def _map_serializer(serializer: Any, auto: AutoSchema) -> BodySchema:
    defs: dict[str, Any] = {}
    if isinstance(serializer, serializers.ListSerializer):
        # Items as one body each (related fields take every form).
        item = _map_serializer(host_call(force_instance, serializer.child), auto)
        items = {"type": "object", "properties": dict(item.properties)}
        if item.required:
            items["required"] = list(item.required)
        array = {"body": {"type": "array", "items": items}}
        return BodySchema(array, ("body",), item.relations, "body", item.defs)
    component = host_call(auto.resolve_serializer, serializer, "request")
    if component.schema is None:
        return BodySchema()
    schema = to_json_schema(component.schema, spectacular.components(auto), defs)
    found = host_call(lambda: list(serializer.fields.items()))
    fields = {n: f for n, f in found if not f.read_only}
    properties: dict[str, Any] = {}
    relations: dict[str, Relation] = {}
    files: list[str] = []
    for name, prop in (schema.get("properties") or {}).items():
        if prop.get("format") == "binary":
            files.append(name)  # file uploads cannot travel in a JSON body
            continue
        if name in fields:
            prop, relation = argument_schema(serializer, name, fields[name], prop)
            if relation is not None:
                relations[name] = relation
        properties[name] = prop
    known = (*properties, *files)
    required = tuple(r for r in schema.get("required", ()) if r in known)
    return BodySchema(properties, required, relations, defs=defs, files=tuple(files))


def _bulk_body(
    endpoint: Endpoint, view: Any, auto: AutoSchema, cache: Bodies
) -> BodySchema:
    """A bulk tool's list: each entry the ``id`` of a row and, for an update,
    the fields of the view's serializer (of a list one's items): every
    required one for PUT, none for PATCH. A delete's entries may be ids."""
    item = BodySchema()
    if endpoint.kind == Kind.BULK_UPDATE:
        serializer = spectacular.serializer(view, auto.get_request_serializer)
        item = _body(view, auto, serializer, cache)
        if item.argument is not None:  # a list body: its items' fields
            items = item.properties[item.argument].get("items") or {}
            required = tuple(items.get("required") or ())
            item = replace(item, properties=items.get("properties") or {})
            item = replace(item, required=required, argument=None)
        item = _optional(item) if endpoint.method == "PATCH" else item
    cls = type(view)
    model = getattr(getattr(cls, "queryset", None), "model", None)
    meta = getattr(getattr(cls, "serializer_class", None), "Meta", None)
    model = model or getattr(meta, "model", None)
    key = relation_schema(Relation("id", "pk", False, False, model), {})
    fields = {name: v for name, v in item.properties.items() if name != "id"}
    required = ("id", *(name for name in item.required if name != "id"))
    item = replace(item, properties={"id": key, **fields}, required=required)
    entry: dict[str, Any] = {"type": "object", "properties": dict(item.properties)}
    entry |= {"required": list(required), "additionalProperties": False}
    if fields:  # the id and a field to change (the empty-write guard's rule)
        entry["minProperties"] = 2
    ids = endpoint.kind == Kind.BULK_DELETE  # an id alone will do
    listed = {"anyOf": [*key.get("anyOf", [key]), entry]} if ids else entry
    argument = BULK_ARGUMENTS[endpoint.kind]
    array = {argument: {"type": "array", "items": listed, "minItems": 1}}
    return BodySchema(
        array, (argument,), item.relations, argument, item.defs, item=item
    )


def _optional(body: BodySchema) -> BodySchema:
    """``body`` with no field required, at any depth: "may be left out",
    not "a reference may be incomplete" (related fields keep their rules)."""
    properties = {
        k: v if k in body.relations else drop_required(v)
        for k, v in body.properties.items()
    }
    defs = {k: drop_required(v) for k, v in body.defs.items()}
    return replace(body, properties=properties, required=(), defs=defs)


def _allocates(endpoint: Endpoint, auto: AutoSchema) -> bool:
    """Whether a POST action under a row takes its model's serializer as body.

    Allocators (``POST /prefixes/{id}/available-prefixes/``) declare the
    model's full serializer and fill in from the row in the path what they
    allocate (the prefix, the VLAN id, the parent), so the caller is asked
    for none of its fields as required.
    """
    if endpoint.kind != Kind.ACTION or endpoint.method != "POST":
        return False
    body = host_call(lambda: force_instance(auto.get_request_serializer()))
    body = getattr(body, "child", body)
    return bool(endpoint.path_variables) and isinstance(body, ModelSerializer)
