"""Tool schemas: drive drf-spectacular for one endpoint (ADR 0007).

A throwaway view is made as spectacular makes it (so ``@extend_schema``,
versioning and ``swagger_fake_view`` work), with DRF's base serializer
context and a memoized ``get_queryset``. Spectacular maps the path and query
parameters, the request body and the record a stock action returns. What the
host's code fails to give is recorded as a :class:`SchemaProblem` (shown by
``manage.py check``), never swallowed.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

from django.core.exceptions import FieldDoesNotExist
from drf_spectacular.drainage import GENERATOR_STATS, has_override
from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.plumbing import (
    ComponentRegistry,
    build_basic_type,
    force_instance,
    is_basic_type,
    is_serializer,
    is_versioning_supported,
    modify_for_versioning,
)
from drf_spectacular.settings import patched_settings, spectacular_settings
from jsonschema import Draft202012Validator
from rest_framework import serializers
from rest_framework.versioning import NamespaceVersioning

from frisian_mcp import arguments
from frisian_mcp.conf import mcp_settings
from frisian_mcp.exceptions import HOST_ERRORS, SchemaError
from frisian_mcp.jsonschema import drop_required, map_subschemas, plain, to_json_schema
from frisian_mcp.relations import Relation, describe_relation, relation_schema
from frisian_mcp.types import ACTIONS, PATH_VARIABLE, Endpoint, Kind

__all__ = ["BodySchema", "SchemaBuilder", "SchemaProblem", "ToolSchema", "make_view"]

logger = logging.getLogger("frisian_mcp")

# Keywords that describe structure; constraints stay out of output schemas,
# where stored data that predates a constraint would fail a correct answer.
_STRUCTURAL = frozenset(
    {"type", "properties", "items", "anyOf", "description", "title", "format"}
    | {"additionalProperties", "$ref", "$defs"}
)
_NO_DEFAULT: Any = object()


@dataclass(frozen=True)
class BodySchema:
    """A request body flattened to top-level properties.

    ``argument`` names the one argument carrying a body that cannot be
    flattened (a list, a free-form object).
    """

    properties: Mapping[str, Any] = field(default_factory=dict)
    required: tuple[str, ...] = ()
    relations: Mapping[str, Relation] = field(default_factory=dict)
    argument: str | None = None
    defs: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ToolSchema:
    """Everything the registry needs to know about one tool's arguments.

    ``path_arguments``/``query_arguments`` map argument names to URL
    variables and query parameters; ``filter_parameters`` are a list tool's
    filter keys; ``comma_separated`` query parameters are sent joined.
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

    @cached_property
    def declared(self) -> frozenset[str]:
        """Every top-level argument name the inputSchema declares."""
        return frozenset(self.input_schema.get("properties", {}))

    @cached_property
    def validator(self) -> Draft202012Validator:
        """A validator of the inputSchema with the root left open.

        Undeclared arguments are the guards' to explain, far better than
        "additional properties are not allowed" would.
        """
        root = {
            k: v for k, v in self.input_schema.items() if k != "additionalProperties"
        }
        return Draft202012Validator(root)


@dataclass(frozen=True)
class SchemaProblem:
    """What failed while a tool's schema was built; ``fatal`` left it out."""

    view: str
    action: str
    error: str
    detail: str
    fatal: bool


def make_view(endpoint: Endpoint, generator: SchemaGenerator | None = None) -> Any:
    """A throwaway view of ``endpoint`` as drf-spectacular makes it.

    Its mock request carries the endpoint's version (path, namespace or
    Accept header), its serializer context is DRF's base one and
    ``get_queryset`` is memoized.
    """
    generator = generator or SchemaGenerator()
    view: Any = generator.create_view(endpoint.callback, endpoint.method)
    view.kwargs = dict(endpoint.fixed_kwargs)
    view.request = spectacular_settings.GET_MOCK_REQUEST(
        endpoint.method, endpoint.path, view, None
    )
    versioning = view.versioning_class
    version = _version_of(endpoint, versioning) if versioning else None
    if version:
        if is_versioning_supported(versioning) and not issubclass(
            versioning, NamespaceVersioning
        ):
            # Sets what the scheme reads: kwargs, or the accepted media type.
            modify_for_versioning([], endpoint.method, endpoint.path, view, version)
        view.request.version = version
        view.request.versioning_scheme = versioning()
    _lighten(view)
    return view


