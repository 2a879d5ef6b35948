"""Request bodies: the serializer drf-spectacular finds, or the operator's.

``request_bodies`` (``VIEWSET_OPTIONS`` or ``mcp_request_bodies``) declares
an action's JSON body where the host's OpenAPI is wrong or guessed; a body
spectacular guessed from the viewset's ``serializer_class`` is marked, so a
check can name it (W009).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

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
from frisian_mcp.relations import Relation
from frisian_mcp.types import Endpoint, Kind, dotted

if TYPE_CHECKING:
    from frisian_mcp.schema import ToolSchema

__all__ = [
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

    ``guessed``: the ``serializer_class`` drf-spectacular guessed the body
    of a custom action from, the action declaring none.
    """

    properties: Mapping[str, Any] = field(default_factory=dict)
    required: tuple[str, ...] = ()
    relations: Mapping[str, Relation] = field(default_factory=dict)
    argument: str | None = None
    defs: Mapping[str, Any] = field(default_factory=dict)
    guessed: str | None = None


#: Serializer bodies by (view class, serializer class), mapped once.
Bodies = dict[tuple[type[Any], type[Any]], BodySchema]


def request_body(
    endpoint: Endpoint, view: Any, auto: AutoSchema, cache: Bodies
) -> BodySchema:
    """The body ``endpoint``'s tool sends: declared, or the serializer's."""
    if endpoint.method not in ("POST", "PUT", "PATCH"):
        return BodySchema()
    declared = declared_body(endpoint)
    if declared is not None:
        return declared
    serializer = spectacular.serializer(view, auto.get_request_serializer)
    body = _body(view, auto, serializer, cache)
    partial = endpoint.method == "PATCH" and body.argument is None
    if partial or _allocates(endpoint, auto):
        # "May be left out", not "a reference may be incomplete": related
        # fields keep their rules. An allocator fills in what it allocates
        # (ADR 0018).
        props = {
            k: v if k in body.relations else drop_required(v)
            for k, v in body.properties.items()
        }
        defs = {k: drop_required(v) for k, v in body.defs.items()}
        kept = body.required if body.argument else ()  # a list body is sent
        body = replace(body, properties=props, required=kept, defs=defs)
    if endpoint.kind != Kind.ACTION or not is_serializer(serializer):
        return body
    if not spectacular.declared_request(auto):
        # An inferred body the action may not even read.
        body = replace(body, required=())
    own = getattr(type(view), "serializer_class", None)
    if type(serializer) is own and spectacular.guessed_request(auto):
        body = replace(body, guessed=own.__qualname__)
    return body


def declared_body(endpoint: Endpoint) -> BodySchema | None:
    """The body ``request_bodies`` declares for the endpoint's handler.

    An object schema's properties become the tool's arguments; any other
    schema is the one argument ``body``.

    Raises:
        ConfigurationError: the declared schema is not JSON Schema 2020-12.
    """
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
    tool: str, endpoint: Endpoint, schema: ToolSchema | None
) -> list[checks.CheckMessage]:
    """W009 (of a built schema): an action's body guessed from the viewset's."""
    guessed = schema.guessed_body if schema is not None else None
    if guessed is None:
        return []
    cls, handler = endpoint.view_class, endpoint.handler_name
    view = dotted(cls)
    message = (
        f"The tool {tool} takes the fields of {guessed}: drf-spectacular "
        f"guessed the body of {view}.{handler} from the viewset's "
        "serializer_class, so keys the action reads beyond them are refused."
    )
    hint = (
        f"Declare the body {handler} reads: FRISIAN_MCP['VIEWSET_OPTIONS']"
        f"[{view!r}]['request_bodies'][{handler!r}] = a JSON Schema (or "
        "mcp_request_bodies on the class), or @extend_schema(request=...) on "
        f"the action (request={guessed} if it reads those fields)."
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
    for name, prop in (schema.get("properties") or {}).items():
        if prop.get("format") == "binary":
            continue  # file uploads cannot travel in a JSON body
        if name in fields:
            prop, relation = argument_schema(serializer, name, fields[name], prop)
            if relation is not None:
                relations[name] = relation
        properties[name] = prop
    required = tuple(r for r in schema.get("required", ()) if r in properties)
    return BodySchema(properties, required, relations, defs=defs)


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
