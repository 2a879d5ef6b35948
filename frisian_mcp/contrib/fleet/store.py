"""The fleet store: built schemas and each caller's visible tools, shared.

Both live in the Django cache named by ``CACHE`` (every worker sharing it
shares them), under keys holding a :func:`fingerprint` of the installed code,
the settings and the URLconf. Enabled by ``STORE_BACKEND`` naming
:class:`FleetStore`, with ``frisian_mcp.contrib.fleet`` installed (its
receivers make cached tool lists stale when permissions change).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import importlib.metadata
import json
import sys
import threading
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from django.apps import apps
from django.conf import settings
from django.core.cache import BaseCache
from django.utils.module_loading import import_string

import frisian_mcp
from frisian_mcp.conf import mcp_settings
from frisian_mcp.contrib.fleet import cache
from frisian_mcp.exceptions import ConfigurationError
from frisian_mcp.rights import identity
from frisian_mcp.types import CallContext, dotted
from frisian_mcp.visibility import BaseStore

if TYPE_CHECKING:
    from frisian_mcp.registry import ToolRegistry
    from frisian_mcp.tools import Tool

__all__ = ["FleetStore", "enabled", "fingerprint", "visible_key"]

_SETTINGS = ("FRISIAN_MCP", "REST_FRAMEWORK", "SPECTACULAR_SETTINGS", "ROOT_URLCONF")
_LIBRARIES = ("django", "djangorestframework", "drf-spectacular", "django-filter")
APP = "frisian_mcp.contrib.fleet"
#: Seconds between a worker's checks that the shared cache still holds its
#: schemas (FleetStore.share_schemas); an outage starts a new period.
RECHECK = 30.0


def enabled() -> bool:
    """Whether ``STORE_BACKEND`` names the fleet store (and ``CACHE`` an alias)."""
    backend = mcp_settings.STORE_BACKEND
    return (
        isinstance(backend, type)
        and issubclass(backend, FleetStore)
        and cache.backend() is not None
    )


class FleetStore(BaseStore):
    """Keeps schemas and visible sets in the ``CACHE`` alias, for every worker."""

    def __init__(self, registry: ToolRegistry) -> None:
        if not apps.is_installed(APP):
            raise ConfigurationError(
                f"FRISIAN_MCP['STORE_BACKEND'] names the fleet store: add {APP!r} "
                "to INSTALLED_APPS, whose receivers make cached tool lists "
                "stale when permissions change (docs/fleet.md)."
            )
        super().__init__(registry)
        self._loaded, self._stored = False, 0
        self._checked = (0, 0)
        self._loading = threading.Lock()

    @functools.cached_property
    def fingerprint(self) -> str:
        """What the registry's schemas depend on, as a digest."""
        return fingerprint(
            (t.name, t.endpoint.path, t.endpoint.view_class) for t in self.registry
        )

    def share_schemas(self) -> None:
        """Take built schemas from the shared cache, and put new ones there.

        A worker whose fleet already built a schema skips building it; a
        worker that built more than it found stores what it has, merged with
        what the fleet stored meanwhile. A tool's variants (ADR 0031) are
        kept by tool and serializer class. At most every :data:`RECHECK`
        seconds, and after an outage, a worker checks that the cache still
        holds as many schemas as it has (a Redis restarted empty, an
        eviction) and stores them again if not.
        """
        if cache.backend() is None:
            return
        # The warm-up's thread and a first request may list at once: the
        # second waits for the first's adoption instead of building.
        with self._loading:
            if not self._loaded:
                self._adopt(cache.load(self._key, rights=False))
                self._loaded, self._checked = True, self._period()
            elif self._period() != self._checked:
                # Two small reads: is the entry there, and how full is it?
                held = cache.call(self._held, None)
                if held is not None:  # else checked again once it answers
                    self._checked = self._period()
                    # Gone or shrunk (a restart, an eviction): store again.
                    self._stored = min(self._stored, held)
        built = self._built()
        if len(built) > self._stored:
            self._store(built)

    @property
    def _key(self) -> str:
        return f"frisian_mcp:schemas:{self.fingerprint}"

    def _period(self) -> tuple[int, int]:
        """The current check period: the outages so far, and the period's
        number (a check runs when either moved)."""
        return cache.health.outages, int(time.monotonic() // RECHECK)

    def _held(self, backend: BaseCache) -> int:
        """How many schemas the shared cache holds (0: none)."""
        if not backend.has_key(self._key):
            return 0
        count = backend.get(f"{self._key}:count")
        return count if isinstance(count, int) else 0

    def _adopt(self, found: Any) -> None:
        """Adopt the schemas of a stored entry this process has not built."""
        if not (isinstance(found, tuple) and len(found) == 2):
            return
        schemas, problems = found
        registry = self.registry
        for tool in registry:
            if not tool.built and tool.name in schemas:
                tool.adopt(schemas[tool.name])
        _adopt_variants(registry, schemas)
        known = set(registry.builder.problems)
        registry.builder.problems.extend(p for p in problems if p not in known)
        # Ours only: entries no class here matches must not hide our new ones.
        self._stored = len(self._built().keys() & schemas.keys())

    def _built(self) -> dict[Any, Tool]:
        """This process's built schemas (and variants), by their stored key."""
        registry = self.registry
        built: dict[Any, Tool] = {t.name: t for t in registry if t.built}
        built.update(
            ((t.name, *_variant_key(v.serializer)), v)
            for t in registry
            for v in t.variants
            if v.built and v.serializer is not None
        )
        return built

    def _store(self, built: dict[Any, Tool]) -> None:
        """Store ``built`` merged with what the cache holds now, so that a
        worker that found the cache empty never shrinks a fuller entry."""
        found = cache.load(self._key, rights=False)
        whole = isinstance(found, tuple) and len(found) == 2
        held, problems = found if whole else ({}, [])
        # A copy without the schema's cached, derived attributes.
        schemas = {
            **held,
            **{
                name: None if t.schema is None else dataclasses.replace(t.schema)
                for name, t in built.items()
            },
        }
        merged = list(dict.fromkeys([*problems, *self.registry.problems]))
        # Nothing new: the fleet has it all (only the count may be missing).
        new = schemas.keys() != held.keys()
        if not new or cache.store(self._key, (schemas, merged), None, rights=False):
            count = f"{self._key}:count"
            cache.call(lambda backend: backend.set(count, len(schemas), None), None)
            self._stored = len(built)

    def visible(
        self, context: CallContext, probe: Callable[[], frozenset[str]]
    ) -> frozenset[str]:
        """The caller's visible set from the cache, or probed and stored."""
        ttl = mcp_settings.CACHE_TTL_MS
        if ttl <= 0 or cache.backend() is None:
            return probe()
        key = visible_key(self.fingerprint, context)
        found = cache.load(key)
        if isinstance(found, frozenset):
            return found
        names = probe()
        cache.store(key, names, ttl / 1000)
        return names


def _variant_key(serializer: type[Any]) -> tuple[str, str]:
    """A variant's serializer class (ADR 0031): its dotted path and a digest
    of its code, which the fingerprint of the views may not cover."""
    files = sorted({_source(cls.__module__) for cls in serializer.__mro__} - {""})
    code = hashlib.sha256(b"".join(_file_digest(path) for path in files))
    return dotted(serializer), code.hexdigest()[:32]


def _adopt_variants(registry: ToolRegistry, schemas: dict[Any, Any]) -> None:
    """Adopt the variants' schemas whose class imports here, unchanged."""
    for key, schema in schemas.items():
        if not isinstance(key, tuple) or len(key) != 3:
            continue
        tool = registry.get(key[0])
        try:
            serializer = import_string(key[1])
        except ImportError:  # a class no dotted path reaches: built here
            continue
        if (
            tool is not None
            and isinstance(serializer, type)
            and _variant_key(serializer) == key[1:]
            and not tool.variant(serializer).built
        ):
            tool.adopt(schema, serializer)


def visible_key(fingerprint: str, context: CallContext) -> str:
    """The key of one caller's visible tool names.

    A caller is its :func:`~frisian_mcp.rights.identity` (a digest): its user,
    authenticator and credential.
    """
    return f"frisian_mcp:visible:{fingerprint}:{identity(context)}"


def fingerprint(views: Iterable[tuple[str, str, type[Any]]]) -> str:
    """A digest of what tool schemas depend on, equal across workers.

    ``views`` are (tool name, path, view class). The digest covers library
    versions, the settings, the call hooks and the source of every module
    in each view's and serializer's class hierarchy, so a deploy changes it.
    """
    digest = hashlib.sha256()
    for library in _LIBRARIES:
        digest.update(f"{library}={_version(library)};".encode())
    digest.update(frisian_mcp.__version__.encode())
    named = {key: getattr(settings, key, None) for key in _SETTINGS}
    # Installed extras add call hooks, which map schemas (ADR 0032).
    named["CALL_HOOKS"] = [_stable(hook) for hook in mcp_settings.CALL_HOOKS]
    try:
        digest.update(json.dumps(named, sort_keys=True, default=_stable).encode())
    except (TypeError, ValueError):  # keys of mixed types, cycles
        digest.update(repr(named).encode())  # per process: correct, unshared
    files: set[str] = set()
    for name, path, view in sorted(views, key=lambda entry: entry[:2]):
        digest.update(f"{name} {path} {view.__module__}.{view.__qualname__};".encode())
        classes = list(view.__mro__)
        serializer = getattr(view, "serializer_class", None)
        if isinstance(serializer, type):
            classes.extend(serializer.__mro__)
        files.update(_source(cls.__module__) for cls in classes)
    for path in sorted(files - {""}):
        digest.update(_file_digest(path))
    return digest.hexdigest()[:32]


def _stable(value: Any) -> str:
    """A JSON stand-in for a setting value, the same in every process."""
    name = getattr(value, "__qualname__", None)
    if name is not None:
        return f"{getattr(value, '__module__', '')}.{name}"
    return type(value).__qualname__


def _source(module: str) -> str:
    return getattr(sys.modules.get(module), "__file__", None) or ""


@functools.cache
def _file_digest(path: str) -> bytes:
    try:
        with open(path, "rb") as source:
            return hashlib.sha256(source.read()).digest()
    except OSError:
        return path.encode()


@functools.cache
def _version(library: str) -> str:
    try:
        return importlib.metadata.version(library)
    except importlib.metadata.PackageNotFoundError:
        return "-"
