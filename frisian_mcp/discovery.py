"""Discovery: find the project's DRF endpoints and the action behind each.

Top-down: a discovery backend walks URL patterns and yields one
:class:`Endpoint` per (URL pattern, HTTP method) of a DRF view: router and
hand-mapped viewset routes, ``@action`` routes, and generic/plain
``APIView``\\ s that have a serializer. It also proposes each endpoint's tool
name. The registry turns endpoints into tools; this module knows nothing about
schemas or HTTP requests.

The backend is chosen by ``FRISIAN_MCP["DISCOVERY_BACKEND"]``; subclass
:class:`BaseDiscoveryBackend` (or :class:`URLConfDiscoveryBackend`) to plug in
an allow-list, several URLconfs or another naming scheme (docs/extending.md).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework import mixins
from rest_framework.generics import GenericAPIView
from rest_framework.schemas.generators import EndpointEnumerator
from rest_framework.versioning import URLPathVersioning
from rest_framework.views import APIView

from frisian_mcp.conf import mcp_settings

__all__ = [
    "BaseDiscoveryBackend",
    "Endpoint",
    "URLConfDiscoveryBackend",
    "get_discovery_backend",
    "viewset_option",
]

#: CRUD action names a viewset router maps, in the order tools are listed.
STANDARD_ACTIONS = (
    "list",
    "retrieve",
    "create",
    "update",
    "partial_update",
    "destroy",
)

# API documentation views (the OpenAPI document, Swagger UI) are not tools.
_DOC_VIEW_MODULES = ("drf_spectacular.", "rest_framework.schemas.", "drf_yasg.")
_METHOD_ORDER = {"GET": 0, "POST": 1, "PUT": 2, "PATCH": 3, "DELETE": 4}
_PATH_VARIABLE = re.compile(r"{([^{}]+)}")
_UNSAFE_NAME_CHARS = re.compile(r"[^A-Za-z0-9_-]+")

# What a non-viewset generic view's HTTP method does, by the mixin providing it.
_GENERIC_VIEW_ACTIONS: tuple[tuple[str, type[Any], str], ...] = (
    ("GET", mixins.ListModelMixin, "list"),
    ("GET", mixins.RetrieveModelMixin, "retrieve"),
    ("POST", mixins.CreateModelMixin, "create"),
    ("PUT", mixins.UpdateModelMixin, "update"),
    ("PATCH", mixins.UpdateModelMixin, "partial_update"),
    ("DELETE", mixins.DestroyModelMixin, "destroy"),
)


@dataclass(frozen=True)
class Endpoint:
    """One HTTP method of one URL pattern served by a DRF view.

    ``path`` is the URL path with variables in braces (``/api/contacts/{pk}/``);
    variables fixed by discovery (an expanded API version) are already filled
    in and listed in ``fixed_kwargs``. ``action`` is the viewset action
    (``list``, ``retrieve``, an ``@action`` method name...) or, for a plain
    ``APIView``, the CRUD verb its mixin implements, else the lowercase method.
    """

    path: str
    path_regex: str
    method: str
    callback: Callable[..., Any]
    action: str
    namespace: str = ""
    url_name: str | None = None
    fixed_kwargs: Mapping[str, str] = field(default_factory=dict)
    handler: str = ""

    @property
    def handler_name(self) -> str:
        """The view method that serves the endpoint (``audit`` for ``audit_get``)."""
        return self.handler or self.action

    @property
    def view_class(self) -> type[APIView]:
        """The DRF view class behind the callback."""
        cls: type[APIView] = self.callback.cls  # type: ignore[attr-defined]
        return cls

    @property
    def initkwargs(self) -> dict[str, Any]:
        """Keyword arguments ``as_view()`` received (router extras included)."""
        return dict(getattr(self.callback, "initkwargs", {}))

    @property
    def actions(self) -> dict[str, str] | None:
        """The viewset's method-to-action map, or ``None`` for a plain view."""
        actions = getattr(self.callback, "actions", None)
        return dict(actions) if actions is not None else None

    @property
    def is_viewset(self) -> bool:
        """Whether the callback is a viewset mapping."""
        return self.actions is not None

    @property
    def path_variables(self) -> tuple[str, ...]:
        """Names of the URL variables still open in ``path``, in order."""
        return tuple(_PATH_VARIABLE.findall(self.path))

    @property
    def is_detail(self) -> bool:
        """Whether the endpoint addresses one object (it has URL variables)."""
        lookup = getattr(self.view_class, "lookup_url_kwarg", None) or getattr(
            self.view_class, "lookup_field", "pk"
        )
        return lookup in self.path_variables or self.initkwargs.get("detail") is True

    @property
    def sort_key(self) -> tuple[str, int, str]:
        """Deterministic order: path, then method, then action."""
        return (self.path, _METHOD_ORDER.get(self.method, 9), self.action)


