"""Settings: the one table of ``FRISIAN_MCP`` keys, and typed lazy access.

Each row of :class:`MCPSettings`, a :class:`Setting`, gives a default, the
check and docs/settings.md (ADR 0029). An installed extra adds its own rows
(:func:`declare`) and may give a core key a value (:func:`provided`). Read
on first access, forgotten on ``setting_changed``.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Generic, TypeVar, cast, overload

from django.apps import apps
from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.utils.module_loading import import_string

from frisian_mcp.exceptions import ConfigurationError
from frisian_mcp.types import VIEWSET_OPTION_KEYS

if TYPE_CHECKING:  # named in two rows' types, as strings
    from django.views import View  # noqa: F401
    from rest_framework.authentication import BaseAuthentication  # noqa: F401

__all__ = [
    "DEFAULTS", "GLOBS", "PROVIDED", "REMOVED_SETTINGS", "SETTINGS", "SETTINGS_NAME",
    "Import", "MCPSettings", "Setting", "Value", "at_least", "declare",
    "extra_settings", "mcp_settings", "on_change", "one_of", "provided"
]  # fmt: skip

T = TypeVar("T")
F = TypeVar("F", bound=Callable[[], object])

#: The name of the Django setting that holds frisian_mcp's configuration.
SETTINGS_NAME = "FRISIAN_MCP"
#: Keys that existed once, with the reason they are gone (``E003``).
REMOVED_SETTINGS: dict[str, str] = {}
#: Every row of the table, by key, in the order of :class:`MCPSettings`.
SETTINGS: dict[str, Setting[Any]] = {}
#: What installed extras give keys (``hooks.provide``): by key, by app.
PROVIDED: dict[str, dict[str, Any]] = {}


class Value(Generic[T]):
    """What a setting takes (``T``): its wording in the docs and a test of a
    value. A row's type comes from it (ADR 0029)."""

    def __init__(self, text: str, test: Callable[[Any], bool]) -> None:
        self.text, self.test = text, test

    def __or__(self, other: None) -> Value[T | None]:
        """The same, or ``None``."""
        optional = copy.copy(self)
        optional.text = f"{self.text} or None"
        optional.test = lambda v: v is None or self.test(v)
        return cast("Value[T | None]", optional)


class Import(Value[T]):
    """A dotted path (or a list of them) resolved to a class on access, which
    must subclass ``base`` (a dotted path; system check ``check_id``)."""

    def __init__(self, base: str, check_id: str, *, many: bool = False) -> None:
        super().__init__(
            "a list of dotted paths" if many else "a dotted path", lambda v: True
        )
        self.base, self.check_id, self.many = base, check_id, many

    def resolve(self, key: str, value: Any, *, verify: bool = True) -> Any:
        """``value`` imported (and verified): ConfigurationError if it fails."""
        if isinstance(value, list | tuple):
            return [self.resolve(key, item, verify=verify) for item in value]
        if isinstance(value, str):
            try:
                value = import_string(value)
            except ImportError as exc:
                raise ConfigurationError(
                    f"{SETTINGS_NAME}[{key!r}] names {value!r}, which cannot be "
                    f"imported: {exc}."
                ) from exc
        if verify and (problem := self.misfit(key, value)):
            raise ConfigurationError(problem)
        return value

    def misfit(self, key: str, found: Any) -> str | None:
        """What is wrong with the class(es) ``found`` for ``key``, if anything."""
        base = import_string(self.base)
        if (isinstance(found, type) and issubclass(found, base)) or found is None:
            return None
        what = "list subclasses" if self.many else "name a subclass"
        return f"{SETTINGS_NAME}[{key!r}] must {what} of {self.base}."


def at_least(least: int) -> Value[int]:
    return Value(f"an int >= {least}", lambda v: type(v) is int and v >= least)


def one_of(*options: str) -> Value[str]:
    words = ", ".join(f'"{o}"' for o in options)
    return Value(f"one of {words}", options.__contains__)


