"""Build one tool's schema from its endpoint with drf-spectacular's machinery.

For each endpoint a throwaway view instance is made the way spectacular makes
it (so ``@extend_schema`` and ``swagger_fake_view`` work), given DRF's base
serializer context instead of the view's own (host contexts can run SQL on
every call; see ``notes/schemas-at-scale.md``) and a memoized
``get_queryset``. Spectacular then maps path and query parameters and the
request serializer; response schemas are never built. A request body mapped
for one (view class, serializer class) pair is reused by the viewset's other
write actions; PATCH derives from PUT by dropping ``required``.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from drf_spectacular.drainage import GENERATOR_STATS
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.plumbing import ComponentRegistry, ResolvedComponent, is_serializer
from drf_spectacular.settings import patched_settings, spectacular_settings
from rest_framework import mixins, serializers
from rest_framework.views import APIView

from frisian_mcp import arguments
from frisian_mcp.conf import mcp_settings
from frisian_mcp.discovery import Endpoint
from frisian_mcp.exceptions import SchemaError
from frisian_mcp.schema.openapi import json_safe, to_json_schema
from frisian_mcp.schema.relations import Relation, describe_relation, relation_schema
from frisian_mcp.schema.types import BodySchema, ToolSchema

__all__ = ["SchemaBuilder"]

logger = logging.getLogger("frisian_mcp")

_BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})
_RECORD_KINDS = frozenset(
    {arguments.LIST, arguments.READ, arguments.CREATE, arguments.UPDATE}
)
# The stock DRF action each kind's result shape is known for.
_STOCK_ACTIONS = {
    arguments.LIST: ("list", mixins.ListModelMixin),
    arguments.READ: ("retrieve", mixins.RetrieveModelMixin),
    arguments.CREATE: ("create", mixins.CreateModelMixin),
    arguments.UPDATE: ("update", mixins.UpdateModelMixin),
    arguments.DELETE: ("destroy", mixins.DestroyModelMixin),
}
# Schema keywords that describe structure; constraints (enum, bounds,
# patterns) are left out of output schemas, where stored data that predates
# a constraint would make a client reject a correct answer.
_STRUCTURAL_KEYS = frozenset(
    {
        "type",
        "properties",
        "items",
        "anyOf",
        "description",
        "title",
        "format",
        "additionalProperties",
        "$ref",
        "$defs",
    }
)
_PATH_VARIABLE = re.compile(r"{([^{}]+)}")


class SchemaBuilder:
    """Builds :class:`ToolSchema` objects; one instance per registry build."""

    def __init__(self) -> None:
        self.generator = SchemaGenerator()
        self._bodies: dict[tuple[type[Any], type[Any]], BodySchema] = {}
        self._records: dict[tuple[type[Any], type[Any]], dict[str, Any] | None] = {}

    def build(
        self, endpoint: Endpoint, kind: str, path_prefix: str
    ) -> ToolSchema | None:
        """Return the schema of ``endpoint``'s tool, or ``None`` if excluded."""
        patches = (
            {}
            if spectacular_settings.COMPONENT_SPLIT_REQUEST
            else {"COMPONENT_SPLIT_REQUEST": True}
        )
        with GENERATOR_STATS.silence(), patched_settings(patches):
            view = self.make_view(endpoint)
            auto = self._auto_schema(view, endpoint, path_prefix)
            if auto.is_excluded():
                return None
            return self._build(endpoint, kind, view, auto)

    # -- view and inspector -------------------------------------------------

    def make_view(self, endpoint: Endpoint) -> APIView:
        """A throwaway view of ``endpoint`` as drf-spectacular makes it.

        Its mock request carries the endpoint's fixed version, its serializer
        context is DRF's base one and ``get_queryset`` is memoized.
        """
        view: APIView = self.generator.create_view(endpoint.callback, endpoint.method)
        view.kwargs = dict(endpoint.fixed_kwargs)
        request = spectacular_settings.GET_MOCK_REQUEST(
            endpoint.method, endpoint.path, view, None
        )
        view.request = request
        if endpoint.fixed_kwargs and view.versioning_class is not None:
            version_param = getattr(view.versioning_class, "version_param", "version")
            if version_param in endpoint.fixed_kwargs:
                request.version = endpoint.fixed_kwargs[version_param]
                request.versioning_scheme = view.versioning_class()
        _lighten(view)
        return view

    def _auto_schema(
        self, view: APIView, endpoint: Endpoint, path_prefix: str
    ) -> AutoSchema:
        auto = view.schema
        if not isinstance(auto, AutoSchema):
            # A project without spectacular as DEFAULT_SCHEMA_CLASS still gets
            # spectacular's mapping.
            auto = AutoSchema()
            view.schema = auto
        auto.registry = ComponentRegistry()
        auto.path = self.generator.coerce_path(endpoint.path, endpoint.method, view)
        auto.path_regex = endpoint.path_regex
        auto.path_prefix = path_prefix
        auto.method = endpoint.method
        return auto

    # -- the tool schema ----------------------------------------------------

    def _build(
        self, endpoint: Endpoint, kind: str, view: APIView, auto: AutoSchema
    ) -> ToolSchema:
        # Path arguments: spectacular renames {pk} to the model's pk name.
        coerced = _PATH_VARIABLE.findall(auto.path)
        path_arguments = dict(zip(coerced, endpoint.path_variables, strict=False))
        parameters = [p for p in auto._get_parameters() if isinstance(p, dict)]
        pagination = set()
        if kind == arguments.LIST:
            pagination = {p.get("name") for p in auto._get_pagination_parameters()}

        body = (
            self._body(view, auto) if endpoint.method in _BODY_METHODS else BodySchema()
        )
        if endpoint.method == "PATCH":
            body = body.as_partial()
        elif kind == arguments.ACTION and body.required and not _declared_request(auto):
            # A custom action's body is inferred from the view's serializer,
            # which the action may not even read: requiring its fields would
            # refuse calls the server accepts. The serializer still checks.
            body = replace(body, required=())

        properties: dict[str, Any] = {}
        required: list[str] = []
        defs: dict[str, Any] = dict(body.defs)
        renamed_path: dict[str, str] = {}
        for name, kwarg in path_arguments.items():
            argument = f"lookup_{name}" if name in body.properties else name
            renamed_path[argument] = kwarg
            schema = _parameter_schema(parameters, name, "path", defs, auto)
            properties[argument] = schema or {"type": "string"}
            required.append(argument)

        filter_parameters: dict[str, Any] = {}
        query_arguments: dict[str, str] = {}
        comma_separated: set[str] = set()
        for parameter in parameters:
            if parameter.get("in") != "query" or parameter.get("name") in pagination:
                continue
            name = str(parameter["name"])
            schema = _parameter_schema(parameters, name, "query", defs, auto) or {}
            if parameter.get("explode") is False:
                comma_separated.add(name)
            if kind == arguments.LIST:
                filter_parameters[name] = schema
                continue
            argument = (
                f"query_{name}"
                if name in properties or name in body.properties
                else name
            )
            query_arguments[argument] = name
            properties[argument] = schema
            if parameter.get("required"):
                required.append(argument)

        properties.update(body.properties)
        required.extend(body.required)
        record = self._record(view, auto) if kind in _RECORD_KINDS else None
        record_fields = tuple((record or {}).get("properties") or ())
        protocol = arguments.protocol_arguments_for(
            kind,
            {"filter_parameters": filter_parameters, "record_fields": record_fields},
        )
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
            description=_description(auto),
            summary=_summary(auto),
            path_arguments=renamed_path,
            query_arguments=query_arguments,
            body_fields=tuple(body.properties),
            body_argument=body.argument,
            relations=dict(body.relations),
            filter_parameters=filter_parameters,
            protocol_arguments=tuple(protocol),
            comma_separated=frozenset(comma_separated),
            record_fields=record_fields,
            output_schema=output_schema(endpoint, kind, record),
        )

    def _body(self, view: APIView, auto: AutoSchema) -> BodySchema:
        serializer = _with_fallback_context(view, auto.get_request_serializer)
        if serializer is None:
            return BodySchema()
        if not is_serializer(serializer):
            schema = _basic_body(serializer, auto)
            return BodySchema(
                properties={"body": schema} if schema else {},
                argument="body" if schema else None,
            )
        key = (type(view), type(serializer))
        cached = self._bodies.get(key)
        if cached is None:
            cached = self._map_serializer(serializer, auto)
            self._bodies[key] = cached
        return cached

    def _record(self, view: APIView, auto: AutoSchema) -> dict[str, Any] | None:
        """The shape of one record the action returns (its response serializer)."""
        try:
            serializer = _with_fallback_context(view, auto.get_response_serializers)
        except Exception:  # a response we cannot inspect has no fixed shape
            return None
        if not is_serializer(serializer) or isinstance(
            serializer, serializers.ListSerializer
        ):
            return None
        key = (type(view), type(serializer))
        if key in self._records:
            return self._records[key]
        component = auto.resolve_serializer(serializer, "response")
        record = None
        if component.schema is not None:
            converted = to_json_schema(component.schema, _components(auto))
            fields = _readable_fields(serializer)
            properties = {}
            for name, prop in (converted.get("properties") or {}).items():
                field = fields.get(name)
                untyped = field is not None and (
                    _is_unmapped(field) or _untyped_method(field)
                )
                properties[name] = _structural(
                    {k: v for k, v in prop.items() if k == "description"}
                    if untyped
                    else prop
                )
            record = {"type": "object", "properties": properties}
        self._records[key] = record
        return record

    def _map_serializer(self, serializer: Any, auto: AutoSchema) -> BodySchema:
        if isinstance(serializer, serializers.ListSerializer):
            mapped = auto._unwrap_list_serializer(serializer, "request")
            defs: dict[str, Any] = {}
            schema = to_json_schema(mapped or {}, _components(auto), defs)
            return BodySchema(
                properties={"body": {"type": "array", "items": schema}},
                required=("body",),
                argument="body",
                defs=defs,
            )
        component = auto.resolve_serializer(serializer, "request")
        if component.schema is None:
            return BodySchema()
        defs = {}
        schema = to_json_schema(component.schema, _components(auto), defs)
        fields = _writable_fields(serializer)
        properties: dict[str, Any] = {}
        relations: dict[str, Relation] = {}
        for name, property_schema in (schema.get("properties") or {}).items():
            if property_schema.get("format") == "binary":
                continue  # file uploads cannot travel in a JSON body
            field = fields.get(name)
            if field is not None and _is_unmapped(field):
                property_schema = _unmapped_schema(serializer, name, property_schema)
            relation = describe_relation(name, field) if field is not None else None
            if relation is not None and not _has_explicit_schema(field):
                relations[name] = relation
                property_schema = relation_schema(relation, property_schema)
            elif field is not None:
                _seal_nested(property_schema, field)
            if field is not None and "default" not in property_schema:
                default = _model_default(serializer, field)
                if default is not _NO_DEFAULT:
                    property_schema["default"] = default
            properties[name] = property_schema
        required = tuple(r for r in schema.get("required", ()) if r in properties)
        return BodySchema(
            properties=properties, required=required, relations=relations, defs=defs
        )