class BaseDiscoveryBackend:
    """Contract of a discovery backend.

    Subclasses implement :meth:`get_endpoints`; they may override
    :meth:`get_tool_name` to name tools differently. Both must be
    deterministic: the same project gives the same endpoints and names in
    every process, so ``tools/list`` is stable across workers and restarts.
    """

    def get_endpoints(self) -> list[Endpoint]:
        """Return every endpoint to expose, in a deterministic order."""
        raise NotImplementedError(
            f"{type(self).__name__} must implement get_endpoints()."
        )

    def get_path_prefix(self, endpoints: Iterable[Endpoint]) -> str:
        """Return the regex of the path prefix tool names leave out.

        ``FRISIAN_MCP["PATH_PREFIX"]`` when set; otherwise the longest run of
        leading static path segments shared by every endpoint, never so long
        that an endpoint loses its last static segment.
        """
        configured = mcp_settings.PATH_PREFIX
        if configured is not None:
            return (
                str(configured)
                if str(configured).startswith("^")
                else "^" + str(configured)
            )
        segment_lists = [_static_head(e.path) for e in endpoints]
        if not segment_lists:
            return "^/"
        common: list[str] = []
        for parts in zip(*segment_lists, strict=False):
            if len(set(parts)) != 1:
                break
            common.append(parts[0])
        common = common[: max(0, min(len(s) for s in segment_lists) - 1)]
        return "^/" + "".join(re.escape(s) + "/" for s in common)

    def get_tool_name(self, endpoint: Endpoint, path_prefix: str) -> str:
        """Propose a tool name: static path segments and the action.

        ``/api/contacts/`` GET becomes ``contacts__list``,
        ``/api/dcim/sites/{id}/`` PATCH ``dcim__sites__partial_update`` and an
        ``@action`` ``send_email`` on contacts ``contacts__send_email``. A
        viewset's ``mcp_name`` attribute replaces the path part. The registry
        makes names valid and unique.
        """
        path = re.sub(path_prefix, "/", endpoint.path, count=1, flags=re.IGNORECASE)
        segments = [
            s
            for s in path.strip("/").split("/")
            if s and not _PATH_VARIABLE.fullmatch(s)
        ]
        action = endpoint.action
        handler = getattr(endpoint.view_class, endpoint.handler_name, None)
        url_path = getattr(handler, "url_path", None) if endpoint.is_viewset else None
        if url_path:
            tail = [
                s
                for s in str(url_path).strip("/").split("/")
                if not _PATH_VARIABLE.fullmatch(s)
            ]
            if tail and segments[-len(tail) :] == tail:
                segments = segments[: -len(tail)]
        resource = viewset_option(endpoint.view_class, "name")
        parts = [str(resource)] if resource else [_safe_segment(s) for s in segments]
        if not parts:
            parts = [_safe_segment(_snake(endpoint.view_class.__name__))]
        return "__".join([*parts, _safe_segment(action)])


