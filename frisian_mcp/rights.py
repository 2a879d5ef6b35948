"""When a caller's rights change, and what a listing keeps until they do.

Saves, deletes and many-to-many changes of the models that grant rights
(Django's auth models, the user model, ``PERMISSION_MODELS``) move this
process's :func:`generation` and send :data:`permissions_changed`, now and
again when the change commits. :class:`Answers` keeps each caller's
permission answers for listings while the generation holds (ADR 0032).
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections import OrderedDict
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models.signals import m2m_changed, post_delete, post_save
from django.dispatch import Signal, receiver

from frisian_mcp.conf import mcp_settings, on_change
from frisian_mcp.exceptions import ConfigurationError
from frisian_mcp.types import CallContext

__all__ = [
    "CALLERS_KEPT",
    "Answers",
    "generation",
    "identity",
    "permissions_changed",
    "watch_permissions",
]

#: Sent when rights may have changed (``using``: the database alias), once
#: at the change and once more when its transaction commits.
permissions_changed = Signal()
#: Callers whose answers a process keeps; the least recent goes first.
CALLERS_KEPT = 512

_generation = [0]
#: The models listened to, by lowercase label; the user model's own m2m
#: changes (likes, follows) grant nothing by themselves.
_watched: dict[str, type[Any]] = {}
_grants: set[str] = set()


def generation() -> int:
    """This process's permission generation: it moves when rights change."""
    return _generation[0]


def identity(context: CallContext) -> str:
    """Who calls, as far as permission classes can tell callers apart, hashed.

    The user, the authenticator that recognised it and the credential: two
    tokens of one user may be allowed differently (a model instance by its
    primary key, anything else by its ``repr``). A token model's key is the
    token itself, so only a digest is kept, in the process or a cache.
    """
    auth = context.auth
    credential = getattr(auth, "pk", None)
    if credential is None and auth is not None:
        credential = repr(auth)
    authenticator = type(context.authenticator).__qualname__
    raw = f"{context.caller}|{authenticator}|{type(auth).__qualname__}:{credential}"
    return hashlib.sha256(raw.encode()).hexdigest()[:32]


class Answers:
    """Each caller's permission answers for listings, kept in the process.

    Good while :func:`generation` holds, and for at most ``CACHE_TTL_MS``:
    a grant saved in another process reaches this one's listings within
    that time. Calls are always checked in full.
    """

    def __init__(self) -> None:
        self._kept: OrderedDict[str, tuple[int, float, dict[Any, bool]]]
        self._kept = OrderedDict()
        self._lock = threading.Lock()

    def of(self, context: CallContext) -> dict[Any, bool]:
        """The caller's answers so far, to read and add to."""
        ttl = mcp_settings.CACHE_TTL_MS / 1000
        if ttl <= 0:
            return {}
        key, now, current = identity(context), time.monotonic(), _generation[0]
        with self._lock:
            found = self._kept.get(key)
            if found is None or found[0] != current or found[1] <= now:
                found = self._kept[key] = (current, now + ttl, {})
                if len(self._kept) > CALLERS_KEPT:
                    self._kept.popitem(last=False)
            self._kept.move_to_end(key)
        return found[2]


def _changed(using: str | None = None) -> None:
    _generation[0] += 1
    permissions_changed.send(sender=Answers, using=using)


def _stale(using: str | None) -> None:
    """Rights changed: now, and again when the change commits.

    A listing made in between would read the old rights and keep them.
    """
    _changed(using)
    if transaction.get_connection(using).in_atomic_block:
        transaction.on_commit(lambda: _changed(using), using=using)


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


def watch_permissions() -> None:
    """Listen to saves and deletes of every model that grants rights.

    By sender, so that other models keep Django's fast deletes. Labels
    naming no installed model are skipped (``manage.py check`` says so).
    Called once the app registry is ready, and on a settings change.
    """
    from django.apps import apps

    for label, model in _watched.items():
        for signal in (post_save, post_delete):
            signal.disconnect(sender=model, dispatch_uid=f"fmcp:{label}")
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


@on_change("FRISIAN_MCP", "AUTH_USER_MODEL")
def _rewatch() -> None:
    watch_permissions()
