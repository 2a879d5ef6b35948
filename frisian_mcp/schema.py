"""Tool schemas: one endpoint's arguments and record, through drf-spectacular.

The view's ``AutoSchema`` (:mod:`~frisian_mcp.spectacular`) maps the
parameters, the request body and the record a stock action returns.
Failures of the host's code are :class:`SchemaProblem`\\ s (ADR 0010).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

from drf_spectacular.drainage import GENERATOR_STATS
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.plumbing import (
    build_basic_type,
    force_instance,
    is_basic_type,
    is_serializer,
)
from drf_spectacular.settings import patched_settings
from jsonschema import Draft202012Validator
from rest_framework import serializers

from frisian_mcp import arguments, spectacular
from frisian_mcp.discovery import declared_query_parameters
from frisian_mcp.exceptions import HOST_ERRORS
from frisian_mcp.fastcheck import Check, fast_check
from frisian_mcp.jsonschema import drop_required, to_json_schema
from frisian_mcp.relations import Relation, argument_schema, record_schema
from frisian_mcp.spectacular import make_view
from frisian_mcp.types import ACTIONS, PATH_VARIABLE, Endpoint, Kind

__all__ = ["BodySchema", "SchemaBuilder", "SchemaProblem", "ToolSchema"]


logger = logging.getLogger("frisian_mcp")


@dataclass(frozen=True)
class BodySchema:
    """A request body as top-level properties, or as one ``argument``."""

    properties: Mapping[str, Any] = field(default_factory=dict)
    required: tuple[str, ...] = ()
    relations: Mapping[str, Relation] = field(default_factory=dict)
    argument: str | None = None
    defs: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ToolSchema:
    """What the registry knows about one tool's arguments.

    ``path_arguments``/``query_arguments`` map argument names to URL
    variables and query parameters; ``comma_separated`` ones are sent joined.
    """

    input_schema: dict[str, Any]
    description: str
    summary: str
    path_arguments: Mapping[str, str]
    query_arguments: Mapping[str, str]
    body_fields: tuple[str, ...]
    body_argument: str | None
    relations: Mapping[str, Relation]
    filter_parameters: Mapping[str, Any]
    protocol_arguments: tuple[str, ...]
    comma_separated: frozenset[str] = frozenset()
    record_fields: tuple[str, ...] = ()
    output_schema: dict[str, Any] | None = None
    growing_filters: bool = False

    @cached_property
    def declared(self) -> frozenset[str]:
        """Every top-level argument name the inputSchema declares."""
        return frozenset(self.input_schema.get("properties", {}))

    @cached_property
    def validator(self) -> Draft202012Validator:
        """A validator of the inputSchema whose root is open.

        The guards explain undeclared arguments better than jsonschema does.
        """
        root = dict(self.input_schema)
        root.pop("additionalProperties", None)
        return Draft202012Validator(root)

    @cached_property
    def fast_check(self) -> Check | None:
        """:func:`fast_check` of the validator's schema (``None``: none)."""
        return fast_check(self.validator.schema)


@dataclass(frozen=True)
class SchemaProblem:
    """What failed while a tool's schema was built; ``fatal`` left it out."""

    view: str
    action: str
    error: str
    detail: str
    fatal: bool


