"""Discovery: find the project's DRF endpoints and name their tools.

A backend (``FRISIAN_MCP["DISCOVERY_BACKEND"]``) walks the URLconf and yields
one :class:`~frisian_mcp.types.Endpoint` per URL pattern and HTTP method of a
DRF view. Names are made valid (``^[A-Za-z0-9_-]{1,64}$``) and unique here.
"""

from __future__ import annotations

import fnmatch
import hashlib
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import replace
from typing import Any

from django.conf import settings
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.generics import GenericAPIView
from rest_framework.schemas.generators import EndpointEnumerator
from rest_framework.versioning import URLPathVersioning
from rest_framework.views import APIView

from frisian_mcp.conf import mcp_settings
from frisian_mcp.contracts import BaseDiscoveryBackend, viewset_option
from frisian_mcp.exceptions import HostError, host_call
from frisian_mcp.types import (
    ACTIONS,
    METHOD_ORDER,
    UNSAFE_NAME,
    VIEWSET_OPTION_KEYS,
    Endpoint,
    SchemaProblem,
)

__all__ = [
    "TOOL_NAME_PATTERN",
    "VIEWSET_OPTION_KEYS",
    "BaseDiscoveryBackend",
    "Endpoint",
    "URLConfDiscoveryBackend",
    "assign_names",
    "declared_query_parameters",
    "get_discovery_backend",
    "query_parameter",
    "selected",
    "valid_name",
    "viewset_option",
]

#: Tool names every common client accepts.
TOOL_NAME_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,64}$")

# API documentation views (the OpenAPI document, Swagger UI) are not tools.
_DOC_VIEW_MODULES = ("drf_spectacular.", "rest_framework.schemas.", "drf_yasg.")
_MAX_NAME = 64


class URLConfDiscoveryBackend(BaseDiscoveryBackend):
    """Walk ``FRISIAN_MCP["URLCONF"]`` or ``ROOT_URLCONF`` for DRF views.

    Namespaced and versioned mounts stay distinct; a ``URLPathVersioning``
    variable becomes one endpoint per allowed version. Views hidden from API
    docs (``schema = None``), format-suffix duplicates, documentation views
    and plain ``APIView``\\ s without a serializer are skipped. A view whose
    methods cannot be read is left out, as one of the ``problems``.
    """

    def get_urlconf(self) -> str:
        """The dotted path of the URLconf to walk."""
        return mcp_settings.URLCONF or str(settings.ROOT_URLCONF)

    def get_endpoints(self) -> list[Endpoint]:
        """Walk the URLconf and return its DRF endpoints, sorted."""
        found: dict[tuple[str, str], Endpoint] = {}
        resolver = get_resolver(self.get_urlconf())
        # Importing the URLconf runs the host's code (HostError: check E008).
        patterns = host_call(getattr, resolver, "url_patterns")
        for endpoint in self._walk(patterns, "", ""):
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
        return getattr(callback, "actions", None) is not None or _has_serializer(cls)

    def _walk(
        self, patterns: Iterable[Any], prefix: str, namespace: str
    ) -> Iterator[Endpoint]:
        enumerator = EndpointEnumerator()
        for pattern in patterns:
            regex = prefix + str(pattern.pattern)
            if isinstance(pattern, URLResolver):
                inner = ":".join(filter(None, (namespace, pattern.namespace)))
                yield from self._walk(pattern.url_patterns, regex, inner)
                continue
            if not isinstance(pattern, URLPattern):
                continue
            path = "/" + enumerator.get_path_from_regex(regex).replace(
                "\\.", "."
            ).lstrip("/")
            if not self.should_include(path, pattern.callback):
                continue
            cls = pattern.callback.cls  # type: ignore[attr-defined]
            try:
                served = _methods_and_actions(pattern.callback)
            except HostError as exc:
                self.problems.append(
                    SchemaProblem.of(cls, "every action", path, exc.error, True)
                )
                continue
            allowed = viewset_option(cls, "actions")
            for method, action, handler in served:
                if allowed is not None and not {action, handler} & set(allowed):
                    continue
                yield from _expand_versions(
                    Endpoint(
                        path=path,
                        path_regex=regex,
                        method=method,
                        callback=pattern.callback,
                        action=action,
                        namespace=namespace,
                        url_name=pattern.name,
                        handler=handler,
                    )
                )


def selected(name: str) -> bool:
    """Whether INCLUDE and EXCLUDE let the tool ``name`` through."""
    include, exclude = mcp_settings.INCLUDE, mcp_settings.EXCLUDE
    if include and not any(fnmatch.fnmatchcase(name, p) for p in include):
        return False
    return not any(fnmatch.fnmatchcase(name, p) for p in exclude)


def declared_query_parameters(endpoint: Endpoint) -> list[dict[str, Any]]:
    """The query parameters a viewset declares for its GET tools, as OpenAPI's.

    ``mcp_query_parameters`` (or VIEWSET_OPTIONS ``"query_parameters"``)
    maps a name to a JSON Schema type name, a JSON Schema, or an OpenAPI
    parameter object (``{"schema": ..., "explode": false}``). They join a
    list tool's ``filters`` or a tool's arguments, and replace the view's
    own declaration of the same name.
    """
    declared = viewset_option(endpoint.view_class, "query_parameters")
    if endpoint.method != "GET" or not isinstance(declared, Mapping):
        return []
    return [query_parameter(name, spec) for name, spec in declared.items()]


