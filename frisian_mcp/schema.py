"""Tool schemas: one endpoint's arguments and record, through drf-spectacular.

The view's ``AutoSchema`` (:mod:`~frisian_mcp.spectacular`) maps the
parameters, the request body and the record a stock action returns. What the
host's code raises (:class:`HostError`) is a :class:`SchemaProblem` (ADR 0015).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property, partial
from typing import Any, TypeVar

from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.plumbing import is_serializer
from jsonschema import Draft202012Validator
from rest_framework import serializers

from frisian_mcp import arguments, filtersets, results, spectacular
from frisian_mcp.bodies import Bodies, BodySchema, request_body
from frisian_mcp.discovery import declared_query_parameters
from frisian_mcp.exceptions import ConfigurationError, HostError, host_call
from frisian_mcp.fields import record_schema
from frisian_mcp.jsonschema import parameter_schema, to_json_schema
from frisian_mcp.pagination import pages
from frisian_mcp.relations import Relation
from frisian_mcp.spectacular import make_view
from frisian_mcp.types import PATH_VARIABLE, Endpoint, SchemaProblem

__all__ = ["SchemaBuilder", "SchemaProblem", "ToolSchema"]


logger = logging.getLogger("frisian_mcp")
_T = TypeVar("_T")


@dataclass(frozen=True)
class ToolSchema:
    """What the registry knows about one tool's arguments.

    ``path_arguments``/``query_arguments``/``body_fields`` map argument
    names to URL variables, query parameters and serializer fields;
    ``comma_separated`` ones are sent joined. A body field named as a path
    argument is ``body_<name>``; a full update fills the ``path_filled`` ones
    from the path argument when they are left out (docs/listing.md).
    ``serializer``: the class the view's ``get_serializer_class()`` chose
    (ADR 0031). ``unchecked_to``: where a guessed schema sends undeclared
    arguments (``"body"``, ``"query"``; ADR 0030), its body ``guessed_body``
    from that serializer, W009's ``body_warning``. ``items``: a bulk tool's
    entry (ADR 0033). ``file_fields``: those no JSON body carries (the files
    extra's hook adds them), ``required_files`` the required ones.
    ``deprecated``: the operation is marked so (``extend_schema``).
    ``shapes``: those the action answers (``None``: the view's own).
    """

    input_schema: dict[str, Any]
    description: str
    summary: str
    path_arguments: Mapping[str, str]
    query_arguments: Mapping[str, str]
    body_fields: Mapping[str, str]
    body_argument: str | None
    relations: Mapping[str, Relation]
    filter_parameters: Mapping[str, Any]
    protocol_arguments: tuple[str, ...]
    comma_separated: frozenset[str] = frozenset()
    record_fields: tuple[str, ...] = ()
    shapes: tuple[dict[str, Any], ...] | None = None
    growing_filters: bool = False
    guessed_body: str | None = None
    path_filled: frozenset[str] = frozenset()
    serializer: str | None = None
    unchecked_to: str | None = None
    body_warning: tuple[str, str] | None = None
    items: ToolSchema | None = None
    file_fields: tuple[str, ...] = ()
    required_files: tuple[str, ...] = ()
    deprecated: bool = False

    @cached_property
    def declared(self) -> frozenset[str]:
        """Every top-level argument name the inputSchema declares."""
        return frozenset(self.input_schema.get("properties", {}))

    @cached_property
    def output_schema(self) -> dict[str, Any] | None:
        """The shapes of every result, its protocol arguments' too (ADR 0038)."""
        unchecked = self.unchecked_to is not None
        return results.output_schema(self.shapes, self.protocol_arguments, unchecked)

    @cached_property
    def field_names(self) -> frozenset[str] | None:
        """The names a host's field error may use; ``None`` for a body
        sent whole as one argument, whose keys the schema need not list,
        and for a tool that takes undeclared arguments."""
        closed = self.body_argument is None and self.unchecked_to is None
        return self.declared if closed else None

    @cached_property
    def validator(self) -> Draft202012Validator:
        """A validator of the inputSchema whose root is open: the guards
        explain undeclared arguments better than jsonschema does."""
        root = dict(self.input_schema)
        root.pop("additionalProperties", None)
        return Draft202012Validator(root)


class SchemaBuilder:
    """Builds :class:`ToolSchema` objects and collects what went wrong."""

    def __init__(self, *, log: bool = True) -> None:
        self.generator = SchemaGenerator()
        self.problems: list[SchemaProblem] = []
        self.log = log  # off where the problems are reported otherwise (checks)
        self._bodies: Bodies = {}
        self._records: dict[tuple[type[Any], type[Any]], dict[str, Any] | None] = {}

    def build(
        self, endpoint: Endpoint, path_prefix: str, serializer: type[Any] | None = None
    ) -> ToolSchema | None:
        """The schema of ``endpoint``'s tool; ``None`` if broken.

        ``serializer``: the class a caller gets from the view (ADR 0031).
        """
        with spectacular.building():
            try:
                view = make_view(endpoint, self.generator)
                if serializer is not None:
                    view.get_serializer_class = lambda: serializer
                auto = spectacular.inspector(
                    view, endpoint, self.generator, path_prefix
                )
                return self._build(endpoint, view, auto)
            except HostError as exc:
                self.warn(endpoint, exc.error, fatal=True)
                return None
            except ConfigurationError as exc:  # a bad request_bodies entry (E010)
                self.warn(endpoint, exc, fatal=True)
                return None
            finally:
                self.generator.schemas_storage.clear()

    def warn(self, endpoint: Endpoint, exc: Exception, *, fatal: bool) -> None:
        """Record a failure of the host's code for ``endpoint``."""
        args = (endpoint.action, endpoint.path, exc, fatal)
        self.record(SchemaProblem.of(endpoint.view_class, *args))

    def record(self, problem: SchemaProblem) -> None:
        """Keep ``problem`` and log it, unless the checks report it instead."""
        self.problems.append(problem)
        if self.log:
            outcome = "left out" if problem.fatal else "degraded the schema of"
            logger.warning(
                "frisian_mcp: %s %s of %s (%s): %s: %s",
                *(outcome, problem.action, problem.view, problem.path),
                *(problem.error, problem.detail),
            )

    def _build(self, endpoint: Endpoint, view: Any, auto: AutoSchema) -> ToolSchema:
        body = request_body(endpoint, view, auto, self._bodies)
        defs = dict(body.defs)
        url = _url_arguments(endpoint, auto, body, defs)
        names = {n: f"body_{n}" for n in url.path if n in body.properties}
        filled = frozenset(names if endpoint.method == "PUT" else ())
        fields = {names.get(n, n): n for n in body.properties}
        properties = {a: body.properties[f] for a, f in fields.items()}
        properties = {**url.properties, **properties}
        skip = filled | set(body.files)
        kept = [names.get(n, n) for n in body.required if n not in skip]
        required = [*url.required, *kept]
        record = self._record(endpoint, view, auto)
        record_fields = tuple((record or {}).get("properties") or ())
        # Whether a filter set of the list view adds filters per instance.
        sets = "filters" in endpoint.row.arguments and self._or(
            endpoint, lambda: filtersets.filter_sets(view), None
        )
        growing = any(filtersets.grows_filters(cls) for _, cls in sets or ())
        paged = pages(endpoint, view, auto)
        facts = arguments.Facts(url.filters, record_fields, growing)
        protocol = arguments.declared_for(endpoint.kind, facts, paged=paged)
        for name, schema in protocol.items():
            properties.setdefault(name, schema)
        input_schema: dict[str, Any] = {"type": "object", "properties": properties}
        unchecked = _unchecked_to(endpoint, auto, body)
        input_schema["additionalProperties"] = _OPEN.get(unchecked or "", False)
        if required:
            input_schema["required"] = list(dict.fromkeys(required))
        if defs:
            input_schema["$defs"] = defs
        description, summary, deprecated = (
            self._or(endpoint, partial(host_call, read), None)
            for read in (auto.get_description, auto.get_summary, auto.is_deprecated)
        )
        return ToolSchema(
            input_schema=input_schema,
            description=str(description or "").strip(),
            summary=str(summary or "").strip(),
            path_arguments=url.path,
            query_arguments=url.query,
            body_fields=fields,
            body_argument=body.argument,
            relations=dict(body.relations),
            filter_parameters=url.filters,
            protocol_arguments=tuple(protocol),
            comma_separated=frozenset(url.joined),
            record_fields=record_fields,
            shapes=results.shapes(endpoint, record),
            growing_filters=growing,
            guessed_body=body.guessed,
            path_filled=filled,
            serializer=spectacular.chosen_serializer(endpoint, view),
            unchecked_to=unchecked,
            body_warning=body.warning,
            items=_entry(body.item, defs) if body.item is not None else None,
            file_fields=body.files,
            required_files=tuple(n for n in body.required if n in body.files),
            deprecated=deprecated is True,
        )

    def _or(self, endpoint: Endpoint, make: Callable[[], _T], default: _T) -> _T:
        """``make()``; ``default`` and a warning if the host's code fails."""
        try:
            return make()
        except HostError as exc:
            self.warn(endpoint, exc.error, fatal=False)
            return default

    def _record(
        self, endpoint: Endpoint, view: Any, auto: AutoSchema
    ) -> dict[str, Any] | None:
        """The shape of one record a stock action returns, if it has one."""
        if endpoint.row.result not in ("page", "record"):  # returns no record
            return None
        get = auto.get_response_serializers
        found = self._or(endpoint, lambda: spectacular.serializer(view, get), None)
        if not is_serializer(found) or isinstance(found, serializers.ListSerializer):
            return None
        key = (view.__class__, type(found))
        if key not in self._records:
            shape = self._or(endpoint, lambda: _record_shape(found, auto), None)
            self._records[key] = shape
        return self._records[key]


def _entry(item: BodySchema, defs: dict[str, Any]) -> ToolSchema:
    """A bulk tool's entry as a schema of its own: its id fills the body."""
    schema: dict[str, Any] = {"type": "object", "properties": dict(item.properties)}
    schema |= {"required": list(item.required), "additionalProperties": False}
    fields = {name: name for name in item.properties if name != "id"}
    return ToolSchema(
        input_schema={**schema, "$defs": defs} if defs else schema,
        description="",
        summary="",
        path_arguments={},
        query_arguments={},
        body_fields=fields,
        body_argument=None,
        relations=dict(item.relations),
        filter_parameters={},
        protocol_arguments=(),
        path_filled=frozenset({"id"}),
    )


def _record_shape(serializer: Any, auto: AutoSchema) -> dict[str, Any] | None:
    component = host_call(auto.resolve_serializer, serializer, "response")
    if component.schema is None:
        return None
    converted = to_json_schema(component.schema, spectacular.components(auto))
    fields = host_call(lambda: list(serializer.fields.items()))
    readable = {n: f for n, f in fields if not f.write_only}
    properties = converted.get("properties") or {}
    shapes = {n: record_schema(readable.get(n), p) for n, p in properties.items()}
    return {"type": "object", "properties": shapes}


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
    # The operator's declarations replace the host's of the same name.
    declared = {p["name"]: p for p in declared_query_parameters(endpoint)}
    found = [
        p
        for p in filtersets.paired(auto.view, spectacular.parameters(auto))
        if p.get("in") != "query" or p.get("name") not in declared
    ]
    found += declared.values()
    in_path = {p.get("name"): p for p in found if p.get("in") == "path"}
    # spectacular renames {pk} to the model's pk name.
    variables = PATH_VARIABLE.findall(auto.path)
    for name, kwarg in zip(variables, endpoint.path_variables, strict=False):
        url.path[name] = kwarg
        schema = parameter_schema(in_path.get(name), components, defs)
        url.properties[name] = schema or {"type": "string"}
        url.required.append(name)
    paging = spectacular.pagination_parameters(auto)
    for parameter in found:
        name = str(parameter.get("name"))
        if parameter.get("in") != "query" or name in paging:
            continue
        schema = parameter_schema(parameter, components, defs) or {}
        if parameter.get("explode") is False:
            url.joined.add(name)
        if "filters" in endpoint.row.arguments:  # a list tool's query: filters
            url.filters[name] = schema
            continue
        taken = name in url.properties or name in body.properties
        argument = f"query_{name}" if taken else name
        url.query[argument] = name
        url.properties[argument] = schema
        if parameter.get("required"):
            url.required.append(argument)
    return url


def _unchecked_to(endpoint: Endpoint, auto: AutoSchema, body: BodySchema) -> str | None:
    """Where the tool sends undeclared arguments, if anywhere (ADR 0030).

    A guessed body takes them; so does the query of a GET action, unless
    ``query_parameters`` or ``@extend_schema(parameters=...)`` declare it.
    """
    if body.unchecked:
        return "body"
    if endpoint.category != "safe_action" or endpoint.method != "GET":
        return None
    declared = declared_query_parameters(endpoint)
    return None if declared or spectacular.declared_parameters(auto) else "query"


#: The root ``additionalProperties`` of a tool open to undeclared arguments:
#: anything but an object (a wrapper, ADR 0002); a query takes plain values.
_OPEN: dict[str, Any] = {
    "body": {"type": ["string", "number", "boolean", "null", "array"]},
    "query": {
        "type": ["string", "number", "boolean", "array"],
        "items": {"type": ["string", "number", "boolean"]},
    },
}
