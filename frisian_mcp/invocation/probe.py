"""Permission probes: may this caller use this action at all?

``tools/list`` shows a caller only the tools its permissions allow (DESIGN.md
§9). A probe sets the view up as DRF's dispatch would for a request of the
action's method and runs the view's ``check_permissions`` (``has_permission``
of every permission class), touching no object and counting no throttle.
Inner requests are built once per HTTP method and shared by every probe of
one ``tools/list``, so probing hundreds of tools stays cheap.
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.handlers.wsgi import WSGIRequest
from rest_framework import exceptions as drf_exceptions
from rest_framework import generics, permissions
from rest_framework.views import APIView

from frisian_mcp.discovery import Endpoint
from frisian_mcp.invocation.requests import (
    accepts_caller,
    authentication_of,
    build_bare_request,
)
from frisian_mcp.invocation.types import CallContext

__all__ = ["PermissionProbe"]

logger = logging.getLogger("frisian_mcp")


class PermissionProbe:
    """Answers "may the caller use this endpoint?" for one caller."""

    def __init__(self, context: CallContext) -> None:
        self.context = context
        self._requests: dict[str, WSGIRequest] = {}
        self._answers: dict[tuple[Any, ...], bool] = {}

    def allows(self, endpoint: Endpoint) -> bool:
        """Whether the view's permission classes let the caller in.

        A permission class that cannot decide without a URL variable or an
        object (it raises something other than a DRF permission error) lets
        the tool be listed; the call itself is checked in full. Views whose
        permission classes are DRF's stock ones share answers: those classes
        look at nothing but the caller, the HTTP method and the model.
        """
        key = _shared_key(endpoint) or (
            endpoint.view_class,
            endpoint.method,
            endpoint.handler_name,
        )
        answer = self._answers.get(key)
        if answer is None:
            answer = self._answers[key] = self._check(endpoint)
        return answer

    def _check(self, endpoint: Endpoint) -> bool:
        # Views the caller is forced onto share one inner request per method.
        # Others authenticate it themselves, and DRF writes the user they
        # find onto it: each gets its own.
        shared = self.context.is_authenticated and accepts_caller(
            endpoint, self.context
        )
        inner = self._requests.get(endpoint.method) if shared else None
        if inner is None:
            inner = build_bare_request(endpoint.method, self.context, endpoint)
            if shared:
                self._requests[endpoint.method] = inner
        view: Any = endpoint.view_class(**endpoint.initkwargs)
        actions = endpoint.actions
        if actions is not None:
            view.action_map = actions
            for method, action in actions.items():
                setattr(view, method, getattr(view, action))
        view.args, view.kwargs = (), dict(endpoint.fixed_kwargs)
        view.request = inner
        view.format_kwarg = None
        try:
            request = view.initialize_request(inner)
            view.request = request
            view.check_permissions(request)
        except (
            drf_exceptions.NotAuthenticated,
            drf_exceptions.PermissionDenied,
            drf_exceptions.AuthenticationFailed,
        ):
            return False
        except Exception:  # undecidable without an object or URL variables
            logger.debug(
                "frisian_mcp: permission probe of %s could not decide",
                endpoint.path,
                exc_info=True,
            )
        return True


#: DRF permission classes whose ``has_permission`` depends only on the user
#: and the HTTP method.
_CALLER_ONLY = frozenset(
    {
        permissions.AllowAny,
        permissions.IsAuthenticated,
        permissions.IsAdminUser,
        permissions.IsAuthenticatedOrReadOnly,
    }
)
#: ... and on the model of the view's queryset as well.
_MODEL_BASED = frozenset(
    {
        permissions.DjangoModelPermissions,
        permissions.DjangoModelPermissionsOrAnonReadOnly,
        permissions.DjangoObjectPermissions,
    }
)


def _shared_key(endpoint: Endpoint) -> tuple[Any, ...] | None:
    """A key shared by views whose probes must answer alike, or ``None``.

    Only exact stock classes qualify (a subclass may look at anything), and
    model-based ones only with a plain ``queryset`` attribute: an overridden
    ``get_queryset`` might return another model per request.
    """
    view_class = endpoint.view_class
    if (
        "permission_classes" in endpoint.initkwargs
        or "queryset" in endpoint.initkwargs
        or getattr(view_class, "get_permissions", None) is not APIView.get_permissions
        or getattr(view_class, "check_permissions", None)
        is not APIView.check_permissions
    ):
        return None  # decided per action or per request, not by the class
    classes = tuple(getattr(view_class, "permission_classes", ()) or ())
    if not all(cls in _CALLER_ONLY or cls in _MODEL_BASED for cls in classes):
        return None
    model = None
    if any(cls in _MODEL_BASED for cls in classes):
        queryset = getattr(view_class, "queryset", None)
        get_queryset = getattr(view_class, "get_queryset", None)
        if queryset is None or get_queryset is not generics.GenericAPIView.get_queryset:
            return None
        model = queryset.model
    return ("shared", endpoint.method, classes, model, authentication_of(endpoint))
