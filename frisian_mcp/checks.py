"""System checks for frisian_mcp's settings and tool surface.

Ids are ``frisian_mcp.E0xx`` (errors) and ``frisian_mcp.W0xx`` (warnings),
never reused; ``docs/checks.md`` lists every one with its fix. Building every
tool's schema is asked for (``check --deploy``, tag ``frisian_mcp_schemas``);
every ``manage.py`` command runs only the cheap checks (ADR 0015).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from django import urls
from django.conf import settings
from django.core import checks
from django.views import View
from rest_framework.authentication import BaseAuthentication

from frisian_mcp.bodies import declared_errors, guessed_warnings
from frisian_mcp.conf import (
    DEFAULTS,
    IMPORT_STRINGS,
    REMOVED_SETTINGS,
    SETTINGS_NAME,
    mcp_settings,
)
from frisian_mcp.discovery import VIEWSET_OPTION_KEYS
from frisian_mcp.exceptions import ConfigurationError, HostError, host_call

if TYPE_CHECKING:
    from frisian_mcp.registry import ToolRegistry
    from frisian_mcp.types import SchemaProblem

__all__ = ["check_schemas", "check_settings", "check_tools"]

_POSITIVE_INTS = (
    *("MAX_REQUEST_BYTES", "MAX_JSON_DEPTH", "MAX_BATCH_MESSAGES", "MAX_QUERY_LENGTH"),
    *("TOOLS_LIST_PAGE_SIZE", "PAGE_SIZE", "MAX_PAGE_SIZE", "DISPATCHER_THRESHOLD"),
    *("CONTINUATION_TOKEN_MAX_AGE", "CONFIRM_MAX_AGE"),
)
_CHOICES = {
    "TOOL_LAYOUT": ("auto", "flat", "dispatcher"),
    "DISPATCHER_GROUP_BY": ("app", "namespace", "path"),
    "INPUT_ERROR_STYLE": ("jsonrpc", "tool_result"),
    "UNMAPPED_FIELD_POLICY": ("RAISE", "WARN", "IGNORE"),
}


@checks.register()
def check_settings(
    app_configs: Iterable[Any] | None = None, **kwargs: Any
) -> list[checks.CheckMessage]:
    """Check the ``FRISIAN_MCP`` dict: shape, keys, imports and values."""
    user = getattr(settings, SETTINGS_NAME, None)
    if user is None:
        user = {}
    if not isinstance(user, dict):
        return [
            checks.Error(
                f"settings.{SETTINGS_NAME} must be a dict, not {type(user).__name__}.",
                hint=f"Write {SETTINGS_NAME} = {{...}} with keys from docs/settings.md.",
                id="frisian_mcp.E001",
            )
        ]
    errors: list[checks.CheckMessage] = []
    for key in user:
        if key in REMOVED_SETTINGS:
            errors.append(
                checks.Error(
                    f"{SETTINGS_NAME}[{key!r}] was removed: {REMOVED_SETTINGS[key]}",
                    hint=f"Delete {key!r} from {SETTINGS_NAME}.",
                    id="frisian_mcp.E003",
                )
            )
        elif key not in DEFAULTS:
            close = difflib.get_close_matches(str(key), DEFAULTS, n=1)
            errors.append(
                checks.Error(
                    f"{SETTINGS_NAME} has an unknown key {key!r}.",
                    hint=f"Did you mean {close[0]!r}?"
                    if close
                    else "See docs/settings.md for the keys.",
                    id="frisian_mcp.E002",
                )
            )
    if errors:
        return errors
    for key in sorted(IMPORT_STRINGS & set(user)):
        try:
            getattr(mcp_settings, key)
        except ConfigurationError as exc:
            errors.append(
                checks.Error(
                    str(exc), hint="Fix the dotted path.", id="frisian_mcp.E004"
                )
            )
    if not errors:
        errors.extend(_check_classes())
    errors.extend(_check_values(user))
    return errors


def _check_classes() -> list[checks.CheckMessage]:
    from frisian_mcp.discovery import BaseDiscoveryBackend
    from frisian_mcp.hooks import BaseCallHook

    errors: list[checks.CheckMessage] = []
    backend: object = mcp_settings.DISCOVERY_BACKEND
    if not (isinstance(backend, type) and issubclass(backend, BaseDiscoveryBackend)):
        errors.append(
            checks.Error(
                f"{SETTINGS_NAME}['DISCOVERY_BACKEND'] must be a subclass of "
                "frisian_mcp.discovery.BaseDiscoveryBackend.",
                hint="Subclass BaseDiscoveryBackend or URLConfDiscoveryBackend (docs/extending.md).",
                id="frisian_mcp.E005",
            )
        )
    for key, base, check_id in (
        ("AUTHENTICATION_CLASSES", BaseAuthentication, "E006"),
        ("CALL_HOOKS", BaseCallHook, "E012"),
    ):
        classes = getattr(mcp_settings, key) or []
        if not all(isinstance(c, type) and issubclass(c, base) for c in classes):
            name = f"{base.__module__}.{base.__qualname__}"
            errors.append(
                checks.Error(
                    f"{SETTINGS_NAME}[{key!r}] must list subclasses of {name}.",
                    hint=f"Name subclasses of {name} (docs/settings.md).",
                    id=f"frisian_mcp.{check_id}",
                )
            )
    page: object = mcp_settings.BROWSER_VIEW_CLASS
    if page is not None and not (isinstance(page, type) and issubclass(page, View)):
        message = f"{SETTINGS_NAME}['BROWSER_VIEW_CLASS'] must be a Django view class."
        hint = "Name a subclass of django.views.View (docs/extending.md)."
        errors.append(checks.Error(message, hint=hint, id="frisian_mcp.E011"))
    return errors


def _numbers(values: dict[str, Any]) -> list[str]:
    """What is wrong with the numeric settings."""
    problems = []
    for key in (
        *_POSITIVE_INTS,
        "CACHE_TTL_MS",
        "OUTPUT_SCHEMA_LIMIT",
        "FILTER_LIST_LIMIT",
    ):
        value, least = values[key], 1 if key in _POSITIVE_INTS else 0
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            kind = "a positive integer" if least else "an integer of 0 or more"
            problems.append(f"{key} must be {kind}")
    if not problems and values["PAGE_SIZE"] > values["MAX_PAGE_SIZE"]:
        problems.append("PAGE_SIZE must not exceed MAX_PAGE_SIZE")
    return problems


def _check_values(user: dict[str, Any]) -> list[checks.CheckMessage]:
    values = {**DEFAULTS, **user}
    problems = _numbers(values)
    alias = values["CACHE"]
    if alias is not None and alias not in settings.CACHES:
        problems.append("CACHE must be None or an alias in the CACHES setting")
    for key, choices in _CHOICES.items():
        if values[key] not in choices:
            problems.append(f"{key} must be one of " + ", ".join(map(repr, choices)))
    for key in ("INCLUDE", "EXCLUDE", "CONFIRM"):
        patterns = values[key]
        if not isinstance(patterns, list | tuple) or not all(
            isinstance(p, str) for p in patterns
        ):
            problems.append(f"{key} must be a list of glob patterns (strings)")
    options = values["VIEWSET_OPTIONS"]
    if not isinstance(options, dict) or not all(
        isinstance(k, str) and isinstance(v, dict) and set(v) <= VIEWSET_OPTION_KEYS
        for k, v in options.items()
    ):
        problems.append(
            "VIEWSET_OPTIONS must map dotted viewset paths to dicts with keys "
            + ", ".join(sorted(VIEWSET_OPTION_KEYS))
        )
    origins = values["ALLOWED_ORIGINS"]
    if not isinstance(origins, list | tuple) or not all(
        isinstance(o, str)
        and (o == "*" or re.match(r"^https?://[^/]+$", o.rstrip("/")))
        for o in origins
    ):
        problems.append(
            'ALLOWED_ORIGINS must be a list of "scheme://host[:port]" strings (or "*")'
        )
    prefix = values["PATH_PREFIX"]
    if prefix is not None:
        try:
            re.compile(str(prefix))
        except re.error:
            problems.append("PATH_PREFIX must be a valid regular expression or None")
    for key in ("REQUIRE_AUTHENTICATION", "FILTER_TOOLS_BY_PERMISSION"):
        if not isinstance(values[key], bool):
            problems.append(f"{key} must be True or False")
    for key in ("SERVER_NAME",):
        if not isinstance(values[key], str) or not values[key]:
            problems.append(f"{key} must be a non-empty string")
    version = values["API_VERSION"]
    if version is not None and (not isinstance(version, str) or not version):
        problems.append("API_VERSION must be None or a non-empty string")
    problems.extend(_permission_models(values["PERMISSION_MODELS"]))
    return [
        checks.Error(
            f"{SETTINGS_NAME}: {problem}.",
            hint="See docs/settings.md for the type and an example of each key.",
            id="frisian_mcp.E007",
        )
        for problem in problems
    ]


def _permission_models(labels: Any) -> list[str]:
    """What is wrong with ``PERMISSION_MODELS``: its shape, unknown models."""
    from django.apps import apps

    if not isinstance(labels, list | tuple) or not all(
        isinstance(label, str) for label in labels
    ):
        return ['PERMISSION_MODELS must be a list of "app_label.ModelName" strings']
    unknown = []
    for label in labels:
        try:
            apps.get_model(label)
        except (LookupError, ValueError):
            unknown.append(label)
    if unknown:
        return [f"PERMISSION_MODELS names no installed model: {', '.join(unknown)}"]
    return []


def _endpoint_mounts() -> list[str]:
    """The URL name of each ``MCPView`` pattern, with its namespaces."""
    from frisian_mcp.views import MCPView

    stack = [(pattern, "") for pattern in urls.get_resolver().url_patterns]
    names = []
    while stack:
        pattern, prefix = stack.pop()
        if isinstance(pattern, urls.URLResolver):
            inner = f"{prefix}{pattern.namespace}:" if pattern.namespace else prefix
            stack.extend((p, inner) for p in pattern.url_patterns)
        elif getattr(pattern.callback, "view_class", None) is MCPView:
            names.append(f"{prefix}{pattern.name}" if pattern.name else "")
    return names


def _check_mounts(names: list[str]) -> list[checks.CheckMessage]:
    """W008: a mount whose URL resolves to another view (a catch-all before it)."""
    from frisian_mcp.views import MCPView

    messages: list[checks.CheckMessage] = []
    for name in filter(None, names):
        try:
            url = urls.reverse(name)
            prefix = urls.get_script_prefix()  # FORCE_SCRIPT_NAME's
            func = urls.resolve("/" + url.removeprefix(prefix)).func
        except (urls.NoReverseMatch, urls.Resolver404):
            continue  # a pattern with arguments
        if getattr(func, "view_class", None) is not MCPView:
            view = getattr(func, "view_class", func)
            where = getattr(view, "__qualname__", type(view).__qualname__)
            messages.append(
                checks.Warning(
                    f"The MCP endpoint's URL {url} resolves to "
                    f"{view.__module__}.{where}: that pattern comes "
                    "first and swallows the endpoint.",
                    hint='Put path("mcp", include("frisian_mcp.urls")) before any '
                    "catch-all pattern in the URLconf.",
                    id="frisian_mcp.W008",
                )
            )
    return messages


def _registry(messages: list[checks.CheckMessage]) -> ToolRegistry | None:
    """The tools as discovered now; ``None`` on bad settings or E008."""
    from frisian_mcp.registry import ToolRegistry

    if check_settings():
        return None
    try:
        return ToolRegistry.from_settings(log=False)
    except HostError as exc:
        messages.append(
            checks.Error(
                f"frisian_mcp could not discover the API's endpoints: {exc}",
                hint="Check the URLconf and FRISIAN_MCP['DISCOVERY_BACKEND'].",
                id="frisian_mcp.E008",
            )
        )
        return None


@checks.register(checks.Tags.urls)
def check_tools(
    app_configs: Iterable[Any] | None = None, **kwargs: Any
) -> list[checks.CheckMessage]:
    """Check that the endpoint is mounted and the tool names are sound."""
    mounts = _endpoint_mounts()
    messages = _check_mounts(mounts)
    if not mounts:
        messages.append(
            checks.Warning(
                "The MCP endpoint is not in the URLconf.",
                hint='Add path("mcp", include("frisian_mcp.urls")) to your urlpatterns.',
                id="frisian_mcp.W001",
            )
        )
    registry = _registry(messages)
    if registry is None:
        return messages
    for name in registry.clashes:
        messages.append(
            checks.Warning(
                f"Several endpoints would be named {name!r}; frisian_mcp renamed them.",
                hint="Give the viewsets distinct mcp_name attributes to choose the names.",
                id="frisian_mcp.W002",
            )
        )
    messages.extend(_check_version(registry))
    messages.extend(declared_errors({tool.endpoint.view_class for tool in registry}))
    return messages + _left_out(registry.problems)  # views discovery could not read


@checks.register("frisian_mcp_schemas", deploy=True)
def check_schemas(
    app_configs: Iterable[Any] | None = None, **kwargs: Any
) -> list[checks.CheckMessage]:
    """Build every tool's schema: W003 for each view whose code fails.

    ``check --deploy`` runs it (with ``--tag frisian_mcp_schemas``, alone).
    Checks of one built schema go in the loop below.
    """
    messages: list[checks.CheckMessage] = []  # E008 also when run alone
    registry = _registry(messages)
    if registry is None:
        return messages
    known = len(registry.problems)  # discovery's, which check_tools reports
    for tool in registry:
        messages.extend(guessed_warnings(tool.name, tool.endpoint, tool.schema))
    return messages + _left_out(registry.problems[known:])


def _left_out(problems: Sequence[SchemaProblem]) -> list[checks.CheckMessage]:
    """W003: one per view and failure, naming the tools it left out or degraded."""
    found: dict[tuple[str, str, str], dict[str, list[str]]] = {}
    for p in problems:
        outcomes = found.setdefault((p.view, p.error, p.detail), {})
        outcomes.setdefault("left out" if p.fatal else "degraded", []).append(p.action)
    return [
        checks.Warning(
            f"{view} raised {error} while its tools were built ({detail}); "
            + "; ".join(
                f"{k}: {', '.join(sorted(v))}" for k, v in sorted(tools.items())
            ),
            hint="Fix the view, serializer or schema extension, or exclude the "
            "tools with FRISIAN_MCP['EXCLUDE']; every other tool is served.",
            obj=view,
            id="frisian_mcp.W003",
        )
        for (view, error, detail), tools in found.items()
    ]


def _check_version(registry: Any) -> list[checks.CheckMessage]:
    """W007: views whose versioning refuses ``API_VERSION`` (every call 406)."""
    from frisian_mcp.routing import pinned_version

    refusing = {}
    for view in {tool.endpoint.view_class for tool in registry}:
        if not (pinned := pinned_version(view)):
            continue
        try:
            allows = host_call(pinned[0]).is_allowed_version
            if host_call(allows, pinned[1]):
                continue
        except HostError:
            continue  # the host's versioning fails: its schemas report it
        refusing[f"{view.__module__}.{view.__qualname__}"] = pinned[0]
    return [
        checks.Warning(
            f"{name} does not allow {SETTINGS_NAME}['API_VERSION']: "
            "DRF refuses every call its tools make (406).",
            hint=f"Set an API_VERSION among {versioning.__name__}.allowed_versions, "
            "or exclude the view's tools with FRISIAN_MCP['EXCLUDE'].",
            obj=name,
            id="frisian_mcp.W007",
        )
        for name, versioning in sorted(refusing.items())
    ]
