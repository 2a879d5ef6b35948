"""The shared cache, as advice: bounded waits, one warning, debts paid.

Every use of the Django cache named by ``CACHE`` goes through :func:`call`.
A Redis alias without timeouts of its own gets :data:`TIMEOUT`; a failure
leaves the cache alone for :data:`RETRY_AFTER` seconds (the caller works
from what its process builds and probes), logs one warning per outage, and
owes an invalidation: before anything is read again, the generation is
bumped, so no tool list cached before the outage is trusted (ADR 0023).
"""

from __future__ import annotations

import gc
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from django.core.cache import BaseCache, caches
from django.utils.module_loading import import_string

from frisian_mcp.conf import mcp_settings, on_change

__all__ = ["GENERATION_KEY", "backend", "bump_generation", "call", "load", "store"]

logger = logging.getLogger("frisian_mcp")
_T = TypeVar("_T")

#: The cache key whose value changes whenever any user's permissions change.
GENERATION_KEY = "frisian_mcp:generation"
#: Seconds a connect or a read may take, for aliases that set no timeout.
TIMEOUT = 0.5
#: Seconds the cache is left alone after a failure; at most one warning
#: per ``WARN_EVERY`` seconds.
RETRY_AFTER, WARN_EVERY = 10.0, 60.0
#: Backends whose OPTIONS take socket timeouts, and their names.
_TIMEOUT_OPTIONS = {
    "django.core.cache.backends.redis.RedisCache": (
        "socket_connect_timeout",
        "socket_timeout",
    ),
}


@dataclass
class Health:
    """What one process knows of the shared cache."""

    #: Monotonic time before which the cache is not tried again.
    retry_at: float = 0.0
    #: An invalidation to make before the cache is trusted again.
    owed: bool = False
    down: bool = False
    warned_at: float = float("-inf")
    #: How many times the cache went down (the fleet store checks its
    #: schemas are still there after each).
    outages: int = 0

    def reset(self) -> None:
        """Try the cache again, warn anew: the settings changed.

        An owed invalidation stays owed: a new setting pays no debt.
        """
        self.retry_at, self.down, self.warned_at = 0.0, False, float("-inf")


health = Health()
_local = threading.local()
_epoch = [0]  # bumped when CACHES or FRISIAN_MCP change: reconnect


def backend() -> BaseCache | None:
    """This thread's connection to the ``CACHE`` alias, or ``None``."""
    alias = mcp_settings.CACHE
    if not alias or alias not in caches.settings:
        return None  # checks.py reports an unknown alias
    if getattr(_local, "epoch", None) != _epoch[0]:
        _local.epoch, _local.caches = _epoch[0], {}
    found: dict[str, BaseCache] = _local.caches
    if alias not in found:
        found[alias] = _connect(alias)
    return found[alias]


def _connect(alias: str) -> BaseCache:
    """The alias's backend, with bounded waits where it sets none."""
    params = dict(caches.settings[alias])
    names = _TIMEOUT_OPTIONS.get(params.get("BACKEND", ""))
    if names is None:
        return caches[alias]
    options = dict(params.get("OPTIONS") or {})
    for name in names:
        options.setdefault(name, TIMEOUT)
    backend_class = import_string(params.pop("BACKEND"))
    cache: BaseCache = backend_class(
        params.pop("LOCATION", ""), {**params, "OPTIONS": options}
    )
    return cache


def call(operation: Callable[[BaseCache], _T], default: _T) -> _T:
    """``operation(cache)``, or ``default`` without a reachable cache.

    Pays an owed invalidation first. Whatever the cache backend raises (the
    host's configured service: connection refused, timeouts) marks it down.
    """
    cache = backend()
    if cache is None or time.monotonic() < health.retry_at:
        return default
    try:
        if health.owed:
            _bump(cache)
            health.owed = False
        result = operation(cache)
    except Exception as exc:  # the host's cache backend, whatever it raises
        _failed(exc)
        return default
    if health.down:
        health.down = False
        logger.info("frisian_mcp: the shared cache answers again.")
    return result


def _failed(exc: Exception) -> None:
    now = time.monotonic()
    health.retry_at, health.owed = now + RETRY_AFTER, True
    health.outages += not health.down
    if not health.down and now - health.warned_at >= WARN_EVERY:
        health.warned_at = now
        logger.warning(
            "frisian_mcp: the shared cache %r is unreachable (%s); tools are "
            "listed and called from this process's own work, and cached tool "
            "lists are not trusted until it is back.",
            mcp_settings.CACHE,
            type(exc).__name__,
        )
    health.down = True


def load(key: str, *, rights: bool = True) -> Any:
    """The value stored under ``key``, or ``None``.

    With ``rights`` (a tool list), only a value stored in this permission
    generation; a schema (``rights=False``) outlives permission changes.
    """
    keys = [key, GENERATION_KEY] if rights else [key]

    def read(cache: BaseCache) -> Any:
        # Unpickling a fleet's schemas makes many small objects at once: the
        # cyclic collector would run every few hundred of them (7x the time).
        collecting = gc.isenabled()
        gc.disable()
        try:
            return cache.get_many(keys)
        finally:
            if collecting:
                gc.enable()

    found: dict[str, Any] = call(read, {})
    entry = found.get(key)
    if not isinstance(entry, tuple) or len(entry) != 2:
        return None
    generation, value = entry
    current = found.get(GENERATION_KEY, 0)
    return value if not rights or generation == current else None


def store(key: str, value: Any, timeout: float | None, *, rights: bool = True) -> bool:
    """Store ``value`` under ``key`` for ``timeout`` seconds; whether it was.

    With ``rights``, tagged with the permission generation (see :func:`load`).
    """

    def write(cache: BaseCache) -> bool:
        generation = cache.get(GENERATION_KEY, 0) if rights else None
        cache.set(key, (generation, value), timeout)
        return True

    return call(write, False)


def bump_generation() -> None:
    """Make every cached tool list stale; owed while the cache is down."""
    if not call(_bump, False) and backend() is not None:
        health.owed = True


def _bump(cache: BaseCache) -> bool:
    try:
        cache.incr(GENERATION_KEY)
    except ValueError:  # not there yet
        cache.set(GENERATION_KEY, 1, None)
    return True


@on_change("CACHES", "FRISIAN_MCP")
def _reconnect() -> None:
    _epoch[0] += 1
    health.reset()
