"""The drf-spectacular seam (ADR 0008): a view and its ``AutoSchema`` per endpoint.

The view is made as spectacular's generator makes it; every private
spectacular API frisian_mcp relies on is called from this module only.
"""

from __future__ import annotations

import contextlib
import inspect
import logging
import types
from collections.abc import Callable, Mapping
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
from rest_framework.versioning import NamespaceVersioning

from frisian_mcp.exceptions import HostError, host_call
from frisian_mcp.jsonschema import parameter_schema
from frisian_mcp.routing import pinned_version
from frisian_mcp.types import Endpoint

__all__ = [
    "FilterSchemas",
    "components",
    "declared_request",
    "excluded",
    "filter_sets",
    "grows_filters",
    "guessed_request",
    "inspector",
    "instance_filters",
    "live_filters",
    "make_view",
    "pagination_parameters",
    "parameters",
    "serializer",
]

logger = logging.getLogger("frisian_mcp")

_PLAIN_EXCLUSION = (None, AutoSchema.is_excluded)


class FilterSchemas(dict[str, Any]):
    """``{name: JSON schema}`` of filters; a list for ``joined`` ones is sent
    comma-joined (``explode: false``), else one pair per value."""

    joined: frozenset[str] = frozenset()


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
    and the filters read from it are not lost. The host's code it runs
    raises :class:`HostError`.
    """
    generator = generator or SchemaGenerator()
    view: Any = host_call(generator.create_view, endpoint.callback, endpoint.method)
    version_param = getattr(view.versioning_class, "version_param", None)
    placeholders = {
        name: PLACEHOLDER for name in endpoint.path_variables if name != version_param
    }
    view.kwargs = {**placeholders, **(path_kwargs or {}), **endpoint.fixed_kwargs}
    request = view.request = host_call(
        spectacular_settings.GET_MOCK_REQUEST,
        *(endpoint.method, endpoint.path, view, None),
    )
    # What APIView.initial() sets before any handler runs.
    negotiated = host_call(view.perform_content_negotiation, request, force=True)
    request.accepted_renderer, request.accepted_media_type = negotiated
    versioning = view.versioning_class
    version = _version_of(endpoint, versioning) if versioning else None
    if (
        version
        and is_versioning_supported(versioning)
        and not issubclass(versioning, NamespaceVersioning)
    ):
        # Sets what the scheme reads: kwargs, or the accepted media type.
        host_call(
            modify_for_versioning, [], endpoint.method, endpoint.path, view, version
        )
    request.version = version
    request.versioning_scheme = host_call(versioning) if versioning else None
    _give_serializer_methods(view)
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
            auto = inspector(view, endpoint, generator, "^/")
            return bool(host_call(auto.is_excluded))
        except HostError:
            return False  # building its schema reports the failure


def _version_of(endpoint: Endpoint, versioning: Any) -> str | None:
    """The API version a request to ``endpoint`` carries, as DRF would find it."""
    if issubclass(versioning, NamespaceVersioning):
        scheme = host_call(versioning)
        found = (v for v in endpoint.namespace.split(":") if v)
        allowed = (v for v in found if host_call(scheme.is_allowed_version, v))
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
    auto = host_call(getattr, view, "schema")  # DEFAULT_SCHEMA_CLASS is made here
    if not isinstance(auto, AutoSchema):
        # A project whose DEFAULT_SCHEMA_CLASS is not spectacular's.
        auto = view.schema = AutoSchema()
    auto.registry = ComponentRegistry()
    auto.path = host_call(generator.coerce_path, endpoint.path, endpoint.method, view)
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
    declared = host_call(lambda: force_instance(auto.get_request_serializer()))
    inferred = host_call(lambda: force_instance(auto._get_serializer()))
    return type(declared) is not type(inferred)


def guessed_request(auto: AutoSchema) -> bool:
    """Whether spectacular guessed the action's body (``_get_serializer()``).

    A probe in the guess's place shows whether ``@extend_schema(request=...)``
    (even of the guessed class) or a schema class's own method answers.
    """
    if auto.__class__.get_request_serializer is AutoSchema.get_request_serializer:
        return True
    probe = object()
    auto._get_serializer = lambda: probe  # type: ignore[method-assign]
    try:
        return host_call(auto.get_request_serializer) is probe
    except HostError:
        return True  # a schema class that reads the guess's fields
    finally:
        del auto._get_serializer


def _give_serializer_methods(view: Any) -> None:
    """Give a plain view with a ``serializer_class`` GenericAPIView's methods.

    Host schema classes call ``get_serializer_class()`` on every view, and
    spectacular hands such a view's class, not an instance, to the
    host's ``get_request_serializer``. REST serves the view as it is; the
    throwaway view only answers the schema's questions.
    """
    if isinstance(view, GenericAPIView) or not getattr(view, "serializer_class", None):
        return
    for name in ("get_serializer_class", "get_serializer", "get_serializer_context"):
        if getattr(view, name, None) is None:
            method = getattr(GenericAPIView, name)
            setattr(view, name, types.MethodType(method, view))


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
        found = host_call(lambda: force_instance(build()))
    except HostError:
        own = getattr(view, "frisian_own_context", None)
        if own is None:
            raise
        view.get_serializer_context = own
        found = host_call(lambda: force_instance(build()))
    if found is None and callable(getattr(view, "get_serializer", None)):
        # spectacular turns the host's failure into None and an error it
        # prints (silenced here); raise it again so it is reported (W003).
        host_call(view.get_serializer)
    return found


def parameters(auto: AutoSchema) -> list[dict[str, Any]]:
    """The operation's parameters, host ``@extend_schema`` and filters applied.

    The renderer's ``format`` override is left out: frisian_mcp renders the
    answer itself, and any other format only yields 406. A range filter's
    list (django-filter's ``BaseRangeFilter``) holds exactly its pair.
    """
    renderer_format = host_call(auto._get_format_parameters)
    found = [p for p in host_call(auto._get_parameters) if isinstance(p, dict)]
    ranges: set[str] = set()
    if any(p.get("explode") is False for p in found):  # CSV filters: any ranges?
        with contextlib.suppress(HostError):  # then no pair is known
            sets = filter_sets(auto.view)
            ranges = {n for _, cls in sets for n in _ranges(cls.base_filters)}
    return [_pair(p, ranges) for p in found if p not in renderer_format]


def _ranges(filters: Mapping[str, Any]) -> set[str]:
    """The names of django-filter ``BaseRangeFilter``\\ s, read ``a,b``."""
    try:
        from django_filters.filters import BaseRangeFilter
    except ImportError:  # django-filter is optional
        return set()
    return {name for name, f in filters.items() if isinstance(f, BaseRangeFilter)}


def _pair(parameter: dict[str, Any], ranges: set[str]) -> dict[str, Any]:
    """A range filter's parameter takes a list of exactly two values."""
    schema = parameter.get("schema")
    if parameter.get("name") not in ranges or not isinstance(schema, dict):
        return parameter
    return {**parameter, "schema": {**schema, "minItems": 2, "maxItems": 2}}


def pagination_parameters(auto: AutoSchema) -> set[str]:
    """The names of the view's own paging query parameters."""
    return {str(p.get("name")) for p in host_call(auto._get_pagination_parameters)}


def filter_sets(view: Any) -> list[tuple[Any, type[Any]]]:
    """``(backend, filter-set class)`` per filter backend that builds filter sets.

    A backend builds them when it has django-filter's ``get_filterset_class``
    and ``get_filterset``.
    """
    found: list[tuple[Any, type[Any]]] = []
    backends = getattr(view, "filter_backends", None) or ()
    queryset = host_call(view.get_queryset) if backends else None
    for backend in (host_call(b) if isinstance(b, type) else b for b in backends):
        if not callable(getattr(backend, "get_filterset", None)):
            continue
        cls = host_call(backend.get_filterset_class, view, queryset)
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
    queryset = host_call(view.get_queryset)
    model = getattr(queryset, "model", None)
    for backend, cls in filter_sets(view):
        if not grows_filters(cls):
            continue
        instance = host_call(backend.get_filterset, view.request, queryset, view)
        extension = host_call(OpenApiFilterExtension.get_match, backend)
        resolve = getattr(extension, "resolve_filter_field", None)
        added = host_call(getattr, instance, "filters")
        ranges = _ranges(added)
        for name, one in added.items():
            if name in cls.base_filters:
                continue
            found = resolve and host_call(resolve, auto, model, cls, name, one)
            plain = {"name": name, "in": "query", "schema": {"type": "string"}}
            parameters.extend(_pair(p, ranges) for p in found or [plain])
    return parameters


def live_filters(
    endpoint: Endpoint,
    path_prefix: str,
    user: Any,
    auth: Any,
    path_kwargs: Mapping[str, str] | None = None,
) -> FilterSchemas:
    """The filters filter-set instances add, now.

    Built per call on a view whose request carries the caller and whose
    kwargs carry the call's path values (see docs/listing.md); none when
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
        except HostError as exc:
            logger.warning(
                "frisian_mcp: the filter sets of %s %s failed: %s",
                *(endpoint.method, endpoint.path, type(exc.error).__name__),
            )
            return FilterSchemas()
    schemas = FilterSchemas(
        (str(p.get("name")), parameter_schema(p, known, {})) for p in found
    )
    schemas.joined = frozenset(
        str(p.get("name")) for p in found if p.get("explode") is False
    )
    return schemas