class URLConfDiscoveryBackend(BaseDiscoveryBackend):
    """Walk a URLconf (``FRISIAN_MCP["URLCONF"]`` or ``ROOT_URLCONF``).

    Every ``URLPattern`` whose callback is a DRF view becomes one endpoint per
    HTTP method it serves. Namespaced and versioned mounts stay distinct: their
    paths differ, and a ``URLPathVersioning`` version variable is expanded
    into one endpoint per allowed version. Views with ``schema = None`` (hidden
    from API docs), format-suffix duplicates and plain ``APIView``\\ s without a
    serializer are skipped, and so are API documentation views
    (drf-spectacular's, DRF's and drf-yasg's schema views).
    """

    def get_urlconf(self) -> str:
        """Return the dotted path of the URLconf to walk."""
        return str(mcp_settings.URLCONF or settings.ROOT_URLCONF)

    def get_endpoints(self) -> list[Endpoint]:
        """Walk the URLconf and return its DRF endpoints, sorted."""
        resolver = get_resolver(self.get_urlconf())
        found: dict[tuple[str, str], Endpoint] = {}
        for endpoint in self._walk(resolver.url_patterns, "", ""):
            found.setdefault((endpoint.path, endpoint.method), endpoint)
        return sorted(found.values(), key=lambda e: e.sort_key)

    def should_include(self, path: str, callback: Callable[..., Any]) -> bool:
        """Whether a URL pattern's callback is an endpoint to expose."""
        cls = getattr(callback, "cls", None)
        if not (isinstance(cls, type) and issubclass(cls, APIView)):
            return False
        if viewset_option(cls, "exclude") or cls.__module__.startswith(
            _DOC_VIEW_MODULES
        ):
            return False
        if not EndpointEnumerator().should_include_endpoint(path, callback):
            return False
        if getattr(callback, "actions", None) is not None:
            return True
        return _has_serializer(cls)

    def _walk(
        self, patterns: Iterable[Any], prefix: str, namespace: str
    ) -> Iterator[Endpoint]:
        enumerator = EndpointEnumerator()
        for pattern in patterns:
            regex = prefix + str(pattern.pattern)
            if isinstance(pattern, URLResolver):
                inner = namespace
                if pattern.namespace:
                    inner = (
                        f"{namespace}:{pattern.namespace}"
                        if namespace
                        else pattern.namespace
                    )
                yield from self._walk(pattern.url_patterns, regex, inner)
            elif isinstance(pattern, URLPattern):
                path = enumerator.get_path_from_regex(regex).replace("\\.", ".")
                if not path.startswith("/"):
                    path = "/" + path
                if not self.should_include(path, pattern.callback):
                    continue
                allowed = viewset_option(pattern.callback.cls, "actions")  # type: ignore[attr-defined]
                for method, action, handler in _methods_and_actions(pattern.callback):
                    if (
                        allowed is not None
                        and action not in allowed
                        and handler not in allowed
                    ):
                        continue
                    base = Endpoint(
                        path=path,
                        path_regex=regex,
                        method=method,
                        callback=pattern.callback,
                        action=action,
                        namespace=namespace,
                        url_name=pattern.name,
                        handler=handler,
                    )
                    yield from _expand_versions(base)


#: The per-viewset options, as ``mcp_<key>`` attributes or settings entries.
VIEWSET_OPTION_KEYS = frozenset({"name", "exclude", "actions", "group"})


def viewset_option(view_class: type[Any], key: str) -> Any:
    """A per-viewset option: ``mcp_<key>`` on the class, else the setting.

    ``FRISIAN_MCP["VIEWSET_OPTIONS"]`` maps dotted class paths to
    ``{"name", "exclude", "actions", "group"}`` for viewsets a project cannot
    edit (third-party apps). The class attribute wins.
    """
    value = getattr(view_class, f"mcp_{key}", None)
    if value is not None:
        return value
    options = mcp_settings.VIEWSET_OPTIONS or {}
    entry = options.get(f"{view_class.__module__}.{view_class.__qualname__}")
    return entry.get(key) if isinstance(entry, Mapping) else None