class SchemaBuilder:
    """Builds :class:`ToolSchema` objects and collects what went wrong."""

    def __init__(self) -> None:
        self.generator = SchemaGenerator()
        self.problems: list[SchemaProblem] = []
        self._bodies: dict[tuple[type[Any], type[Any]], BodySchema] = {}
        self._records: dict[tuple[type[Any], type[Any]], dict[str, Any] | None] = {}

    def build(self, endpoint: Endpoint, path_prefix: str) -> ToolSchema | None:
        """The schema of ``endpoint``'s tool; ``None`` if excluded or broken."""
        patches = {"COMPONENT_SPLIT_REQUEST": True}
        with GENERATOR_STATS.silence(), patched_settings(patches):
            try:
                view = make_view(endpoint, self.generator)
                auto = spectacular.inspector(
                    view, endpoint, self.generator, path_prefix
                )
                if auto.is_excluded():
                    return None
                return self._build(endpoint, view, auto)
            except HOST_ERRORS as exc:
                self.warn(endpoint, exc, fatal=True)
                return None
            finally:
                self.generator.schemas_storage.clear()

    def warn(self, endpoint: Endpoint, exc: Exception, *, fatal: bool) -> None:
        """Record and log a failure of the host's code for ``endpoint``."""
        cls = endpoint.view_class
        view, error = f"{cls.__module__}.{cls.__qualname__}", type(exc).__name__
        problem = SchemaProblem(view, endpoint.action, error, str(exc)[:200], fatal)
        self.problems.append(problem)
        outcome = "left out" if fatal else "degraded the schema of"
        logger.warning(
            "frisian_mcp: %s %s of %s (%s): %s: %s",
            *(outcome, endpoint.action, view, endpoint.path, error, problem.detail),
        )

    def _build(self, endpoint: Endpoint, view: Any, auto: AutoSchema) -> ToolSchema:
        body = self._request_body(endpoint, view, auto)
        defs = dict(body.defs)
        url = _url_arguments(endpoint, auto, body, defs)
        properties = {**url.properties, **body.properties}
        required = [*url.required, *body.required]
        record = self._record(endpoint, view, auto)
        record_fields = tuple((record or {}).get("properties") or ())
        growing = endpoint.kind == Kind.LIST and self._grows(endpoint, view)
        paged = spectacular.pages(endpoint, view, auto)
        protocol = arguments.declared_for(
            endpoint.kind, url.filters, record_fields, growing=growing, paged=paged
        )
        for name, schema in protocol.items():
            properties.setdefault(name, schema)
        input_schema: dict[str, Any] = {"type": "object", "properties": properties}
        input_schema["additionalProperties"] = False
        if required:
            input_schema["required"] = list(dict.fromkeys(required))
        if defs:
            input_schema["$defs"] = defs
        return ToolSchema(
            input_schema=input_schema,
            description=str(auto.get_description() or "").strip(),
            summary=str(auto.get_summary() or "").strip(),
            path_arguments=url.path,
            query_arguments=url.query,
            body_fields=tuple(body.properties),
            body_argument=body.argument,
            relations=dict(body.relations),
            filter_parameters=url.filters,
            protocol_arguments=tuple(protocol),
            comma_separated=frozenset(url.joined),
            record_fields=record_fields,
            output_schema=output_schema(endpoint, record),
            growing_filters=growing,
        )

    def _grows(self, endpoint: Endpoint, view: Any) -> bool:
        """Whether a filter set of the view adds filters per instance."""
        try:
            found = spectacular.filter_sets(view)
        except HOST_ERRORS as exc:
            self.warn(endpoint, exc, fatal=False)
            return False
        return any(spectacular.grows_filters(cls) for _, cls in found)

    def _request_body(
        self, endpoint: Endpoint, view: Any, auto: AutoSchema
    ) -> BodySchema:
        if endpoint.method not in ("POST", "PUT", "PATCH"):
            return BodySchema()
        body = self._body(view, auto)
        partial = endpoint.method == "PATCH" and body.argument is None
        if partial or spectacular.allocates(endpoint, auto):
            # "May be left out", not "a reference may be incomplete": related
            # fields keep their rules. An allocator fills in what it allocates.
            props = {
                k: v if k in body.relations else drop_required(v)
                for k, v in body.properties.items()
            }
            defs = {k: drop_required(v) for k, v in body.defs.items()}
            kept = body.required if body.argument else ()  # a list body is sent
            return replace(body, properties=props, required=kept, defs=defs)
        if (
            endpoint.kind == Kind.ACTION
            and body.required
            and not spectacular.declared_request(auto)
        ):
            # An inferred body the action may not even read.
            return replace(body, required=())
        return body

    def _body(self, view: Any, auto: AutoSchema) -> BodySchema:
        serializer = spectacular.serializer(view, auto.get_request_serializer)
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
        if key not in self._bodies:
            self._bodies[key] = self._map_serializer(serializer, auto)
        return self._bodies[key]

    def _map_serializer(self, serializer: Any, auto: AutoSchema) -> BodySchema:
        defs: dict[str, Any] = {}
        if isinstance(serializer, serializers.ListSerializer):
            # Items as one body each (related fields take every form).
            item = self._map_serializer(force_instance(serializer.child), auto)
            items = {"type": "object", "properties": dict(item.properties)}
            if item.required:
                items["required"] = list(item.required)
            array = {"body": {"type": "array", "items": items}}
            return BodySchema(array, ("body",), item.relations, "body", item.defs)
        component = auto.resolve_serializer(serializer, "request")
        if component.schema is None:
            return BodySchema()
        schema = to_json_schema(component.schema, spectacular.components(auto), defs)
        fields = {n: f for n, f in serializer.fields.items() if not f.read_only}
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

    def _record(
        self, endpoint: Endpoint, view: Any, auto: AutoSchema
    ) -> dict[str, Any] | None:
        """The shape of one record a stock action returns, if it has one."""
        if endpoint.kind in (Kind.DELETE, Kind.ACTION):
            return None
        try:
            serializer = spectacular.serializer(view, auto.get_response_serializers)
            if not is_serializer(serializer) or isinstance(
                serializer, serializers.ListSerializer
            ):
                return None
            key = (view.__class__, type(serializer))
            if key in self._records:
                return self._records[key]
            component = auto.resolve_serializer(serializer, "response")
            if component.schema is None:
                return None
            converted = to_json_schema(component.schema, spectacular.components(auto))
            fields: Any = serializer.fields
            readable = {n: f for n, f in fields.items() if not f.write_only}
        except HOST_ERRORS as exc:
            self.warn(endpoint, exc, fatal=False)
            return None
        properties = {
            name: record_schema(readable.get(name), prop)
            for name, prop in (converted.get("properties") or {}).items()
        }
        record = self._records[key] = {"type": "object", "properties": properties}
        return record