def excluded(endpoint: Endpoint) -> bool:
    """Whether the view leaves ``endpoint`` out of its schema (``exclude=True``).

    Only views whose schema class overrides ``is_excluded`` (as
    ``@extend_schema`` does) are set up to ask.
    """
    cls = endpoint.view_class
    handler = getattr(cls, endpoint.handler_name, None)
    candidates = (
        type(inspect.getattr_static(cls, "schema", None)),
        (getattr(handler, "kwargs", None) or {}).get("schema"),
    )
    if not any(
        isinstance(c, type) and getattr(c, "is_excluded", None) not in _PLAIN_EXCLUSION
        for c in candidates
    ):
        return False
    generator = SchemaGenerator()
    with GENERATOR_STATS.silence():
        try:
            view = make_view(endpoint, generator)
            return bool(_inspector(view, endpoint, generator, "^/").is_excluded())
        except HOST_ERRORS:
            return False  # building its schema reports the failure


def _version_of(endpoint: Endpoint, versioning: Any) -> str | None:
    """The API version a request to ``endpoint`` carries, as DRF would find it."""
    if issubclass(versioning, NamespaceVersioning):
        scheme = versioning()
        found = [v for v in endpoint.namespace.split(":") if v]
        return next(
            (v for v in found if scheme.is_allowed_version(v)),
            versioning.default_version,
        )
    param = getattr(versioning, "version_param", "version")
    return endpoint.fixed_kwargs.get(param) or versioning.default_version


