"""Shared caches: each caller's visible tools, and the built tool schemas.

Both live in the Django cache named by ``CACHE`` (every worker sharing it
shares them), under keys holding a :func:`fingerprint` of the installed code,
the settings and the URLconf. Without the setting nothing is cached here.
Saves of the models that grant rights make every cached tool set stale.
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
from django.core.signals import setting_changed
from django.db import transaction
from django.db.models.signals import m2m_changed, post_delete, post_save
from django.dispatch import receiver

import frisian_mcp
from frisian_mcp.conf import mcp_settings
from frisian_mcp.exceptions import ConfigurationError
from frisian_mcp.types import CallContext

__all__ = [
    "bump_generation",
    "fingerprint",
    "load",
    "store",
    "visible_key",
    "watch_permissions",
]

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


#: The models whose saves and deletes are listened to, by lowercase label;
#: the user model's m2m changes (likes, follows) grant nothing by themselves.
_watched: dict[str, type[Any]] = {}
_grants: set[str] = set()


@receiver(m2m_changed)
def _grants_changed(*, instance: Any, model: Any, action: str, **kwargs: Any) -> None:
    if action.startswith("post_") and (_is_grant(model) or _is_grant(instance)):
        _stale(kwargs.get("using"))


def _rights_changed(**kwargs: Any) -> None:
    fields = kwargs.get("update_fields")
    if fields is None or not set(fields) <= {"last_login"}:  # not a login
        _stale(kwargs.get("using"))


def _is_grant(obj: Any) -> bool:
    """Whether ``obj`` is (an instance of) a model that grants rights."""
    meta = getattr(obj, "_meta", None)
    return meta is not None and meta.label_lower in _grants


def _stale(using: str | None) -> None:
    """Make every cached tool set stale, now and when the change commits.

    A listing built in between would read the old rights and keep them.
    """
    if _mark_stale() and transaction.get_connection(using).in_atomic_block:
        transaction.on_commit(_mark_stale, using=using)


def _mark_stale() -> bool:
    """Bump the generation; whether caching is on. Never raises: a cache
    outage must not fail the host's own save."""
    try:
        if backend() is None:
            return False
        bump_generation()
    except Exception as exc:  # whatever the cache backend raises
        logger.warning(
            "frisian_mcp: cached tool lists not marked stale (%s); they expire "
            "within CACHE_TTL_MS.",
            type(exc).__name__,
        )
    return True


def watch_permissions() -> None:
    """Listen to saves and deletes of every model that grants rights.

    Django's auth models, the user model and ``PERMISSION_MODELS``; by
    sender, so other models keep their fast deletes (docs/performance.md).
    Labels naming no installed model are skipped (``manage.py check`` says
    so). Called once the app registry is ready, and on a settings change.
    """
    from django.apps import apps

    for label in _watched:
        for signal in (post_save, post_delete):
            signal.disconnect(sender=_watched[label], dispatch_uid=f"fmcp:{label}")
    _watched.clear()
    _grants.clear()
    try:
        named = mcp_settings.PERMISSION_MODELS
    except ConfigurationError:  # FRISIAN_MCP is no dict: checks.py says so
        named = []
    # Values of the wrong type are reported by checks.py too.
    named = named if isinstance(named, list | tuple) else []
    grants, users = [name for name in named if isinstance(name, str)], []
    if apps.is_installed("django.contrib.auth"):
        grants += ["auth.Group", "auth.Permission"]
        users = [settings.AUTH_USER_MODEL]
    for name in grants + users:
        try:
            model = apps.get_model(name)
        except (LookupError, ValueError):
            continue
        label = model._meta.label_lower
        _watched[label] = model
        if name in grants:
            _grants.add(label)
        for signal in (post_save, post_delete):
            signal.connect(_rights_changed, sender=model, dispatch_uid=f"fmcp:{label}")


@receiver(setting_changed)
def _rewatch(*, setting: str, **kwargs: Any) -> None:
    if setting in ("FRISIAN_MCP", "AUTH_USER_MODEL"):
        watch_permissions()


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
