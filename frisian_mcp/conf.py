"""Settings: the one ``FRISIAN_MCP`` dict, its defaults, typed lazy access.

Read every setting as ``mcp_settings.KEY``: looked up on first access (never
at import), import strings resolved, cached, and reset on Django's
``setting_changed`` signal. ``docs/settings.md`` documents every key.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.utils.module_loading import import_string

from frisian_mcp.exceptions import ConfigurationError

if TYPE_CHECKING:
    from django.views import View
    from rest_framework.authentication import BaseAuthentication

    from frisian_mcp.discovery import BaseDiscoveryBackend
    from frisian_mcp.hooks import BaseCallHook
    from frisian_mcp.visibility import BaseStore

__all__ = [
    "DEFAULTS",
    "IMPORT_STRINGS",
    "REMOVED_SETTINGS",
    "SETTINGS_NAME",
    "MCPSettings",
    "mcp_settings",
]

#: The name of the Django setting that holds frisian_mcp's configuration.
SETTINGS_NAME = "FRISIAN_MCP"

DEFAULTS: dict[str, Any] = {
    # Class that finds the project's DRF endpoints; dotted path to a subclass
    # of frisian_mcp.discovery.BaseDiscoveryBackend.
    # Example: "myproject.mcp.AllowListDiscoveryBackend".
    "DISCOVERY_BACKEND": "frisian_mcp.discovery.URLConfDiscoveryBackend",
    # Dotted path of the URLconf module the default backend walks; None walks
    # settings.ROOT_URLCONF. Example: "myproject.api_urls".
    "URLCONF": None,
    # Regex matching the leading part of API paths that tool names leave out;
    # None strips the longest common leading path segments of all endpoints.
    # Example: r"^/api/" (so /api/v1/contacts/ becomes v1__contacts__list).
    "PATH_PREFIX": None,
    # The API version tools ask for from views that read it from the request
    # (DRF's AcceptHeaderVersioning, QueryParameterVersioning): each call's
    # inner request carries it as REST clients send it, and the schemas are
    # built for it. None: every view's default_version. URL path, namespace
    # and host-name versions come from the route. Example: "2.0".
    "API_VERSION": None,
    # Per-viewset options for viewsets you cannot edit, by dotted class path:
    # {"name": str, "exclude": bool, "actions": [..], "group": str}; an
    # mcp_<key> attribute on the class wins. Example:
    # {"otherapp.views.ThingViewSet": {"exclude": True}}.
    "VIEWSET_OPTIONS": {},
    # Glob patterns (fnmatch) of tool names to expose; empty exposes all.
    # Example: ["contacts__*", "dcim__*"].
    "INCLUDE": [],
    # Glob patterns of tool names to hide, applied after INCLUDE.
    # Example: ["*__destroy"].
    "EXCLUDE": [],
    # "flat" (one tool per action), "dispatcher" (one tool per group that
    # routes by resource and action) or "auto" (dispatchers when there would
    # be more than DISPATCHER_THRESHOLD flat tools).
    "TOOL_LAYOUT": "auto",
    # Flat tool count above which "auto" switches to dispatchers.
    "DISPATCHER_THRESHOLD": 100,
    # How dispatcher groups are formed: "app" (the model's app label),
    # "namespace" (the URL namespace) or "path" (the first name segment);
    # a viewset's mcp_group overrides.
    "DISPATCHER_GROUP_BY": "app",
    # What to do with a serializer field that has no JSON Schema mapping:
    # "RAISE" (SchemaError), "WARN" (warn, accept any JSON) or "IGNORE"
    # (accept any JSON silently).
    "UNMAPPED_FIELD_POLICY": "WARN",
    # serverInfo.name returned by initialize. Example: "acme-crm".
    "SERVER_NAME": "frisian-mcp",
    # serverInfo.title (a human-readable name); None leaves it out.
    "SERVER_TITLE": None,
    # Instructions returned by initialize to steer the agent; None leaves them
    # out. Example: "Contacts are unique by email."
    "SERVER_INSTRUCTIONS": None,
    # Origins (scheme://host[:port]) allowed in the Origin header besides the
    # endpoint's own origin; any other Origin gets 403. "*" allows any origin
    # (not recommended). Example: ["http://localhost:6274"].
    "ALLOWED_ORIGINS": [],
    # Whether the endpoint refuses callers no authenticator recognises (401
    # with a WWW-Authenticate challenge). False lets anonymous callers in;
    # each viewset's own permission classes still apply to them.
    "REQUIRE_AUTHENTICATION": True,
    # Whether tools/list shows each caller only the tools whose permission
    # classes (has_permission) it passes; calls to the others answer as for
    # an unknown tool (ADR 0016). False lists every tool to everyone.
    "FILTER_TOOLS_BY_PERMISSION": True,
    # Authentication classes for the endpoint (dotted paths); None uses
    # REST_FRAMEWORK["DEFAULT_AUTHENTICATION_CLASSES"].
    # Example: ["rest_framework.authentication.TokenAuthentication"].
    "AUTHENTICATION_CLASSES": None,
    # The page a browser gets at the endpoint (a GET whose Accept prefers
    # text/html): dotted path to a django.views.View subclass; None: such a
    # GET gets 405 as any other. Example (docs/explorer.md):
    # "frisian_mcp.contrib.explorer.views.ExplorerView".
    "BROWSER_VIEW_CLASS": None,
    # Largest accepted request body in bytes; larger bodies get HTTP 413.
    # The default fits a bulk create of 10,000 small rows. Example: 4_194_304.
    "MAX_REQUEST_BYTES": 1_048_576,
    # Deepest nesting of arrays and objects accepted in a request body; deeper
    # bodies are an invalid request (-32600). Example: 16.
    "MAX_JSON_DEPTH": 32,
    # Messages in one JSON-RPC batch (2025-03-26 only); more is -32600 and
    # nothing in the batch runs.
    "MAX_BATCH_MESSAGES": 20,
    # Longest query string (URL-encoded, in characters) a call's filters and
    # query arguments may make; longer calls get -32602. A REST caller is
    # bounded the same way by its web server's request line. Example: 16_384.
    "MAX_QUERY_LENGTH": 8192,
    # How argument errors reach the agent: "jsonrpc" (a JSON-RPC -32602 error
    # with error.data) or "tool_result" (the same payload as a tools/call
    # result with isError: true, as MCP 2025-11-25 recommends; ADR 0004).
    "INPUT_ERROR_STYLE": "jsonrpc",
    # Tools per tools/list page; the rest follow via nextCursor. Example: 200.
    "TOOLS_LIST_PAGE_SIZE": 100,
    # Models, beside Django's auth models, whose saves and deletes change what
    # a caller may do ("app_label.ModelName"): with the fleet store, each
    # change makes every cached tool list stale. Example (django-guardian):
    # ["guardian.UserObjectPermission", "guardian.GroupObjectPermission"].
    "PERMISSION_MODELS": [],
    # Milliseconds a 2026-07-28 client may cache tools/list and
    # server/discover results (their ttlMs; cacheScope is always "private").
    # 0: always stale. Example: 300_000.
    "CACHE_TTL_MS": 60_000,
    # Where built schemas and each caller's visible tools are kept beyond the
    # process: dotted path of a frisian_mcp.visibility.BaseStore subclass.
    # None keeps them in the process only. Example (docs/fleet.md):
    # "frisian_mcp.contrib.fleet.store.FleetStore".
    "STORE_BACKEND": None,
    # Alias of the Django cache (CACHES) the fleet store keeps them in (each
    # caller's visible tools for CACHE_TTL_MS), shared by every worker using
    # that cache. None: keep nothing. Example: "mcp".
    "CACHE": "default",
    # Largest outputSchema (compact JSON, in bytes) a tools/list entry
    # carries; larger ones are left to help (docs/listing.md). 0: none.
    "OUTPUT_SCHEMA_LIMIT": 512,
    # Most filter keys a list tool's listed inputSchema types one by one;
    # more are summarised (help lists them all). Example: 100.
    "FILTER_LIST_LIMIT": 40,
    # Rows per page of a list tool when the call gives no page_size.
    "PAGE_SIZE": 50,
    # Largest page_size a list tool accepts (larger values are rejected).
    "MAX_PAGE_SIZE": 200,
    # Seconds a list result's next_token stays valid. Example: 600.
    "CONTINUATION_TOKEN_MAX_AGE": 3600,
    # Call hooks: dotted paths of frisian_mcp.hooks.BaseCallHook subclasses
    # that add protocol arguments to schemas and step into calls before the
    # action runs (docs/extending.md). Example:
    # ["frisian_mcp.contrib.confirm.ConfirmationHook"].
    "CALL_HOOKS": [],
    # Tools that need a person's confirmation before they run (read by
    # frisian_mcp.contrib.confirm, docs/safety.md): tool-name globs, kinds
    # ("delete", "update", "create", "action"), stock actions ("destroy",
    # "partial_update") or "destructive" (every destructiveHint tool).
    # Example: ["destroy"].
    "CONFIRM": [],
    # Seconds a confirmation token stays valid. Example: 120.
    "CONFIRM_MAX_AGE": 300,
    # Largest file, in bytes, a tool answers or takes (read by
    # frisian_mcp.contrib.files, docs/files.md): a larger download is an
    # error naming its REST URL, a larger upload is refused. Example: 1_048_576.
    "FILE_MAX_BYTES": 4_194_304,
    # OAuth 2.1 resource server (docs/authorization.md); None: off. A dict with
    # RESOURCE (the endpoint's canonical https URL, required),
    # AUTHORIZATION_SERVERS (issuer URLs), TOKEN_VALIDATOR (dotted path of a
    # frisian_mcp.contrib.oauth.tokens.BaseTokenValidator), VALIDATOR_OPTIONS, SCOPES
    # (scope -> tool categories or tool-name globs) and RESOURCE_NAME.
    # Example: {"RESOURCE": "https://api.example.com/mcp",
    # "AUTHORIZATION_SERVERS": ["https://auth.example.com"]}.
    "OAUTH": None,
}

#: Keys whose values are dotted paths resolved to objects on access.
IMPORT_STRINGS = frozenset(
    {"DISCOVERY_BACKEND", "AUTHENTICATION_CLASSES", "STORE_BACKEND"}
    | {"BROWSER_VIEW_CLASS", "CALL_HOOKS"}
)

#: Keys that existed once, with the reason they are gone.
REMOVED_SETTINGS: dict[str, str] = {}


class MCPSettings:
    """Lazy, cached, typed access to ``settings.FRISIAN_MCP`` over DEFAULTS."""

    DISCOVERY_BACKEND: type[BaseDiscoveryBackend]
    URLCONF: str | None
    PATH_PREFIX: str | None
    API_VERSION: str | None
    VIEWSET_OPTIONS: dict[str, dict[str, Any]]
    INCLUDE: list[str]
    EXCLUDE: list[str]
    TOOL_LAYOUT: str
    DISPATCHER_THRESHOLD: int
    DISPATCHER_GROUP_BY: str
    UNMAPPED_FIELD_POLICY: str
    SERVER_NAME: str
    SERVER_TITLE: str | None
    SERVER_INSTRUCTIONS: str | None
    ALLOWED_ORIGINS: list[str]
    REQUIRE_AUTHENTICATION: bool
    FILTER_TOOLS_BY_PERMISSION: bool
    AUTHENTICATION_CLASSES: list[type[BaseAuthentication]] | None
    BROWSER_VIEW_CLASS: type[View] | None
    MAX_REQUEST_BYTES: int
    MAX_JSON_DEPTH: int
    MAX_BATCH_MESSAGES: int
    MAX_QUERY_LENGTH: int
    INPUT_ERROR_STYLE: str
    TOOLS_LIST_PAGE_SIZE: int
    PERMISSION_MODELS: list[str]
    CACHE_TTL_MS: int
    STORE_BACKEND: type[BaseStore] | None
    CACHE: str | None
    OUTPUT_SCHEMA_LIMIT: int
    FILTER_LIST_LIMIT: int
    PAGE_SIZE: int
    MAX_PAGE_SIZE: int
    CONTINUATION_TOKEN_MAX_AGE: int
    CALL_HOOKS: list[type[BaseCallHook]]
    CONFIRM: list[str]
    CONFIRM_MAX_AGE: int
    FILE_MAX_BYTES: int
    OAUTH: dict[str, Any] | None

    def __init__(self) -> None:
        self._cache: dict[str, Any] = {}

    @property
    def user_settings(self) -> dict[str, Any]:
        """The project's ``FRISIAN_MCP`` dict (empty when unset)."""
        value = getattr(settings, SETTINGS_NAME, None)
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise ConfigurationError(
                f"settings.{SETTINGS_NAME} must be a dict, not {type(value).__name__}."
            )
        return value

    def __getattr__(self, key: str) -> Any:
        if key.startswith("_") or key not in DEFAULTS:
            raise AttributeError(f"Unknown frisian_mcp setting: {key!r}")
        if key not in self._cache:
            value = self.user_settings.get(key, DEFAULTS[key])
            if key in IMPORT_STRINGS and value is not None:
                value = _import(value, key)
            self._cache[key] = value
        return self._cache[key]

    def reload(self) -> None:
        """Forget every cached value; the next access reads settings again."""
        self._cache.clear()


def _import(value: Any, key: str) -> Any:
    if isinstance(value, list | tuple):
        return [_import(item, key) for item in value]
    if not isinstance(value, str):
        return value
    try:
        return import_string(value)
    except ImportError as exc:
        raise ConfigurationError(
            f"{SETTINGS_NAME}[{key!r}] names {value!r}, which cannot be imported: {exc}."
        ) from exc


#: The settings object every module reads.
mcp_settings = MCPSettings()


@receiver(setting_changed)
def _reload_settings(*, setting: str, **kwargs: Any) -> None:
    if setting == SETTINGS_NAME:
        mcp_settings.reload()