_PLAIN_EXCLUSION = (None, AutoSchema.is_excluded)


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
                auto = _inspector(view, endpoint, self.generator, path_prefix)
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
        problem = SchemaProblem(
            view=f"{cls.__module__}.{cls.__qualname__}",
            action=endpoint.action,
            error=type(exc).__name__,
            detail=str(exc)[:200],
            fatal=fatal,
        )
        self.problems.append(problem)
        logger.warning(
            "frisian_mcp: %s %s of %s (%s): %s: %s",
            "left out" if fatal else "degraded the schema of",
            problem.action,
            problem.view,
            endpoint.path,
            problem.error,
            problem.detail,
        )

    def _build(self, endpoint: Endpoint, view: Any, auto: AutoSchema) -> ToolSchema:
        kind = endpoint.kind
        # spectacular renames {pk} to the model's pk name.
        path_arguments = dict(
            zip(PATH_VARIABLE.findall(auto.path), endpoint.path_variables, strict=False)
        )
        parameters = [p for p in auto._get_parameters() if isinstance(p, dict)]
        paging = set()
        if kind == Kind.LIST:
            paging = {p.get("name") for p in auto._get_pagination_parameters()}
        body = BodySchema()
        if endpoint.method in ("POST", "PUT", "PATCH"):
            body = self._body(view, auto)
        if endpoint.method == "PATCH" and body.argument is None:
            # Related fields keep their rules: partial means "may be left
            # out", not "a reference may be incomplete".
            props = {
                k: v if k in body.relations else drop_required(v)
                for k, v in body.properties.items()
            }
            defs = {k: drop_required(v) for k, v in body.defs.items()}
            body = replace(body, properties=props, required=(), defs=defs)
        elif kind == Kind.ACTION and body.required and not _declared_request(auto):
            # An inferred body the action may not even read: requiring its
            # fields would refuse calls the server accepts.
            body = replace(body, required=())
        components = _components(auto)
        defs = dict(body.defs)
        properties: dict[str, Any] = {}
        required: list[str] = []
        renamed: dict[str, str] = {}
        for name, kwarg in path_arguments.items():
            argument = f"lookup_{name}" if name in body.properties else name
            renamed[argument] = kwarg
            found = _parameter(parameters, name, "path", components, defs)
            properties[argument] = found or {"type": "string"}
            required.append(argument)
        filters: dict[str, Any] = {}
        query: dict[str, str] = {}
        joined: set[str] = set()
        for parameter in parameters:
            name = str(parameter.get("name"))
            if parameter.get("in") != "query" or name in paging:
                continue
            schema = _parameter(parameters, name, "query", components, defs) or {}
            if parameter.get("explode") is False:
                joined.add(name)
            if kind == Kind.LIST:
                filters[name] = schema
                continue
            taken = name in properties or name in body.properties
            argument = f"query_{name}" if taken else name
            query[argument] = name
            properties[argument] = schema
            if parameter.get("required"):
                required.append(argument)
        properties.update(body.properties)
        required.extend(body.required)
        record = self._record(endpoint, view, auto)
        record_fields = tuple((record or {}).get("properties") or ())
        protocol = arguments.declared_for(kind, filters, record_fields)
        for name, schema in protocol.items():
            properties.setdefault(name, schema)
        input_schema: dict[str, Any] = {
            "type": "object",
            "properties": properties,
            "additionalProperties": False,
        }
        if required:
            input_schema["required"] = list(dict.fromkeys(required))
        if defs:
            input_schema["$defs"] = defs
        return ToolSchema(
            input_schema=input_schema,
            description=str(auto.get_description() or "").strip(),
            summary=str(auto.get_summary() or "").strip(),
            path_arguments=renamed,
            query_arguments=query,
            body_fields=tuple(body.properties),
            body_argument=body.argument,
            relations=dict(body.relations),
            filter_parameters=filters,
            protocol_arguments=tuple(protocol),
            comma_separated=frozenset(joined),
            record_fields=record_fields,
            output_schema=output_schema(endpoint, record),
        )

    def _body(self, view: Any, auto: AutoSchema) -> BodySchema:
        serializer = _with_own_context(view, auto.get_request_serializer)
        if serializer is None:
            return BodySchema()
        if not is_serializer(serializer):
            raw = (
                serializer
                if isinstance(serializer, dict)
                else build_basic_type(serializer)
                if is_basic_type(serializer)
                else None
            )
            if not raw:
                return BodySchema()
            schema = to_json_schema(raw, _components(auto))
            return BodySchema(properties={"body": schema}, argument="body")
        key = (view.__class__, type(serializer))
        if key not in self._bodies:
            self._bodies[key] = self._map_serializer(serializer, auto)
        return self._bodies[key]

    def _map_serializer(self, serializer: Any, auto: AutoSchema) -> BodySchema:
        defs: dict[str, Any] = {}
        if isinstance(serializer, serializers.ListSerializer):
            child = force_instance(serializer.child)
            component = auto.resolve_serializer(child, "request")
            items = to_json_schema(component.ref or {}, _components(auto), defs)
            return BodySchema(
                properties={"body": {"type": "array", "items": items}},
                required=("body",),
                argument="body",
                defs=defs,
            )
        component = auto.resolve_serializer(serializer, "request")
        if component.schema is None:
            return BodySchema()
        schema = to_json_schema(component.schema, _components(auto), defs)
        fields = {n: f for n, f in serializer.fields.items() if not f.read_only}
        properties: dict[str, Any] = {}
        relations: dict[str, Relation] = {}
        for name, prop in (schema.get("properties") or {}).items():
            if prop.get("format") == "binary":
                continue  # file uploads cannot travel in a JSON body
            field_ = fields.get(name)
            if field_ is None:
                properties[name] = prop
                continue
            if _is_unmapped(field_):
                prop = _unmapped(serializer, name, prop)
            relation = describe_relation(name, field_)
            if relation is not None and not _has_explicit_schema(field_):
                relations[name] = relation
                prop = relation_schema(relation, prop)
            else:
                _seal_nested(prop, field_)
            default = _model_default(serializer, field_)
            if default is not _NO_DEFAULT and "default" not in prop:
                prop["default"] = default
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
            serializer = _with_own_context(view, auto.get_response_serializers)
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
            converted = to_json_schema(component.schema, _components(auto))
            fields: Any = serializer.fields
            readable = {n: f for n, f in fields.items() if not f.write_only}
        except HOST_ERRORS as exc:
            self.warn(endpoint, exc, fatal=False)
            return None
        properties = {}
        for name, prop in (converted.get("properties") or {}).items():
            field_ = readable.get(name)
            untyped = field_ is not None and (
                _is_unmapped(field_) or _untyped_method(field_)
            )
            if untyped:
                prop = {k: v for k, v in prop.items() if k == "description"}
            properties[name] = _structural(prop)
        record = self._records[key] = {"type": "object", "properties": properties}
        return record