@dataclass
class _URLArguments:
    """The arguments a tool takes from its URL: path variables and query."""

    properties: dict[str, Any] = field(default_factory=dict)
    required: list[str] = field(default_factory=list)
    path: dict[str, str] = field(default_factory=dict)
    query: dict[str, str] = field(default_factory=dict)
    filters: dict[str, Any] = field(default_factory=dict)
    joined: set[str] = field(default_factory=set)


def _url_arguments(
    endpoint: Endpoint, auto: AutoSchema, body: BodySchema, defs: dict[str, Any]
) -> _URLArguments:
    """Path variables and query parameters; a list tool's query are filters."""
    url, components = _URLArguments(), spectacular.components(auto)
    found = spectacular.parameters(auto)
    known = {p.get("name") for p in found}
    found += [p for p in declared_query_parameters(endpoint) if p["name"] not in known]
    in_path = {p.get("name"): p for p in found if p.get("in") == "path"}
    # spectacular renames {pk} to the model's pk name.
    variables = PATH_VARIABLE.findall(auto.path)
    for name, kwarg in zip(variables, endpoint.path_variables, strict=False):
        argument = f"lookup_{name}" if name in body.properties else name
        url.path[argument] = kwarg
        schema = _parameter_schema(in_path.get(name), components, defs)
        url.properties[argument] = schema or {"type": "string"}
        url.required.append(argument)
    paging = spectacular.pagination_parameters(auto)
    for parameter in found:
        name = str(parameter.get("name"))
        if parameter.get("in") != "query" or name in paging:
            continue
        schema = _parameter_schema(parameter, components, defs) or {}
        if parameter.get("explode") is False:
            url.joined.add(name)
        if endpoint.kind == Kind.LIST:
            url.filters[name] = schema
            continue
        taken = name in url.properties or name in body.properties
        argument = f"query_{name}" if taken else name
        url.query[argument] = name
        url.properties[argument] = schema
        if parameter.get("required"):
            url.required.append(argument)
    return url


def _parameter_schema(
    parameter: Mapping[str, Any] | None,
    components: Mapping[str, Any],
    defs: dict[str, Any],
) -> dict[str, Any] | None:
    if parameter is None:
        return None
    schema = to_json_schema(parameter.get("schema") or {}, components, defs)
    if parameter.get("description") and "description" not in schema:
        schema["description"] = str(parameter["description"])
    return schema


def output_schema(
    endpoint: Endpoint, record: dict[str, Any] | None
) -> dict[str, Any] | None:
    """The outputSchema of a tool whose action is DRF's stock one.

    Beside its primary shape: a ``help`` document and, for writes, a
    ``validation`` report (``mode: "validate"``).
    """
    action = ACTIONS.get(endpoint.action)
    cls = endpoint.view_class
    if action is None or not issubclass(cls, action.mixin):
        return None
    # partial_update is stock only when the update it calls is.
    method = "update" if endpoint.action == "partial_update" else endpoint.action
    kind = action.kind
    if getattr(cls, method) is not getattr(action.mixin, method) or (
        kind != Kind.DELETE and record is None
    ):
        return None
    records = {"type": "array", "items": record}
    if kind == Kind.LIST:
        counts = {key: {"type": "integer"} for key in ("count", "page", "page_size")}
        page = {"results": records, **counts, "has_more": {"type": "boolean"}}
        page["next_token"] = {"type": "string"}
        shapes = [_obj(page, ["results", "count", "page", "page_size", "has_more"])]
    elif kind == Kind.DELETE:
        shapes = [_obj({"deleted": {"type": "boolean"}}, ["deleted"])]
    else:
        shapes = [record or {}]
    if kind == Kind.CREATE:
        bulk = {"created": {"type": "integer"}, "results": records}
        shapes.append(_obj({**bulk, "ids": {"type": "array"}}, ["created"]))
    shapes.append(_obj({"help": {"type": "object"}}, ["help"]))
    if kind in (Kind.CREATE, Kind.UPDATE):
        shapes.append(_obj({"validation": {"type": "object"}}, ["validation"]))
    return {"type": "object", "anyOf": shapes}


def _obj(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required}
