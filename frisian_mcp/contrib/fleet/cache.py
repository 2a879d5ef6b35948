"""The shared cache of the fleet store: values bound to a permission generation.

The Django cache named by ``CACHE`` holds the values; :data:`GENERATION_KEY`
changes whenever any user's permissions change, which makes every value
stored before stale.
"""

from __future__ import annotations

import gc
from typing import Any

from django.core.cache import BaseCache, caches
from django.core.cache.backends.base import InvalidCacheBackendError

from frisian_mcp.conf import mcp_settings

__all__ = ["GENERATION_KEY", "backend", "bump_generation", "load", "store"]

#: The cache key whose value changes whenever any user's permissions change.
GENERATION_KEY = "frisian_mcp:generation"


def backend() -> BaseCache | None:
    """The configured Django cache, or ``None`` when caching is off."""
    alias = mcp_settings.CACHE
    if not alias:
        return None
    try:
        return caches[alias]
    except InvalidCacheBackendError:
        return None  # checks.py reports the unknown alias


def load(key: str) -> Any:
    """A value stored under ``key`` in this permission generation, or ``None``."""
    cache = backend()
    if cache is None:
        return None
    # Unpickling a fleet's schemas makes many small objects at once: the
    # cyclic collector would run every few hundred of them (7x the time).
    collecting = gc.isenabled()
    gc.disable()
    try:
        found = cache.get_many([key, GENERATION_KEY])
    finally:
        if collecting:
            gc.enable()
    entry = found.get(key)
    if not isinstance(entry, tuple) or len(entry) != 2:
        return None
    generation, value = entry
    return value if generation == found.get(GENERATION_KEY, 0) else None


def store(key: str, value: Any, timeout: float | None) -> bool:
    """Store ``value`` under ``key`` for ``timeout`` seconds; whether it was."""
    cache = backend()
    if cache is None:
        return False
    cache.set(key, (cache.get(GENERATION_KEY, 0), value), timeout)
    return True


def bump_generation() -> None:
    """Make every cached visible tool set stale (permissions changed)."""
    cache = backend()
    if cache is None:
        return
    try:
        cache.incr(GENERATION_KEY)
    except ValueError:  # not there yet
        cache.set(GENERATION_KEY, 1, None)