def output_schema(
    endpoint: Endpoint, record: dict[str, Any] | None
) -> dict[str, Any] | None:
    """The outputSchema of a tool whose action is DRF's stock one.

    Its primary shape is listed beside the shapes every tool may return: a
    ``help`` document and, for writes, a ``validation`` report.
    """
    action = ACTIONS.get(endpoint.action)
    cls = endpoint.view_class
    if action is None or not issubclass(cls, action.mixin):
        return None
    # partial_update is stock only when the update it calls is.
    method = "update" if endpoint.action == "partial_update" else endpoint.action
    if getattr(cls, method) is not getattr(action.mixin, method):
        return None
    kind = action.kind
    if kind != Kind.DELETE and record is None:
        return None
    shapes = [_obj({"help": {"type": "object"}}, ["help"])]
    if kind == Kind.LIST:
        page = {
            "results": {"type": "array", "items": record},
            **{key: {"type": "integer"} for key in ("count", "page", "page_size")},
            "has_more": {"type": "boolean"},
            "next_token": {"type": "string"},
        }
        shapes.insert(
            0, _obj(page, ["results", "count", "page", "page_size", "has_more"])
        )
    elif kind == Kind.DELETE:
        shapes.insert(0, _obj({"deleted": {"type": "boolean"}}, ["deleted"]))
    else:
        shapes.insert(0, record or {})
    if kind == Kind.CREATE:
        bulk = {
            "created": {"type": "integer"},
            "results": {"type": "array", "items": record},
            "ids": {"type": "array"},
        }
        shapes.insert(1, _obj(bulk, ["created"]))
    if kind in (Kind.CREATE, Kind.UPDATE):
        shapes.append(_obj({"validation": {"type": "object"}}, ["validation"]))
    return {"type": "object", "anyOf": shapes}


def _obj(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required}


def _inspector(
    view: Any, endpoint: Endpoint, generator: SchemaGenerator, path_prefix: str
) -> AutoSchema:
    auto = view.schema
    if not isinstance(auto, AutoSchema):
        # A project whose DEFAULT_SCHEMA_CLASS is not spectacular's.
        auto = view.schema = AutoSchema()
    auto.registry = ComponentRegistry()
    auto.path = generator.coerce_path(endpoint.path, endpoint.method, view)
    auto.path_regex = endpoint.path_regex
    auto.path_prefix = path_prefix
    auto.method = endpoint.method
    return auto


def _structural(schema: Any) -> Any:
    if not isinstance(schema, Mapping):
        return schema
    kept = {k: v for k, v in schema.items() if k in _STRUCTURAL}
    return map_subschemas(kept, _structural)


def _untyped_method(field_: Any) -> bool:
    """A SerializerMethodField whose method declares no return type."""
    if not isinstance(field_, serializers.SerializerMethodField):
        return False
    if _has_explicit_schema(field_):
        return False
    method = getattr(field_.parent, field_.method_name or "", None)
    return "return" not in getattr(method, "__annotations__", {})


def _declared_request(auto: AutoSchema) -> bool:
    """Whether ``@extend_schema(request=...)`` names the action's body."""
    if auto.__class__.get_request_serializer is AutoSchema.get_request_serializer:
        return False
    declared = force_instance(auto.get_request_serializer())
    inferred = force_instance(auto._get_serializer())
    return type(declared) is not type(inferred)


def _lighten(view: Any) -> None:
    """Give a throwaway view DRF's base context and a memoized queryset."""
    own = getattr(view, "get_serializer_context", None)
    if own is not None:
        view.frisian_own_context = own
        view.get_serializer_context = lambda: {
            "request": view.request,
            "format": None,
            "view": view,
        }
    get_queryset = getattr(view, "get_queryset", None)
    if callable(get_queryset):
        memo: list[Any] = []

        def memoized() -> Any:
            if not memo:
                memo.append(get_queryset())
            return memo[0]

        view.get_queryset = memoized