def output_schema(
    endpoint: Endpoint, kind: str, record: dict[str, Any] | None
) -> dict[str, Any] | None:
    """The outputSchema of a tool whose action is DRF's stock one.

    The primary shape (a record, a page of records, a deletion, a bulk
    result) is listed with the other shapes every tool may return: its
    ``help`` document and, for writes, a ``validation`` report.
    """
    stock = _STOCK_ACTIONS.get(kind)
    if stock is None:
        return None
    method, mixin = stock
    cls = endpoint.view_class
    if not issubclass(cls, mixin) or getattr(cls, method) is not getattr(mixin, method):
        return None
    shapes: list[dict[str, Any]] = []
    if kind == arguments.LIST:
        if record is None:
            return None
        shapes.append(
            {
                "type": "object",
                "properties": {
                    "results": {"type": "array", "items": record},
                    "count": {"type": "integer"},
                    "page": {"type": "integer"},
                    "page_size": {"type": "integer"},
                    "has_more": {"type": "boolean"},
                    "next_token": {"type": "string"},
                },
                "required": ["results", "count", "page", "page_size", "has_more"],
            }
        )
    elif kind == arguments.DELETE:
        shapes.append(
            {
                "type": "object",
                "properties": {"deleted": {"type": "boolean"}},
                "required": ["deleted"],
            }
        )
    else:
        if record is None:
            return None
        shapes.append(record)
        if kind == arguments.CREATE:
            shapes.append(
                {
                    "type": "object",
                    "properties": {
                        "created": {"type": "integer"},
                        "results": {"type": "array", "items": record},
                        "ids": {"type": "array"},
                    },
                    "required": ["created"],
                }
            )
    shapes.append(
        {
            "type": "object",
            "properties": {"help": {"type": "object"}},
            "required": ["help"],
        }
    )
    if kind in (arguments.CREATE, arguments.UPDATE):
        shapes.append(
            {
                "type": "object",
                "properties": {"validation": {"type": "object"}},
                "required": ["validation"],
            }
        )
    return {"type": "object", "anyOf": shapes}


