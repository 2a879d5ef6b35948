"""Permission classes of the test app.

:class:`DutchPublisherPermission` decides per object (``has_object_permission``),
so it is known only once the row is loaded: a tool list cannot hide the tools
it guards, and each call must be refused by the view itself, as over REST.
"""

from __future__ import annotations

from typing import Any

from rest_framework import permissions
from rest_framework.request import Request
from rest_framework.views import APIView

__all__ = ["DutchPublisherPermission"]


class DutchPublisherPermission(permissions.BasePermission):
    """Signed-in users may read publishers and change most of them.

    A Dutch publisher (``country == "NL"``) may be changed or deleted by
    superusers only.
    """

    message = "Only superusers may change or delete a Dutch publisher."

    def has_permission(self, request: Request, view: APIView) -> bool:
        """Any signed-in user passes the view-level check."""
        return bool(request.user and request.user.is_authenticated)

    def has_object_permission(self, request: Request, view: APIView, obj: Any) -> bool:
        """Reads pass; writes to a Dutch publisher need a superuser."""
        if request.method in permissions.SAFE_METHODS:
            return True
        return obj.country != "NL" or bool(request.user.is_superuser)