def _with_own_context(view: Any, build: Callable[[], Any]) -> Any:
    """``build()``; if the base context is not enough, with the view's own."""
    try:
        return force_instance(build())
    except HOST_ERRORS:
        own = getattr(view, "frisian_own_context", None)
        if own is None:
            raise
        view.get_serializer_context = own
        return force_instance(build())


def _components(auto: AutoSchema) -> dict[str, Any]:
    built = auto.registry.build({}).get("schemas", {})
    return {name: schema for name, schema in built.items() if schema is not None}


def _is_unmapped(field_: Any) -> bool:
    """A project field subclassing ``Field`` directly with no declared schema."""
    builtin = next(
        (c for c in type(field_).__mro__ if c.__module__.startswith("rest_framework.")),
        None,
    )
    return builtin is serializers.Field and not _has_explicit_schema(field_)


def _unmapped(serializer: Any, name: str, schema: dict[str, Any]) -> dict[str, Any]:
    policy = mcp_settings.UNMAPPED_FIELD_POLICY.upper()
    where = f"{type(serializer).__name__}.{name}"
    if policy == "RAISE":
        raise SchemaError(
            f"Field {where} has no JSON Schema mapping. Decorate its class with "
            "@extend_schema_field(...) or set FRISIAN_MCP['UNMAPPED_FIELD_POLICY']."
        )
    if policy == "WARN":
        logger.warning(
            "frisian_mcp: field %s has no JSON Schema mapping; accepting any JSON "
            "value for it. Decorate its class with @extend_schema_field(...).",
            where,
        )
    note = "Any JSON value (the field declares no schema)."
    result = {k: v for k, v in schema.items() if k == "title"}
    description = schema.get("description")
    result["description"] = f"{description} {note}" if description else note
    return result


def _model_default(serializer: Any, field_: Any) -> Any:
    """The model field's constant default, when DRF made the field optional."""
    model = getattr(getattr(serializer, "Meta", None), "model", None)
    source = getattr(field_, "source", None)
    if model is None or field_.required or not source or "." in source or source == "*":
        return _NO_DEFAULT
    try:
        model_field = model._meta.get_field(source)
    except FieldDoesNotExist:
        return _NO_DEFAULT
    default = getattr(model_field, "default", _NO_DEFAULT)
    has_default = getattr(model_field, "has_default", lambda: False)()
    if not has_default or callable(default):
        return _NO_DEFAULT
    return plain(default)


def _has_explicit_schema(field_: Any) -> bool:
    """Whether the project gave the field its own schema."""
    return bool(
        has_override(field_, "field")
        or OpenApiSerializerFieldExtension.get_match(field_)
    )


def _seal_nested(schema: dict[str, Any], field_: Any) -> None:
    """Refuse unknown keys inside nested serializers, as at the top level.

    DRF drops them silently, which loses data as a typo'd key does.
    """
    target, node = field_, schema
    if isinstance(field_, serializers.ListSerializer):
        target, node = field_.child, schema.get("items") or {}
    if not isinstance(target, serializers.Serializer) or not isinstance(node, dict):
        return
    nested = {n: f for n, f in target.fields.items() if not f.read_only}
    for option in node.get("anyOf") or [node]:
        if isinstance(option, dict) and option.get("type") in (
            "object",
            ["object", "null"],
        ):
            option.setdefault("additionalProperties", False)
            for name, child in (option.get("properties") or {}).items():
                if name in nested and isinstance(child, dict):
                    _seal_nested(child, nested[name])


def _parameter(
    parameters: list[dict[str, Any]],
    name: str,
    location: str,
    components: Mapping[str, Any],
    defs: dict[str, Any],
) -> dict[str, Any] | None:
    for parameter in parameters:
        if parameter.get("name") == name and parameter.get("in") == location:
            schema = to_json_schema(parameter.get("schema") or {}, components, defs)
            if parameter.get("description") and "description" not in schema:
                schema["description"] = str(parameter["description"])
            return schema
    return None