def _strings(what: str) -> Value[list[str]]:
    return Value(
        f"a list of {what}",
        lambda v: isinstance(v, list | tuple) and all(isinstance(i, str) for i in v),
    )


_BOOL = Value[bool]("a bool", lambda v: isinstance(v, bool))
_TEXT = Value[str]("a str", lambda v: isinstance(v, str) and v != "")
GLOBS = _strings("glob patterns")
_SCHEME_NAME = re.compile(r"(?!(https?|file|git|data|urn|mcp)$)[a-z][a-z0-9+.-]*")
_SCHEME = Value[str](
    "a lowercase URI scheme but http(s), file, git, data, urn or mcp",
    lambda v: isinstance(v, str) and _SCHEME_NAME.fullmatch(v) is not None,
)
_DICT = Value[dict[str, Any]]("a dict", lambda v: isinstance(v, dict))
#: A check beyond the type: the problem with ``value`` among ``values``.
Check = Callable[[Any, Mapping[str, Any]], str | None]


class Setting(Generic[T]):
    """One key of ``FRISIAN_MCP`` (a row); read from an instance, its value
    (``T``), looked up on first access and kept until a reload."""

    name = ""
    #: The extra that declared the row (:func:`declare`); ``""``: the core.
    app = ""

    def __init__(
        self, default: Any, type: Value[T], doc: str, check: Check | None = None
    ) -> None:
        self.default, self.type, self.doc, self.check = default, type, doc, check

    def __set_name__(self, owner: type[Any], name: str) -> None:
        self.name = name
        SETTINGS[name] = self

    @overload
    def __get__(self, obj: None, owner: type[Any]) -> Setting[T]: ...
    @overload
    def __get__(self, obj: MCPSettings, owner: type[Any]) -> T: ...
    def __get__(self, obj: MCPSettings | None, owner: type[Any]) -> Any:
        if obj is None:
            return self
        given, many = provided(self.name), getattr(self.type, "many", False)
        fallback = given[0] if given and not many else self.default
        value = obj.user_settings.get(self.name, fallback)
        if isinstance(self.type, Import) and value is not None:
            value = self.type.resolve(self.name, value)
            if many:  # an installed extra's class joins, unless listed
                joins = self.type.resolve(self.name, given)
                value += [c for c in joins if not any(issubclass(v, c) for v in value)]
        obj.__dict__[self.name] = value  # later reads skip the descriptor
        return value


def provided(key: str) -> list[Any]:
    """What installed extras give ``key`` (``hooks.provide``), in order."""
    return [v for app, v in PROVIDED.get(key, {}).items() if apps.is_installed(app)]


def _page_size(value: int, values: Mapping[str, Any]) -> str | None:
    top = values["MAX_PAGE_SIZE"]
    wrong = at_least(1).test(top) and value > top
    return "must not exceed MAX_PAGE_SIZE" if wrong else None


def _regex(value: str, values: Mapping[str, Any]) -> str | None:
    try:
        re.compile(value)
    except re.error:
        return "must be a valid regular expression or None"
    return None


def _origins(value: list[str], values: Mapping[str, Any]) -> str | None:
    if all(o == "*" or re.match(r"^https?://[^/]+$", o.rstrip("/")) for o in value):
        return None
    return 'must be a list of "scheme://host[:port]" strings (or "*")'


def _cache_alias(value: str, values: Mapping[str, Any]) -> str | None:
    known = value in settings.CACHES
    return None if known else "must be None or an alias in the CACHES setting"


def _models(value: list[str], values: Mapping[str, Any]) -> str | None:
    unknown = []
    for label in value:
        try:
            apps.get_model(label)
        except (LookupError, ValueError):
            unknown.append(label)
    return f"names no installed model: {', '.join(unknown)}" if unknown else None


