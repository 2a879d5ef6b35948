"""Saves of the models that grant rights make every cached tool list stale.

Django's auth models, the user model and ``PERMISSION_MODELS``, listened to
by sender (other models keep their fast deletes), connected when the app is
ready so every process marks them: web workers, task workers and commands.
A cache outage never fails the host's save: the invalidation is owed
(:func:`~frisian_mcp.contrib.fleet.cache.bump_generation`).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models.signals import m2m_changed, post_delete, post_save
from django.dispatch import receiver

from frisian_mcp.conf import mcp_settings, on_change
from frisian_mcp.contrib.fleet import cache
from frisian_mcp.exceptions import ConfigurationError

__all__ = ["watch_permissions"]

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
    # The store's module, with the call path below it, loads on first use:
    # setting Django up imports neither.
    from frisian_mcp.contrib.fleet.store import enabled

    try:
        on = enabled()
    except ConfigurationError:  # a broken FRISIAN_MCP: checks.py says so
        return
    if on:
        cache.bump_generation()
        if transaction.get_connection(using).in_atomic_block:
            transaction.on_commit(cache.bump_generation, using=using)


def watch_permissions() -> None:
    """Listen to saves and deletes of every model that grants rights.

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


@on_change("FRISIAN_MCP", "AUTH_USER_MODEL")
def _rewatch() -> None:
    watch_permissions()