def _structural(schema: Any) -> Any:
    """Keep only the structural keywords of an output schema, recursively."""
    if isinstance(schema, list):
        return [_structural(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    result: dict[str, Any] = {}
    for key, value in schema.items():
        if key not in _STRUCTURAL_KEYS:
            continue
        if key == "properties" and isinstance(value, dict):
            result[key] = {name: _structural(v) for name, v in value.items()}
        elif key in ("items", "additionalProperties", "anyOf", "$defs"):
            result[key] = (
                {n: _structural(v) for n, v in value.items()}
                if key == "$defs"
                else _structural(value)
            )
        else:
            result[key] = value
    return result


def _readable_fields(serializer: Any) -> dict[str, Any]:
    try:
        fields = serializer.fields
    except Exception:  # a broken serializer maps to no fields
        return {}
    return {name: f for name, f in fields.items() if not f.write_only}


def _untyped_method(field: Any) -> bool:
    """A SerializerMethodField whose method declares no return type."""
    if not isinstance(field, serializers.SerializerMethodField) or _has_explicit_schema(
        field
    ):
        return False
    parent = getattr(field, "parent", None)
    method = getattr(parent, field.method_name or f"get_{field.field_name}", None)
    return "return" not in getattr(method, "__annotations__", {})


def _declared_request(auto: AutoSchema) -> bool:
    """Whether ``@extend_schema(request=...)`` names the action's body."""
    if type(auto).get_request_serializer is AutoSchema.get_request_serializer:
        return False
    try:
        declared = auto.get_request_serializer()
        inferred = auto._get_serializer()
    except Exception:
        return True
    return _class_of(declared) is not _class_of(inferred)


def _class_of(value: Any) -> Any:
    return value if isinstance(value, type) else type(value)


def _lighten(view: APIView) -> None:
    """Give a throwaway view DRF's base context and a memoized queryset."""
    original_context = (
        view.get_serializer_context if hasattr(view, "get_serializer_context") else None
    )

    def base_context() -> dict[str, Any]:
        return {"request": view.request, "format": None, "view": view}

    if original_context is not None:
        view._frisian_original_context = original_context  # type: ignore[attr-defined]
        view.get_serializer_context = base_context  # type: ignore[attr-defined]
    get_queryset = getattr(view, "get_queryset", None)
    if callable(get_queryset):
        memo: list[Any] = []

        def memoized() -> Any:
            if not memo:
                memo.append(get_queryset())
            return memo[0]

        view.get_queryset = memoized  # type: ignore[attr-defined]


def _with_fallback_context(view: APIView, build: Callable[[], Any]) -> Any:
    """Run ``build``; if the base context is not enough, use the view's own."""
    try:
        return build()
    except Exception:
        original = getattr(view, "_frisian_original_context", None)
        if original is None:
            raise
        view.get_serializer_context = original  # type: ignore[attr-defined]
        return build()


def _components(auto: AutoSchema) -> dict[str, Any]:
    return {
        component.name: component.schema
        for component in auto.registry._components.values()
        if component.type == ResolvedComponent.SCHEMA and component.schema is not None
    }


def _writable_fields(serializer: Any) -> dict[str, Any]:
    try:
        fields = serializer.fields
    except Exception:
        return {}
    return {name: f for name, f in fields.items() if not f.read_only}


def _is_unmapped(field: Any) -> bool:
    """Whether spectacular could only guess the field's type.

    True for a project field that subclasses ``Field`` directly and has no
    ``@extend_schema_field`` or extension: spectacular then calls it a
    string, which would refuse every non-string value it may well accept.
    """
    builtin = next(
        (c for c in type(field).__mro__ if c.__module__.startswith("rest_framework.")),
        None,
    )
    return builtin is serializers.Field and not _has_explicit_schema(field)


def _unmapped_schema(
    serializer: Any, name: str, schema: dict[str, Any]
) -> dict[str, Any]:
    policy = str(mcp_settings.UNMAPPED_FIELD_POLICY).upper()
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
    annotations = {k: v for k, v in schema.items() if k in ("title", "description")}
    note = "Any JSON value (the field declares no schema)."
    annotations["description"] = (
        f"{annotations['description']} {note}" if "description" in annotations else note
    )
    return annotations


_NO_DEFAULT: Any = object()


def _model_default(serializer: Any, field: Any) -> Any:
    """The model field's default, when DRF made the field optional for it."""
    model = getattr(getattr(serializer, "Meta", None), "model", None)
    source = getattr(field, "source", None)
    if model is None or field.required or not source or "." in source or source == "*":
        return _NO_DEFAULT
    try:
        model_field = model._meta.get_field(source)
    except Exception:
        return _NO_DEFAULT
    if not getattr(model_field, "has_default", lambda: False)():
        return _NO_DEFAULT
    default = model_field.default
    if callable(default):
        return _NO_DEFAULT
    return json_safe(default)


def _has_explicit_schema(field: Any) -> bool:
    """Whether the project gave the field its own schema (extend_schema_field)."""
    from drf_spectacular.drainage import has_override
    from drf_spectacular.extensions import OpenApiSerializerFieldExtension

    return bool(
        has_override(field, "field") or OpenApiSerializerFieldExtension.get_match(field)
    )


def _seal_nested(schema: dict[str, Any], field: Any) -> None:
    """Reject unknown keys inside nested serializers, as at the top level.

    DRF drops unknown keys of a nested object silently, which loses data the
    same way a typo'd top-level key does.
    """
    target: Any = field
    node: Any = schema
    if isinstance(field, serializers.ListSerializer):
        target = field.child
        node = schema.get("items") if isinstance(schema.get("items"), dict) else {}
    if not isinstance(target, serializers.Serializer) or not node:
        return
    options: list[Any] = node.get("anyOf") or [] if "anyOf" in node else [node]
    for option in options:
        if isinstance(option, dict) and option.get("type") in (
            "object",
            ["object", "null"],
        ):
            option.setdefault("additionalProperties", False)
            nested_fields = _writable_fields(target)
            for name, child in (option.get("properties") or {}).items():
                if name in nested_fields and isinstance(child, dict):
                    _seal_nested(child, nested_fields[name])


def _parameter_schema(
    parameters: list[dict[str, Any]],
    name: str,
    location: str,
    defs: dict[str, Any],
    auto: AutoSchema,
) -> dict[str, Any] | None:
    for parameter in parameters:
        if parameter.get("name") == name and parameter.get("in") == location:
            schema = to_json_schema(
                parameter.get("schema") or {}, _components(auto), defs
            )
            if parameter.get("description") and "description" not in schema:
                schema["description"] = str(parameter["description"])
            return schema
    return None


def _basic_body(serializer: Any, auto: AutoSchema) -> dict[str, Any] | None:
    from drf_spectacular.plumbing import build_basic_type, is_basic_type

    if isinstance(serializer, dict):
        raw: Any = serializer
    elif is_basic_type(serializer):
        raw = build_basic_type(serializer)
    else:
        return None
    return to_json_schema(raw or {}, _components(auto)) if raw else None


def _description(auto: AutoSchema) -> str:
    try:
        return str(auto.get_description() or "").strip()
    except Exception:
        return ""


def _summary(auto: AutoSchema) -> str:
    try:
        return str(auto.get_summary() or "").strip()
    except Exception:
        return ""
