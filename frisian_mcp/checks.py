"""System checks for frisian_mcp's settings and tool surface.

Ids are ``frisian_mcp.E0xx`` (errors) and ``frisian_mcp.W0xx`` (warnings),
never reused; ``docs/checks.md`` lists every one with its fix. Building every
tool's schema is asked for (``check --deploy``, tag ``frisian_mcp_schemas``);
every ``manage.py`` command runs only the cheap checks (ADR 0015).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from django import urls
from django.apps import apps
from django.conf import settings
from django.core import checks

from frisian_mcp.bodies import declared_errors, guessed_warnings
from frisian_mcp.conf import (
    DEFAULTS,
    REMOVED_SETTINGS,
    SETTINGS,
    SETTINGS_NAME,
    Import,
    mcp_settings,
)
from frisian_mcp.exceptions import ConfigurationError, HostError, host_call
from frisian_mcp.hooks import layout_class
from frisian_mcp.types import SchemaProblem, dotted

if TYPE_CHECKING:
    from frisian_mcp.registry import ToolRegistry

__all__ = [
    "EXTRA_KEYS",
    "check_extras",
    "check_schemas",
    "check_settings",
    "check_tools",
]


@checks.register()
def check_settings(
    app_configs: Iterable[Any] | None = None, **kwargs: Any
) -> list[checks.CheckMessage]:
    """Check the ``FRISIAN_MCP`` dict against the settings table (conf.py)."""
    try:
        user = mcp_settings.user_settings
    except ConfigurationError as exc:
        hint = f"Write {SETTINGS_NAME} = {{...}} with keys from docs/settings.md."
        return [checks.Error(str(exc), hint=hint, id="frisian_mcp.E001")]
    return _check_keys(user) or _check_classes(user) + _check_values(user)


def _check_keys(user: dict[str, Any]) -> list[checks.CheckMessage]:
    """E003 for removed keys, E002 for unknown ones."""
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
        elif key not in SETTINGS and key not in EXTRA_KEYS:
            close = difflib.get_close_matches(str(key), [*SETTINGS, *EXTRA_KEYS], n=1)
            errors.append(
                checks.Error(
                    f"{SETTINGS_NAME} has an unknown key {key!r}.",
                    hint=f"Did you mean {close[0]!r}?"
                    if close
                    else "See docs/settings.md for the keys.",
                    id="frisian_mcp.E002",
                )
            )
    return errors


def _check_classes(user: dict[str, Any]) -> list[checks.CheckMessage]:
    """E004 for a dotted path that does not import; else the row's own id
    for a class that does not subclass the row's base."""
    errors: list[checks.CheckMessage] = []
    for key in sorted(user):
        wanted = SETTINGS[key].type if key in SETTINGS else None
        if not isinstance(wanted, Import):
            continue
        try:
            found = wanted.resolve(key, user[key], verify=False)
        except ConfigurationError as exc:
            hint = "Fix the dotted path."
            errors.append(checks.Error(str(exc), hint=hint, id="frisian_mcp.E004"))
            continue
        found = found if isinstance(found, list) else [found]
        problem = next(filter(None, (wanted.misfit(key, c) for c in found)), None)
        if problem is not None:
            hint = f"Name a subclass of {wanted.base} (docs/settings.md)."
            check_id = f"frisian_mcp.{wanted.check_id}"
            errors.append(checks.Error(problem, hint=hint, id=check_id))
    return errors


def _check_values(user: dict[str, Any]) -> list[checks.CheckMessage]:
    """E007: each value of the wrong type, or failing its row's check."""
    values = {**DEFAULTS, **user}
    problems = []
    for key, row in SETTINGS.items():
        value = values[key]
        if not row.type.test(value):
            problems.append(f"{key} must be {row.type.text}")
        elif row.check is not None and value is not None:
            problem = row.check(value, values)
            if problem is not None:
                problems.append(f"{key} {problem}")
    return [
        checks.Error(
            f"{SETTINGS_NAME}: {problem}.",
            hint="See docs/settings.md for the type and an example of each key.",
            id="frisian_mcp.E007",
        )
        for problem in problems
    ]


