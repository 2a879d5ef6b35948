"""django-filter filter sets behind a view (ADR 0011).

Which filter sets a view's backends build, which of them add filters per
instance (built per call, on the caller's request), and which filters take
a pair (``BaseRangeFilter``: ``a,b``).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Mapping
from typing import Any

from drf_spectacular.extensions import OpenApiFilterExtension
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.openapi import AutoSchema

from frisian_mcp.exceptions import HostError, host_call
from frisian_mcp.jsonschema import parameter_schema
from frisian_mcp.spectacular import building, components, inspector, make_view
from frisian_mcp.types import Endpoint

__all__ = [
    "FilterSchemas",
    "filter_sets",
    "grows_filters",
    "instance_filters",
    "live_filters",
    "paired",
]

logger = logging.getLogger("frisian_mcp")


class FilterSchemas(dict[str, Any]):
    """``{name: JSON schema}`` of filters; a list for ``joined`` ones is sent
    comma-joined (``explode: false``), else one pair per value."""

    joined: frozenset[str] = frozenset()


def paired(view: Any, found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``found`` parameters, a range filter's list (django-filter's
    ``BaseRangeFilter``) holding exactly its pair."""
    ranges: set[str] = set()
    if any(p.get("explode") is False for p in found):  # CSV filters: any ranges?
        with contextlib.suppress(HostError):  # then no pair is known
            sets = filter_sets(view)
            ranges = {n for _, cls in sets for n in _ranges(cls.base_filters)}
    return [_pair(p, ranges) for p in found]


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


def filter_sets(view: Any) -> list[tuple[Any, type[Any]]]:
    """``(backend, filter-set class)`` per backend with django-filter's
    ``get_filterset_class`` and ``get_filterset``."""
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
    """Whether a filter set may add filters per instance: a class of its own
    (not django-filter's) defines ``__init__``."""
    return any(
        "__init__" in vars(base)
        for base in cls.__mro__
        if base is not object and not base.__module__.startswith("django_filters")
    )


def instance_filters(view: Any, auto: AutoSchema) -> list[dict[str, Any]]:
    """OpenAPI parameters of the filters only a filter-set instance has, built
    as the backend builds them and typed by its spectacular extension."""
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
    with building():
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
