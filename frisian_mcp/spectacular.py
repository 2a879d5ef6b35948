"""The drf-spectacular seam (ADR 0008): a view and its ``AutoSchema`` per endpoint.

The view is made as spectacular's generator makes it; every private
spectacular API frisian_mcp relies on is called from this module only.
"""

from __future__ import annotations

import dis
import inspect
import logging
from collections.abc import Callable, Mapping
from types import CodeType
from typing import Any

from drf_spectacular.drainage import GENERATOR_STATS
from drf_spectacular.extensions import OpenApiFilterExtension
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.plumbing import (
    ComponentRegistry,
    force_instance,
    is_versioning_supported,
    modify_for_versioning,
)
from drf_spectacular.settings import patched_settings, spectacular_settings
from rest_framework.generics import GenericAPIView
from rest_framework.serializers import ModelSerializer
from rest_framework.versioning import NamespaceVersioning

from frisian_mcp.exceptions import HOST_ERRORS
from frisian_mcp.jsonschema import to_json_schema
from frisian_mcp.routing import pinned_version
from frisian_mcp.types import Endpoint, Kind

__all__ = [
    "allocates",
    "components",
    "declared_request",
    "excluded",
    "filter_sets",
    "grows_filters",
    "inspector",
    "instance_filters",
    "live_filters",
    "make_view",
    "pages",
    "pagination_parameters",
    "parameters",
    "serializer",
]

logger = logging.getLogger("frisian_mcp")

_PLAIN_EXCLUSION = (None, AutoSchema.is_excluded)
#: A path variable's value in a schema's mock view: a valid int and str.
PLACEHOLDER = "1"


def make_view(
    endpoint: Endpoint,
    generator: SchemaGenerator | None = None,
    path_kwargs: Mapping[str, str] | None = None,
) -> Any:
    """A throwaway view of ``endpoint`` as drf-spectacular makes it.

    Its mock request carries what DRF's ``initial()`` sets (accepted
    renderer and media type, version, versioning scheme), its serializer
    context is DRF's base one and ``get_queryset`` is memoized. Each path
    variable has a value in ``view.kwargs``, as a real request would: a
    call's ``path_kwargs``, else a placeholder. A nested route's
    ``get_queryset`` (``self.kwargs["parent_pk"]``) then builds its queryset,
    and the filters read from it are not lost.
    """
    generator = generator or SchemaGenerator()
    view: Any = generator.create_view(endpoint.callback, endpoint.method)
    version_param = getattr(view.versioning_class, "version_param", None)
    placeholders = {
        name: PLACEHOLDER for name in endpoint.path_variables if name != version_param
    }
    view.kwargs = {**placeholders, **(path_kwargs or {}), **endpoint.fixed_kwargs}
    request = view.request = spectacular_settings.GET_MOCK_REQUEST(
        endpoint.method, endpoint.path, view, None
    )
    # What APIView.initial() sets before any handler runs.
    negotiated = view.perform_content_negotiation(request, force=True)
    request.accepted_renderer, request.accepted_media_type = negotiated
    versioning = view.versioning_class
    version = _version_of(endpoint, versioning) if versioning else None
    if (
        version
        and is_versioning_supported(versioning)
        and not issubclass(versioning, NamespaceVersioning)
    ):
        # Sets what the scheme reads: kwargs, or the accepted media type.
        modify_for_versioning([], endpoint.method, endpoint.path, view, version)
    request.version = version
    request.versioning_scheme = versioning() if versioning else None
    _lighten(view)
    return view


def excluded(endpoint: Endpoint) -> bool:
    """Whether the view leaves ``endpoint`` out of its schema (``exclude=True``)."""
    cls = endpoint.view_class
    handler = getattr(cls, endpoint.handler_name, None)
    candidates = (
        type(inspect.getattr_static(cls, "schema", None)),
        (getattr(handler, "kwargs", None) or {}).get("schema"),
    )
    # Only schema classes overriding is_excluded (@extend_schema) can say so.
    if not any(
        isinstance(c, type) and getattr(c, "is_excluded", None) not in _PLAIN_EXCLUSION
        for c in candidates
    ):
        return False
    generator = SchemaGenerator()
    with GENERATOR_STATS.silence():
        try:
            view = make_view(endpoint, generator)
            return bool(inspector(view, endpoint, generator, "^/").is_excluded())
        except HOST_ERRORS:
            return False  # building its schema reports the failure