@checks.register()
def check_extras(
    app_configs: Iterable[Any] | None = None, **kwargs: Any
) -> list[checks.CheckMessage]:
    """E013, W014: settings that ask for an extra which is not installed."""
    user = getattr(settings, SETTINGS_NAME, None)
    if not isinstance(user, dict) or _check_classes(user):
        return []  # E001, E004 and the classes' own ids say so
    found: list[checks.CheckMessage] = []
    if user.get("CONFIRM") and not any(
        "CONFIRM" in getattr(h, "settings", ()) for h in mcp_settings.CALL_HOOKS
    ):
        found.append(
            checks.Error(
                f"{SETTINGS_NAME}['CONFIRM'] names tools, but no call hook asks "
                "for confirmation: those tools run unconfirmed.",
                hint="Add the confirm extra to INSTALLED_APPS (docs/safety.md).",
                id="frisian_mcp.E013",
            )
        )
    installed = {config.label for config in apps.get_app_configs()}
    for key, extra in _extras_named(user):
        if f"frisian_mcp_{extra}" in installed or (key == "CONFIRM" and found):
            continue
        found.append(
            checks.Warning(
                f"{SETTINGS_NAME}[{key!r}] is for the {extra} extra, which is "
                "not installed: the setting does nothing.",
                hint=f"Add the {extra} extra to INSTALLED_APPS "
                f"(docs/{_PAGES.get(extra, extra + '.md')}), or remove {key!r}.",
                id="frisian_mcp.W014",
            )
        )
    return found + _default_cache(user, installed)


#: Cache backends that keep nothing beyond the process.
_LOCAL = ("locmem.LocMemCache", "dummy.DummyCache")


def _default_cache(
    user: dict[str, Any], installed: set[str]
) -> list[checks.CheckMessage]:
    """W014: the default cache is shared, but nothing keeps schemas in it.

    The release before the extras kept them there without a setting.
    """
    backend = settings.CACHES.get("default", {}).get("BACKEND", "")
    if "CACHE" in user or "frisian_mcp_fleet" in installed or backend.endswith(_LOCAL):
        return []
    return [
        checks.Warning(
            f"{SETTINGS_NAME}['CACHE'] is 'default', a cache every worker shares "
            f"({backend.rpartition('.')[2]}), but the fleet extra, which keeps "
            "schemas and tool lists there, is not installed: each worker builds "
            "its own.",
            hint="Add the fleet extra to INSTALLED_APPS (docs/fleet.md), or set "
            "CACHE to None to keep nothing beyond the process.",
            id="frisian_mcp.W014",
        )
    ]


#: The keys only an extra reads, by key: its rows, which it declares once
#: installed, and two core rows that do nothing without it (W014).
EXTRA_KEYS = {
    "CACHE": "fleet", "CONFIRM": "confirm", "CONFIRM_MAX_AGE": "confirm",
    "DISPATCHER_GROUP_BY": "dispatchers", "DISPATCHER_THRESHOLD": "dispatchers",
    "FILE_MAX_BYTES": "files", "OAUTH": "oauth",
}  # fmt: skip
#: The page of an extra whose page is not named after it.
_PAGES = {"confirm": "safety.md", "oauth": "authorization.md", "dispatchers": "index.md"}  # fmt: skip


def _extras_named(user: dict[str, Any]) -> list[tuple[str, str]]:
    """(key, extra) for each key set that only an extra reads
    (:data:`EXTRA_KEYS`), or that names a class of an extra."""
    named = []
    for key in sorted(k for k in user if user[k] is not None):
        if key in EXTRA_KEYS:
            named.append((key, EXTRA_KEYS[key]))
        row, value = SETTINGS.get(key), user[key]
        if row is not None and isinstance(row.type, Import):
            for item in value if isinstance(value, list | tuple) else [value]:
                parts = str(getattr(item, "__module__", item)).split(".")
                if parts[:2] == ["frisian_mcp", "contrib"] and len(parts) > 2:
                    named.append((key, parts[2]))
    return list(dict.fromkeys(named))


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
    from frisian_mcp.resources import clash_warnings  # W016 (ADR 0043)

    messages.extend(_check_version(registry) + _check_layout(registry))
    messages.extend(clash_warnings(registry))
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


def _check_layout(registry: ToolRegistry) -> list[checks.CheckMessage]:
    """W015: ``"auto"`` would list dispatchers, but no installed app offers them."""
    threshold = mcp_settings.DISPATCHER_THRESHOLD
    many = len(registry) > threshold and mcp_settings.TOOL_LAYOUT == "auto"
    if not many or layout_class("dispatcher") is not None:
        return []
    return [
        checks.Warning(
            f"{SETTINGS_NAME}['TOOL_LAYOUT'] is \"auto\" and the API has "
            f"{len(registry)} tools, more than DISPATCHER_THRESHOLD ({threshold}), "
            "but no installed app offers dispatchers: tools/list lists every "
            "tool flat.",
            hint="Add the dispatchers extra to INSTALLED_APPS (docs/index.md, "
            '"Large APIs"), or set TOOL_LAYOUT to "flat" to keep flat tools.',
            id="frisian_mcp.W015",
        )
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
        refusing[dotted(view)] = pinned[0]
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