def get_discovery_backend() -> BaseDiscoveryBackend:
    """Instantiate the backend named by ``FRISIAN_MCP["DISCOVERY_BACKEND"]``."""
    backend_class = mcp_settings.DISCOVERY_BACKEND
    backend = backend_class()
    if not isinstance(backend, BaseDiscoveryBackend):
        from frisian_mcp.exceptions import ConfigurationError

        raise ConfigurationError(
            "FRISIAN_MCP['DISCOVERY_BACKEND'] must name a subclass of "
            "frisian_mcp.discovery.BaseDiscoveryBackend."
        )
    return backend


def _methods_and_actions(callback: Callable[..., Any]) -> list[tuple[str, str, str]]:
    """(method, tool action, view handler) triples served by ``callback``."""
    actions: Mapping[str, str] | None = getattr(callback, "actions", None)
    if actions is not None:
        pairs = [
            (method.upper(), action)
            for method, action in actions.items()
            if method.upper() in _METHOD_ORDER
        ]
        # One action mapped to several methods needs one tool per method.
        counts: dict[str, int] = {}
        for _, action in pairs:
            counts[action] = counts.get(action, 0) + 1
        return [
            (
                method,
                action if counts[action] == 1 else f"{action}_{method.lower()}",
                action,
            )
            for method, action in pairs
        ]
    cls = callback.cls  # type: ignore[attr-defined]
    view = cls(**getattr(callback, "initkwargs", {}))
    result = []
    for method in view.allowed_methods:
        if method not in _METHOD_ORDER:
            continue
        action = method.lower()
        for verb, mixin, name in _GENERIC_VIEW_ACTIONS:
            if verb == method and issubclass(cls, mixin) and hasattr(cls, name):
                action = name
                break
        result.append((method, action, method.lower()))
    return result


def _expand_versions(endpoint: Endpoint) -> Iterator[Endpoint]:
    """Fill a URLPathVersioning variable with each allowed version."""
    versioning = getattr(endpoint.view_class, "versioning_class", None)
    if not (isinstance(versioning, type) and issubclass(versioning, URLPathVersioning)):
        yield endpoint
        return
    param = versioning.version_param
    if param not in endpoint.path_variables:
        yield endpoint
        return
    versions = list(versioning.allowed_versions or [])
    if not versions and versioning.default_version:
        versions = [versioning.default_version]
    if not versions:
        yield endpoint
        return
    for version in versions:
        yield Endpoint(
            path=endpoint.path.replace("{" + param + "}", str(version)),
            path_regex=endpoint.path_regex,
            method=endpoint.method,
            callback=endpoint.callback,
            action=endpoint.action,
            namespace=endpoint.namespace,
            url_name=endpoint.url_name,
            fixed_kwargs={**endpoint.fixed_kwargs, param: str(version)},
            handler=endpoint.handler,
        )


def _has_serializer(cls: type[APIView]) -> bool:
    if issubclass(cls, GenericAPIView):
        return True
    if getattr(cls, "serializer_class", None) is not None:
        return True
    if callable(getattr(cls, "get_serializer", None)) or callable(
        getattr(cls, "get_serializer_class", None)
    ):
        return True
    # @extend_schema on a handler declares its request and response shapes.
    return any(
        "schema" in (getattr(getattr(cls, method, None), "kwargs", None) or {})
        for method in ("get", "post", "put", "patch", "delete")
    )


def _static_head(path: str) -> list[str]:
    """The leading static segments of a path, up to the first variable."""
    head = []
    for segment in path.strip("/").split("/"):
        if not segment or _PATH_VARIABLE.search(segment):
            break
        head.append(segment)
    return head


def _safe_segment(text: str) -> str:
    return _UNSAFE_NAME_CHARS.sub("_", text).strip("_") or "x"


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()
