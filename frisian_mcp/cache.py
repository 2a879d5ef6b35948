"""Shared caches: each caller's visible tools, and the built tool schemas.

Both live in the Django cache named by ``CACHE`` (every worker sharing it
shares them), under keys holding a :func:`fingerprint` of the installed code,
the settings and the URLconf. Without the setting nothing is cached here.
"""

from __future__ import annotations

import dataclasses
import functools
import gc
import hashlib
import importlib.metadata
import json
import logging
import sys
from collections.abc import Iterable
from typing import Any

from django.conf import settings
from django.core.cache import BaseCache, caches
from django.core.cache.backends.base import InvalidCacheBackendError
from django.db.models.signals import m2m_changed, post_delete, post_save
from django.dispatch import receiver

import frisian_mcp
from frisian_mcp.conf import mcp_settings
from frisian_mcp.types import CallContext

__all__ = ["bump_generation", "fingerprint", "load", "store", "visible_key"]

logger = logging.getLogger("frisian_mcp")

#: The cache key whose value changes whenever any user's permissions change.
GENERATION_KEY = "frisian_mcp:generation"
_SETTINGS = ("FRISIAN_MCP", "REST_FRAMEWORK", "SPECTACULAR_SETTINGS", "ROOT_URLCONF")
_LIBRARIES = ("django", "djangorestframework", "drf-spectacular", "django-filter")


def backend() -> BaseCache | None:
    """The configured Django cache, or ``None`` when caching is off."""
    alias = mcp_settings.CACHE
    if not alias:
        return None
    try:
        return caches[alias]
    except InvalidCacheBackendError:
        return None  # checks.py reports the unknown alias


def fingerprint(views: Iterable[tuple[str, str, type[Any]]]) -> str:
    """A digest of what tool schemas depend on, equal across workers.

    ``views`` are (tool name, path, view class). The digest covers library
    versions, the settings and the source of every module in each view's
    and serializer's class hierarchy, so a deploy changes it.
    """
    digest = hashlib.sha256()
    for library in _LIBRARIES:
        digest.update(f"{library}={_version(library)};".encode())
    digest.update(frisian_mcp.__version__.encode())
    named = {key: getattr(settings, key, None) for key in _SETTINGS}
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


def visible_key(fingerprint: str, context: CallContext) -> str:
    """The key of one caller's visible tool names.

    A caller is its user, the authenticator that recognised it and the
    credential (hashed): two tokens of one user may be allowed differently.
    """
    auth = context.auth
    credential = getattr(auth, "pk", None)
    if credential is None and auth is not None:
        credential = repr(auth)
    authenticator = type(context.authenticator).__qualname__
    raw = f"{context.caller}|{authenticator}|{type(auth).__qualname__}:{credential}"
    caller = hashlib.sha256(raw.encode()).hexdigest()[:32]
    return f"frisian_mcp:visible:{fingerprint}:{caller}"


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


def store(key: str, value: Any, timeout: float | None) -> None:
    """Store ``value`` under ``key`` for ``timeout`` seconds (None: forever)."""
    cache = backend()
    if cache is not None:
        cache.set(key, (cache.get(GENERATION_KEY, 0), value), timeout)


def bump_generation(**kwargs: Any) -> None:
    """Make every cached visible tool set stale (permissions changed)."""
    cache = backend()
    if cache is None:
        return
    try:
        cache.incr(GENERATION_KEY)
    except ValueError:  # not there yet
        cache.set(GENERATION_KEY, 1, None)


@receiver(m2m_changed)
def _grants_changed(*, instance: Any, model: Any, action: str, **kwargs: Any) -> None:
    if action.startswith("post_") and (_is_grant(model) or _is_grant(instance)):
        bump_generation()


def _rights_changed(**kwargs: Any) -> None:
    fields = kwargs.get("update_fields")
    if fields is None or not set(fields) <= {"last_login"}:  # not a login
        bump_generation()


def _is_grant(obj: Any) -> bool:
    """Whether ``obj`` is (an instance of) auth's Group or Permission."""
    meta = getattr(obj, "_meta", None)
    return meta is not None and meta.label in ("auth.Group", "auth.Permission")


def _connect() -> None:
    """Listen to saves of users, groups and permissions, by sender only.

    By sender so host models keep their fast deletes (docs/performance.md).
    """
    from django.apps import apps

    if not apps.is_installed("django.contrib.auth"):
        return
    for label in {settings.AUTH_USER_MODEL, "auth.Group", "auth.Permission"}:
        for signal in (post_save, post_delete):
            signal.connect(_rights_changed, sender=label, dispatch_uid=f"fmcp:{label}")


_connect()


def frozen(schema: Any) -> Any:
    """A copy of a tool schema without its cached, derived attributes."""
    return dataclasses.replace(schema) if schema is not None else None


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
