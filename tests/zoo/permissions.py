"""A project's own permission class, subclassing only ``BasePermission``.

Reads need membership of the readers group; writes need the model
permission for the action (``zoo.add_device`` ...). A locked device is
changed by superusers only (an object-level check).
"""

from __future__ import annotations

from typing import Any

from rest_framework.permissions import SAFE_METHODS, BasePermission
from rest_framework.request import Request
from rest_framework.views import APIView

__all__ = ["READERS_GROUP", "ZooObjectPermission"]

READERS_GROUP = "zoo-readers"

_ACTIONS = {"POST": "add", "PUT": "change", "PATCH": "change", "DELETE": "delete"}


class ZooObjectPermission(BasePermission):
    """Group membership for reads, model permissions for writes."""

    message = "You may not do this to devices."

    def has_permission(self, request: Request, view: APIView) -> bool:
        user = request.user
        if not (user and user.is_authenticated):
            return False
        if user.is_superuser:
            return True
        if request.method in SAFE_METHODS:
            return bool(user.groups.filter(name=READERS_GROUP).exists())
        if request.method not in _ACTIONS:  # no write this class knows of
            return False
        opts = view.get_queryset().model._meta  # type: ignore[attr-defined]
        perm = f"{opts.app_label}.{_ACTIONS[request.method]}_{opts.model_name}"
        return bool(user.has_perm(perm))

    def has_object_permission(self, request: Request, view: APIView, obj: Any) -> bool:
        if request.method in SAFE_METHODS:
            return True
        if getattr(obj, "locked", False) and not request.user.is_superuser:
            self.message = "This device is locked; only superusers may change it."
            return False
        return True