def _viewset_options(value: dict[Any, Any], values: Mapping[str, Any]) -> str | None:
    keys = VIEWSET_OPTION_KEYS
    if all(
        isinstance(k, str) and isinstance(v, dict) and set(v) <= keys
        for k, v in value.items()
    ):
        return None
    return f"must map dotted viewset paths to dicts with keys {', '.join(sorted(keys))}"


class MCPSettings:
    """Lazy, cached, typed access to ``settings.FRISIAN_MCP``: each attribute
    is a row; tests hold docs/settings.md's table equal to them."""

    # Discovery and naming
    DISCOVERY_BACKEND = Setting(
        "frisian_mcp.discovery.URLConfDiscoveryBackend",
        Import[type[Any]]("frisian_mcp.discovery.BaseDiscoveryBackend", "E005"),
        "Class that finds the endpoints to expose.",
    )
    URLCONF = Setting(None, _TEXT | None, "URLconf module the default backend walks.")
    PATH_PREFIX = Setting(
        None,
        Value[str]("a regex", lambda v: isinstance(v, str)) | None,
        "Leading part of API paths that tool names leave out.",
        _regex,
    )
    API_VERSION = Setting(None, _TEXT | None, "API version the tools ask views for.")
    VIEWSET_OPTIONS = Setting(
        {}, _DICT, "Options of viewsets you cannot edit.", _viewset_options
    )
    INCLUDE = Setting([], GLOBS, "Tool names to expose (empty: all).")
    EXCLUDE = Setting([], GLOBS, "Tool names to hide.")
    CREDENTIAL_TOOLS = Setting(
        [], GLOBS, "Tools ending the caller's credentials, served anyway."
    )
    UNMAPPED_FIELD_POLICY = Setting(
        "WARN", one_of("RAISE", "WARN", "IGNORE"), "A field with no JSON Schema."
    )
    # Server identity
    SERVER_NAME = Setting("frisian-mcp", _TEXT, "serverInfo.name of initialize.")
    SERVER_TITLE = Setting(None, _TEXT | None, "serverInfo.title of initialize.")
    SERVER_INSTRUCTIONS = Setting(None, _TEXT | None, "instructions of initialize.")
    RESOURCE_SCHEME = Setting("drf", _SCHEME, "URI scheme of records as resources.")
    # Transport and security
    ALLOWED_ORIGINS = Setting(
        [], _strings("origins"), "Origins allowed besides the endpoint's.", _origins
    )
    REQUIRE_AUTHENTICATION = Setting(
        True, _BOOL, "Whether anonymous callers are refused (401)."
    )
    FILTER_TOOLS_BY_PERMISSION = Setting(
        True, _BOOL, "Whether tools/list shows only the tools a caller may call."
    )
    AUTHENTICATION_CLASSES = Setting(
        None,
        Import["list[type[BaseAuthentication]]"](
            "rest_framework.authentication.BaseAuthentication", "E006", many=True
        )
        | None,
        "Authentication classes of the endpoint (None: DRF's).",
    )
    BROWSER_VIEW_CLASS = Setting(
        None,
        Import["type[View]"]("django.views.View", "E011") | None,
        "The page a browser gets at the endpoint.",
    )
    MAX_REQUEST_BYTES = Setting(
        1_048_576, at_least(1), "Largest request body, in bytes (413); see call hooks."
    )
    MAX_JSON_DEPTH = Setting(32, at_least(1), "Deepest nesting of a request body.")
    MAX_BATCH_MESSAGES = Setting(
        20, at_least(1), "Most messages in one JSON-RPC batch."
    )
    MAX_QUERY_LENGTH = Setting(
        8192, at_least(1), "Longest query string a call may make."
    )
    INPUT_ERROR_STYLE = Setting(
        "jsonrpc", one_of("jsonrpc", "tool_result"), "How argument errors go."
    )
    # Tool lists and list tools
    TOOL_LAYOUT = Setting(
        "auto", one_of("auto", "flat", "dispatcher"), "What tools/list offers."
    )
    DISPATCHER_THRESHOLD = Setting(
        100,
        at_least(1),
        'Tools past which "auto" uses dispatchers (contrib.dispatchers).',
    )
    TOOLS_LIST_PAGE_SIZE = Setting(100, at_least(1), "Tools per tools/list page.")
    WARM_UP = Setting(
        True, _BOOL, "Whether a server process builds its tools at start."
    )
    CACHE_TTL_MS = Setting(
        60_000, at_least(0), "ttlMs of tools/list and server/discover."
    )
    STORE_BACKEND = Setting(
        None,
        Import[type[Any]]("frisian_mcp.visibility.BaseStore", "E017") | None,
        "Where schemas and visible tools outlive the process.",
    )
    CACHE = Setting(
        "default", _TEXT | None, "The CACHES alias (contrib.fleet).", _cache_alias
    )
    PERMISSION_MODELS = Setting(
        [], _strings("model labels"), "Models whose rows grant rights.", _models
    )
    OUTPUT_SCHEMA_LIMIT = Setting(
        512, at_least(0), "Largest listed outputSchema, in bytes."
    )
    FILTER_LIST_LIMIT = Setting(
        40, at_least(0), "Most filter keys a listed inputSchema types."
    )
    PAGE_SIZE = Setting(50, at_least(1), "Rows per page of a list tool.", _page_size)
    MAX_PAGE_SIZE = Setting(200, at_least(1), "Largest page_size a list tool accepts.")
    CONTINUATION_TOKEN_MAX_AGE = Setting(
        3600, at_least(1), "Seconds a next_token stays valid."
    )
    # Call hooks
    CALL_HOOKS = Setting(
        [],
        Import[list[type[Any]]]("frisian_mcp.hooks.BaseCallHook", "E012", many=True),
        "Call hooks, in order.",
    )

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

    def reload(self) -> None:
        """Forget every value read; the next access reads settings again."""
        self.__dict__.clear()


