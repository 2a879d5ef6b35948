"""The drf-spectacular seam (ADR 0008): a view and its ``AutoSchema`` per endpoint.

The view is made as spectacular's generator makes it; every private
spectacular API frisian_mcp relies on is called from this module only.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import logging
import threading
import types
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from drf_spectacular.drainage import GENERATOR_STATS
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.plumbing import (
    ComponentRegistry,
    force_instance,
    is_serializer,
    is_versioning_supported,
    modify_for_versioning,
)
from drf_spectacular.settings import SpectacularSettings, spectacular_settings
from drf_spectacular.utils import OpenApiParameter
from rest_framework.generics import GenericAPIView
from rest_framework.schemas.inspectors import DefaultSchema
from rest_framework.settings import api_settings
from rest_framework.versioning import NamespaceVersioning

from frisian_mcp.exceptions import HostError, host_call
from frisian_mcp.routing import pinned_version
from frisian_mcp.types import Endpoint, dotted

__all__ = [
    "building",
    "caller_serializer",
    "chooses_serializer",
    "chosen_for_action",
    "chosen_serializer",
    "components",
    "declared_parameters",
    "declared_request",
    "excluded",
    "guessed_request",
    "inferred_request",
    "inspector",
    "make_view",
    "pagination_parameters",
    "parameters",
    "serializer",
]

logger = logging.getLogger("frisian_mcp")

_PLAIN_EXCLUSION = (None, AutoSchema.is_excluded)


#: A path variable's value in a schema's mock view: a valid int and str.
PLACEHOLDER = "1"

#: spectacular's settings while a tool schema is built (ADR 0041): request
#: and response components apart, in JSON Schema (OAS 3.1). The host's
#: schema views keep its own.
BUILD_SETTINGS: dict[str, Any] = {
    "COMPONENT_SPLIT_REQUEST": True,
    "OAS_VERSION": "3.1.0",
}
_building = threading.local()


class _ThreadSettings(SpectacularSettings):
    """spectacular's settings, :data:`BUILD_SETTINGS` in a thread that builds."""

    def __getattribute__(self, name: str) -> Any:
        if name in BUILD_SETTINGS and getattr(_building, "on", False):
            return BUILD_SETTINGS[name]
        return super().__getattribute__(name)


@contextlib.contextmanager
def building() -> Iterator[None]:
    """Build tool schemas in this thread: :data:`BUILD_SETTINGS`, quietly.

    ``patched_settings`` would patch the one settings object for every
    thread, the host's schema views' too.
    """
    if type(spectacular_settings) is SpectacularSettings:
        spectacular_settings.__class__ = _ThreadSettings
    before, _building.on = getattr(_building, "on", False), True
    try:
        with GENERATOR_STATS.silence():
            yield
    finally:
        _building.on = before


def make_view(
    endpoint: Endpoint,
    generator: SchemaGenerator | None = None,
    path_kwargs: Mapping[str, str] | None = None,
) -> Any:
    """A throwaway view of ``endpoint`` as drf-spectacular makes it.

    Its mock request carries what DRF's ``initial()`` sets; its context is
    DRF's base one, ``get_queryset`` memoized, and each path variable has a
    value (``path_kwargs``, else a placeholder) so that a nested route's
    queryset builds. The host's code it runs raises :class:`HostError`.
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


def chooses_serializer(view_class: type[Any]) -> bool:
    """Whether the view picks its serializer per request (its own method)."""
    own = getattr(view_class, "get_serializer_class", None)
    return own is not None and own is not GenericAPIView.get_serializer_class


def chosen_serializer(endpoint: Endpoint, view: Any) -> str | None:
    """The serializer class a view chose itself for a body or a record."""
    body = endpoint.method in ("POST", "PUT", "PATCH")
    if not (body or endpoint.row.result in ("page", "record")):
        return None
    if not chooses_serializer(endpoint.view_class):
        return None
    try:
        found = host_call(view.get_serializer_class)
    except HostError:
        return None  # the body or the record reports the failure
    return dotted(found) if isinstance(found, type) else None


def caller_serializer(endpoint: Endpoint, user: Any, auth: Any) -> Any:
    """What the view's ``get_serializer_class()`` gives one caller (ADR 0031).

    Asked of the view a schema is built on, its request carrying the caller,
    and no longer drf-spectacular's fake view: a ``swagger_fake_view``
    branch answers the API's documentation, not a caller. Raises
    :class:`HostError`.
    """
    with GENERATOR_STATS.silence():
        view = make_view(endpoint)
    vars(view).pop("swagger_fake_view", None)
    view.request.user, view.request.auth = user, auth
    return host_call(view.get_serializer_class)


def excluded(endpoint: Endpoint) -> bool:
    """Whether the view leaves ``endpoint`` out of its schema (``exclude=True``).

    Asked once, at discovery: an excluded endpoint is no tool, and its
    schema is never built.
    """
    cls = endpoint.view_class
    handler = getattr(cls, endpoint.handler_name, None)
    own = inspect.getattr_static(cls, "schema", None)
    candidates = (
        # DRF's descriptor stands for DEFAULT_SCHEMA_CLASS.
        api_settings.DEFAULT_SCHEMA_CLASS
        if isinstance(own, DefaultSchema)
        else type(own),
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
        except HostError:
            return False  # building its schema fails the same way, and says so
    try:
        return bool(host_call(auto.is_excluded))
    except HostError as exc:  # when in doubt, out, as the build had it
        logger.warning(
            "frisian_mcp: left out %s (%s): its is_excluded() failed: %s",
            *(dotted(cls), endpoint.path, type(exc.error).__name__),
        )
        return True


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
    return type(declared) is not type(inferred_request(auto))


def inferred_request(auto: AutoSchema) -> Any:
    """The serializer the view itself gives (``get_serializer()``), if any."""
    return host_call(lambda: force_instance(auto._get_serializer()))


def chosen_for_action(view: Any, auto: AutoSchema) -> bool:
    """Whether the view's serializer is one it picks for its action (the
    host's declaration: ``@action(serializer_class=...)``, or its
    ``get_serializer_class()``), not the default an unknown action gets."""
    action, own = getattr(view, "action", None), type(inferred_request(auto))
    if action is None:
        return False
    handler = getattr(type(view), action, None)
    if (getattr(handler, "kwargs", None) or {}).get("serializer_class") is own:
        return True
    view.action = "frisian_mcp_no_such_action"
    try:
        return own is not type(inferred_request(auto))
    finally:
        view.action = action


def declared_parameters(auto: AutoSchema) -> bool:
    """Whether ``@extend_schema(parameters=...)`` declares query parameters."""
    return any(
        is_serializer(p)
        or (isinstance(p, OpenApiParameter) and p.location == OpenApiParameter.QUERY)
        for p in host_call(auto.get_override_parameters)
    )


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
    """Give a plain view with a ``serializer_class`` GenericAPIView's methods,
    which host schema classes call on every view (the throwaway view only)."""
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
        view.get_queryset = functools.cache(get_queryset)


def serializer(view: Any, build: Callable[[], Any]) -> Any:
    """The serializer ``build()`` gives: with DRF's base context, else the view's."""
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
    answer itself, and any other format only yields 406.
    """
    renderer_format = host_call(auto._get_format_parameters)
    found = (p for p in host_call(auto._get_parameters) if isinstance(p, dict))
    return [p for p in found if p not in renderer_format]


def pagination_parameters(auto: AutoSchema) -> set[str]:
    """The names of the view's own paging query parameters."""
    return {str(p.get("name")) for p in host_call(auto._get_pagination_parameters)}