def query_parameter(name: object, spec: Any) -> dict[str, Any]:
    """One ``query_parameters`` entry as an OpenAPI query parameter."""
    spec = {"type": spec} if isinstance(spec, str) else dict(spec)
    parameter = spec if "schema" in spec else {"schema": spec}
    return {**parameter, "name": str(name), "in": "query"}


def get_discovery_backend() -> BaseDiscoveryBackend:
    """Instantiate the backend named by ``FRISIAN_MCP["DISCOVERY_BACKEND"]``."""
    backend: BaseDiscoveryBackend = mcp_settings.DISCOVERY_BACKEND()  # checked: E005
    return backend


def assign_names(
    proposals: Iterable[tuple[str, Endpoint]],
) -> tuple[dict[str, Endpoint], list[str]]:
    """Make proposed names valid and unique; return them and the clashes.

    Clashing proposals get the HTTP method appended, then an index in
    endpoint order; the clashes are reported by the system check.
    """
    groups: dict[str, list[Endpoint]] = {}
    for proposal, endpoint in proposals:
        groups.setdefault(valid_name(proposal), []).append(endpoint)
    # Unclashed names first, so a suffixed name never takes one of them.
    names = {p: found[0] for p, found in groups.items() if len(found) == 1}
    clashes = sorted(p for p, found in groups.items() if len(found) > 1)
    for proposal in clashes:
        endpoints = sorted(groups[proposal], key=lambda e: e.sort_key)
        methods = [e.method for e in endpoints]
        for index, endpoint in enumerate(endpoints, 1):
            candidate = valid_name(f"{proposal}_{endpoint.method.lower()}")
            if candidate in names or methods.count(endpoint.method) > 1:
                candidate = _free_name(proposal, index, names)
            names[candidate] = endpoint
    return dict(sorted(names.items())), clashes


def _free_name(proposal: str, index: int, taken: Mapping[str, Any]) -> str:
    """``proposal`` with the first free index from ``index`` on."""
    while (candidate := valid_name(f"{proposal}_{index}")) in taken:
        index += 1
    return candidate


def valid_name(name: str) -> str:
    """``name`` made of safe characters and at most 64 long (stable hash)."""
    name = UNSAFE_NAME.sub("_", name).strip("_") or "tool"
    if len(name) <= _MAX_NAME:
        return name
    digest = hashlib.sha256(name.encode()).hexdigest()[:8]
    _, _, action = name.rpartition("__")
    tail = f"_{digest}__{action}" if action and len(action) < 24 else f"_{digest}"
    return name[: _MAX_NAME - len(tail)].rstrip("_") + tail


def _methods_and_actions(callback: Callable[..., Any]) -> list[tuple[str, str, str]]:
    """(method, tool action, view handler) triples served by ``callback``."""
    actions: Mapping[str, str] | None = getattr(callback, "actions", None)
    if actions is not None:
        pairs = [
            (m.upper(), a) for m, a in actions.items() if m.upper() in METHOD_ORDER
        ]
        counts = [a for _, a in pairs]
        # One action mapped to several methods needs one tool per method.
        return [
            (m, a if counts.count(a) == 1 else f"{a}_{m.lower()}", a) for m, a in pairs
        ]
    cls = callback.cls  # type: ignore[attr-defined]
    view = host_call(cls, **getattr(callback, "initkwargs", {}))
    result = []
    for method in host_call(getattr, view, "allowed_methods"):
        if method not in METHOD_ORDER:
            continue
        action = next(
            (
                name
                for name, spec in ACTIONS.items()
                if spec.method == method
                and spec.mixin is not None
                and issubclass(cls, spec.mixin)
                # Generic views implement every stock action they mix in.
                and hasattr(cls, name)
            ),
            method.lower(),
        )
        result.append((method, action, method.lower()))
    return result


def _expand_versions(endpoint: Endpoint) -> Iterator[Endpoint]:
    """Fill a URLPathVersioning variable with each allowed version."""
    versioning = getattr(endpoint.view_class, "versioning_class", None)
    param = str(getattr(versioning, "version_param", ""))
    if not (
        isinstance(versioning, type)
        and issubclass(versioning, URLPathVersioning)
        and param in endpoint.path_variables
    ):
        yield endpoint
        return
    versions = list(versioning.allowed_versions or [])
    versions = versions or [v for v in [versioning.default_version] if v]
    if not versions:
        yield endpoint
    for version in versions:
        yield replace(
            endpoint,
            path=endpoint.path.replace("{" + param + "}", str(version)),
            fixed_kwargs={**endpoint.fixed_kwargs, param: str(version)},
        )


def _has_serializer(cls: type[APIView]) -> bool:
    if issubclass(cls, GenericAPIView) or any(
        getattr(cls, name, None) is not None
        for name in ("serializer_class", "get_serializer", "get_serializer_class")
    ):
        return True
    # @extend_schema on a handler declares its request and response shapes.
    return any(
        "schema" in (getattr(getattr(cls, method, None), "kwargs", None) or {})
        for method in ("get", "post", "put", "patch", "delete")
    )