#: Every key's default.
DEFAULTS: dict[str, Any] = {key: row.default for key, row in SETTINGS.items()}


def declare(app: str, **rows: Setting[Any]) -> None:
    """Add the rows of the extra ``app`` to the table (from its package).

    The checks validate them and ``mcp_settings`` reads them as the core's;
    the table lists them after the core's, by extra (docs/settings.md).
    """
    for name, row in rows.items():
        row.app = app
        setattr(MCPSettings, name, row)
        row.__set_name__(MCPSettings, name)
        DEFAULTS[name] = row.default
    ordered = sorted(SETTINGS.items(), key=lambda item: item[1].app)
    SETTINGS.clear()
    SETTINGS.update(ordered)


#: The settings object every module reads.
mcp_settings = MCPSettings()
if TYPE_CHECKING:

    class _WithExtras(MCPSettings):
        def __getattr__(self, name: str) -> Any:
            """A row an installed extra declared (:func:`declare`)."""


#: ``mcp_settings`` as an extra reads it: its own rows too, typed ``Any``.
extra_settings = cast("_WithExtras", mcp_settings)
_on_change: list[tuple[frozenset[str], Callable[[], object]]] = [
    (frozenset({SETTINGS_NAME, "INSTALLED_APPS"}), mcp_settings.reload)
]


def on_change(*names: str) -> Callable[[F], F]:
    """Run the decorated function when one of the Django settings ``names``
    (``FRISIAN_MCP`` when none) changes, as ``override_settings`` does.

    The one ``setting_changed`` receiver runs them in the order registered,
    after ``mcp_settings`` forgot its values.
    """

    def register(function: F) -> F:
        _on_change.append((frozenset(names or {SETTINGS_NAME}), function))
        return function

    return register


@receiver(setting_changed)
def _settings_changed(*, setting: str, **kwargs: Any) -> None:
    for names, function in _on_change:
        if setting in names:
            function()