def _version_of(endpoint: Endpoint, versioning: Any) -> str | None:
    """The API version a request to ``endpoint`` carries, as DRF would find it."""
    if issubclass(versioning, NamespaceVersioning):
        scheme = versioning()
        found = (v for v in endpoint.namespace.split(":") if v)
        allowed = (v for v in found if scheme.is_allowed_version(v))
        return next(allowed, versioning.default_version)
    param = getattr(versioning, "version_param", "version")
    pinned = pinned_version(endpoint.view_class)
    return (
        endpoint.fixed_kwargs.get(param)
        or (pinned and pinned[1])
        or versioning.default_version
    )


def inspector(
    view: Any, endpoint: Endpoint, generator: SchemaGenerator, path_prefix: str
) -> AutoSchema:
    """The view's ``AutoSchema``, set up for one operation as the generator does."""
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


def components(auto: AutoSchema) -> dict[str, Any]:
    """The component schemas ``auto`` has registered so far, by name."""
    built = auto.registry.build({}).get("schemas", {})
    return {name: schema for name, schema in built.items() if schema is not None}


def declared_request(auto: AutoSchema) -> bool:
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


def serializer(view: Any, build: Callable[[], Any]) -> Any:
    """The serializer ``build()`` gives, as an instance.

    With DRF's base context first; if that is not enough, the view's own.
    """
    try:
        found = force_instance(build())
    except HOST_ERRORS:
        own = getattr(view, "frisian_own_context", None)
        if own is None:
            raise
        view.get_serializer_context = own
        found = force_instance(build())
    if found is None and callable(getattr(view, "get_serializer", None)):
        # spectacular turns the host's failure into None and an error it
        # prints (silenced here); raise it again so it is reported (W003).
        view.get_serializer()
    return found


def parameters(auto: AutoSchema) -> list[dict[str, Any]]:
    """The operation's parameters, host ``@extend_schema`` and filters applied.

    The renderer's ``format`` override is left out: frisian_mcp renders the
    answer itself, and any other format only yields 406.
    """
    renderer_format = auto._get_format_parameters()
    found = (p for p in auto._get_parameters() if isinstance(p, dict))
    return [p for p in found if p not in renderer_format]


def pagination_parameters(auto: AutoSchema) -> set[str]:
    """The names of the view's own paging query parameters."""
    return {str(p.get("name")) for p in auto._get_pagination_parameters()}


def pages(endpoint: Endpoint, view: Any, auto: AutoSchema) -> bool:
    """Whether the endpoint's tool pages: a list, or a GET action REST pages.

    An action pages when its view has a paginator and spectacular documents
    a list response (and so the paging parameters), or when its handler asks
    the paginator for a page (``paginate_queryset``, in the handler or in a
    view method it calls, such as ``list``).
    """
    if endpoint.kind == Kind.LIST:
        return True
    if endpoint.kind != Kind.ACTION or endpoint.method != "GET":
        return False
    if not isinstance(view, GenericAPIView) or view.pagination_class is None:
        return False
    cls = type(view)
    return bool(pagination_parameters(auto)) or _calls(cls, endpoint.handler_name, 3)


def _calls(cls: type[Any], name: str, depth: int) -> bool:
    """Whether ``cls.name`` calls ``paginate_queryset``, ``depth`` calls deep.

    Calls are followed through ``self`` only (``self.list``), never through
    other objects' attributes or globals (``list()``).
    """
    function = getattr(cls, name, None)
    code = getattr(inspect.unwrap(function), "__code__", None) if function else None
    if not isinstance(code, CodeType) or not code.co_varnames:
        return False
    this, found, on_self, stack = code.co_varnames[0], set(), set(), [code]
    while stack:  # the function's code and the code nested in it
        current, previous = stack.pop(), None
        for instruction in dis.get_instructions(current):
            if instruction.opname in ("LOAD_ATTR", "LOAD_METHOD"):
                found.add(instruction.argval)
                if previous is not None and previous.argval == this:
                    on_self.add(instruction.argval)
            previous = instruction
        stack += [c for c in current.co_consts if isinstance(c, CodeType)]
    if "paginate_queryset" in found:
        return True
    return depth > 1 and any(_calls(cls, n, depth - 1) for n in on_self - {name})


def allocates(endpoint: Endpoint, auto: AutoSchema) -> bool:
    """Whether a POST action under a row takes its model's serializer as body.

    Allocators (``POST /prefixes/{id}/available-prefixes/``) declare the
    model's full serializer and fill in from the row in the path what they
    allocate (the prefix, the VLAN id, the parent), so the caller is asked
    for none of its fields as required.
    """
    if endpoint.kind != Kind.ACTION or endpoint.method != "POST":
        return False
    body = force_instance(auto.get_request_serializer())
    body = getattr(body, "child", body)
    return bool(endpoint.path_variables) and isinstance(body, ModelSerializer)


def filter_sets(view: Any) -> list[tuple[Any, type[Any]]]:
    """``(backend, filter-set class)`` per filter backend that builds filter sets.

    A backend builds them when it has django-filter's ``get_filterset_class``
    and ``get_filterset``.
    """
    found: list[tuple[Any, type[Any]]] = []
    backends = getattr(view, "filter_backends", None) or ()
    queryset = view.get_queryset() if backends else None
    for backend in (b() if isinstance(b, type) else b for b in backends):
        if not callable(getattr(backend, "get_filterset", None)):
            continue
        cls = backend.get_filterset_class(view, queryset)
        if isinstance(cls, type):
            found.append((backend, cls))
    return found


def grows_filters(cls: type[Any]) -> bool:
    """Whether a filter set may add filters per instance.

    It may when a class of its own (not django-filter's) defines
    ``__init__``: that is where per-instance filters are added.
    """
    return any(
        "__init__" in vars(base)
        for base in cls.__mro__
        if base is not object and not base.__module__.startswith("django_filters")
    )


def instance_filters(view: Any, auto: AutoSchema) -> list[dict[str, Any]]:
    """OpenAPI parameters of the filters only a filter-set instance has.

    The instances are built on the view's request, as the backend builds
    them; each filter is typed by the backend's spectacular extension.
    """
    parameters: list[dict[str, Any]] = []
    queryset = view.get_queryset()
    model = getattr(queryset, "model", None)
    for backend, cls in filter_sets(view):
        if not grows_filters(cls):
            continue
        instance = backend.get_filterset(view.request, queryset, view)
        extension = OpenApiFilterExtension.get_match(backend)
        resolve = getattr(extension, "resolve_filter_field", None)
        for name, added in instance.filters.items():
            if name in cls.base_filters:
                continue
            found = resolve(auto, model, cls, name, added) if resolve else None
            plain = {"name": name, "in": "query", "schema": {"type": "string"}}
            parameters.extend(found or [plain])
    return parameters


def live_filters(
    endpoint: Endpoint,
    path_prefix: str,
    user: Any,
    auth: Any,
    path_kwargs: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """``{name: JSON schema}`` of the filters filter-set instances add, now.

    Built per call on a view whose request carries the caller and whose
    kwargs carry the call's path values (see docs/listing.md); ``{}`` when
    the host's code fails, which is logged.
    """
    generator = SchemaGenerator()
    with GENERATOR_STATS.silence(), patched_settings({"COMPONENT_SPLIT_REQUEST": True}):
        try:
            view = make_view(endpoint, generator, path_kwargs)
            view.request.user, view.request.auth = user, auth
            auto = inspector(view, endpoint, generator, path_prefix)
            found = instance_filters(view, auto)
            known = components(auto)
        except HOST_ERRORS as exc:
            logger.warning(
                "frisian_mcp: the filter sets of %s %s failed: %s",
                *(endpoint.method, endpoint.path, type(exc).__name__),
            )
            return {}
    schemas = {}
    for parameter in found:
        schema = to_json_schema(parameter.get("schema") or {}, known, {})
        if parameter.get("description") and "description" not in schema:
            schema["description"] = str(parameter["description"])
        schemas[str(parameter.get("name"))] = schema
    return schemas
