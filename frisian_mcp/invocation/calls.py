"""Run actions: single calls, prepared views, and bulk creates.

:func:`invoke` hands the inner request to the view callback the URL resolves
to, exactly as Django's handler would (ADR 0001). :class:`ViewHandle` sets a
view up the way DRF's dispatch does and stops before the handler, for work
that must happen with the view's own context but without running the action:
checking permissions before resolving lookups, validating without writing.
:func:`invoke_bulk` saves a list of objects in one transaction through the
viewset's serializer (``many=True``) and ``perform_create``; a view that
overrides ``create`` or ``dispatch`` gets one dispatch per item instead, in the
same transaction.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from typing import Any

from django.db import (
    DEFAULT_DB_ALIAS,
    DataError,
    IntegrityError,
    OperationalError,
    router,
    transaction,
)
from django.db.models import ProtectedError, RestrictedError
from django.http import HttpResponseBase
from rest_framework import mixins
from rest_framework.generics import GenericAPIView
from rest_framework.response import Response
from rest_framework.views import APIView

from frisian_mcp.discovery import Endpoint
from frisian_mcp.invocation.pagination import ToolPagination, page_list
from frisian_mcp.invocation.requests import EndpointMismatch, build_request, resolve
from frisian_mcp.invocation.types import CallContext, InvocationResult, PreparedCall

__all__ = ["ViewHandle", "invoke", "invoke_bulk", "result_of", "validate_write"]

_WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
_CONFLICTS = (IntegrityError, ProtectedError, RestrictedError)
#: What a database raises for a query it cannot run as given: a value the
#: column cannot hold (DataError), or a query too long, too complex or too
#: slow for it (SQLite's LIKE pattern and expression depth limits, a
#: PostgreSQL statement timeout: OperationalError, caught on reads only).
_REFUSED_QUERIES = (DataError, OperationalError)
_NOT_FOUND = InvocationResult(status=404, data=None)


def invoke(
    endpoint: Endpoint, call: PreparedCall, context: CallContext
) -> InvocationResult:
    """Run ``endpoint``'s action for ``call`` as ``context``'s caller.

    Writes run in a transaction that is rolled back when the view answers
    with an error status, so a rejected call leaves no row behind even if
    the view wrote before failing. A query the database refuses (see
    ``_REFUSED_QUERIES``) comes back as status 400 with the exception, for
    the registry to report without quoting it; the write of a refused query
    is rolled back with its transaction.
    """
    request = build_request(endpoint, call, context)
    try:
        match = resolve(endpoint, call, request)
    except EndpointMismatch:
        return _NOT_FOUND
    callback = _callback(endpoint)
    using = database_of(endpoint)
    try:
        if endpoint.method in _WRITE_METHODS:
            with transaction.atomic(using=using):
                response = callback(request, *match.args, **match.kwargs)
                if response.status_code >= 400:
                    transaction.set_rollback(True, using=using)
        else:
            with _read_savepoint(using):
                response = callback(request, *match.args, **match.kwargs)
    except _CONFLICTS as exc:
        return InvocationResult(status=409, data=None, exception=exc)
    except DataError as exc:
        return InvocationResult(status=400, data=None, exception=exc)
    except OperationalError as exc:
        if endpoint.method in _WRITE_METHODS:
            raise
        return InvocationResult(status=400, data=None, exception=exc)
    result = result_of(response)
    if (
        endpoint.action == "list"
        and result.status < 400
        and isinstance(result.data, list)
    ):
        result.data = page_list(result.data, call.page, call.page_size)
    return result


def _read_savepoint(using: str) -> contextlib.AbstractContextManager[Any]:
    """A savepoint around a read that runs inside a transaction.

    A failed statement aborts the enclosing PostgreSQL transaction (under
    ``ATOMIC_REQUESTS``, say); rolling back to the savepoint keeps it usable.
    In autocommit, reads need nothing.
    """
    if transaction.get_connection(using).in_atomic_block:
        return transaction.atomic(using=using)
    return contextlib.nullcontext()


class ViewHandle:
    """A view set up as DRF's dispatch sets it up, stopped before the handler.

    Raises :class:`EndpointMismatch` when the call's lookup values do not
    address the endpoint. ``view`` and ``request`` are the view instance and
    its DRF ``Request``; API exceptions raised while using them become results
    through :meth:`result_for`.
    """

    def __init__(
        self, endpoint: Endpoint, context: CallContext, call: PreparedCall | None = None
    ) -> None:
        call = call or PreparedCall()
        inner = build_request(endpoint, call, context)
        match = resolve(endpoint, call, inner)
        view: APIView = endpoint.view_class(**endpoint.initkwargs)
        actions = endpoint.actions
        if actions is not None:
            # What ViewSetMixin.as_view()'s view function does.
            if "get" in actions and "head" not in actions:
                actions["head"] = actions["get"]
            view.action_map = actions  # type: ignore[attr-defined]
            for method, action in actions.items():
                setattr(view, method, getattr(view, action))
        view.args, view.kwargs = tuple(match.args), dict(match.kwargs)
        view.request = inner  # type: ignore[assignment]
        view.headers = view.default_response_headers
        self.endpoint = endpoint
        self.view = view
        self.request = view.initialize_request(inner, *view.args, **view.kwargs)
        view.request = self.request
        view.format_kwarg = view.get_format_suffix(**view.kwargs)

    def initial(self) -> None:
        """Content negotiation, versioning, authentication, permissions, throttles."""
        self.view.initial(self.request, *self.view.args, **self.view.kwargs)

    def check_permissions(self) -> None:
        """The view's permission checks, without counting a throttled call."""
        version, scheme = self.view.determine_version(
            self.request, *self.view.args, **self.view.kwargs
        )
        self.request.version, self.request.versioning_scheme = version, scheme
        self.view.check_permissions(self.request)

    def result_for(self, exc: Exception) -> InvocationResult:
        """The result the view's exception handler makes of ``exc``.

        Exceptions DRF does not handle are re-raised (conflicts become 409).
        """
        try:
            response = self.view.handle_exception(exc)
        except _CONFLICTS as conflict:
            return InvocationResult(status=409, data=None, exception=conflict)
        return result_of(response)


def validate_write(
    endpoint: Endpoint, call: PreparedCall, context: CallContext
) -> InvocationResult:
    """Check a create or update as the view would, without writing.

    Runs the view's ``initial()`` (authentication, permissions, throttles),
    ``get_object()`` for updates (object permissions, 404) and the
    serializer's validation; never ``perform_*``. Answers 200 with the
    validated data, or the error the view's handler makes.
    """
    try:
        handle = ViewHandle(endpoint, context, call)
    except EndpointMismatch:
        return _NOT_FOUND
    using = database_of(endpoint)
    view: Any = handle.view
    with transaction.atomic(using=using):
        try:
            handle.initial()
            if endpoint.method in ("PUT", "PATCH"):
                instance = view.get_object()
                serializer = view.get_serializer(
                    instance, data=call.body, partial=endpoint.method == "PATCH"
                )
            else:
                instance = None
                serializer = view.get_serializer(data=call.body)
            serializer.is_valid(raise_exception=True)
            data = {"validated": serializer.validated_data, "instance": instance}
            result = InvocationResult(status=200, data=data)
        except Exception as exc:
            result = handle.result_for(exc)
        # Validators may write (rarely); nothing they did survives.
        transaction.set_rollback(True, using=using)
    return result


def invoke_bulk(
    endpoint: Endpoint,
    items: list[dict[str, Any]],
    context: CallContext,
    *,
    validate_only: bool = False,
) -> InvocationResult:
    """Create every item, or none, through the view's serializer and hooks.

    Success is 201 with the created objects in input order (200 with the
    validated data when ``validate_only``; nothing is saved). A failing item
    makes the whole batch roll back; its result carries DRF's errors, per
    item for the ``many=True`` path, or with ``index`` set.
    """
    cls = endpoint.view_class
    stock = (
        issubclass(cls, mixins.CreateModelMixin)
        and cls.create is mixins.CreateModelMixin.create
        and cls.dispatch is APIView.dispatch
    )
    if not stock:
        return _bulk_by_dispatch(endpoint, items, context, validate_only)
    try:
        handle = ViewHandle(endpoint, context)
    except EndpointMismatch:
        return _NOT_FOUND
    using = database_of(endpoint)
    try:
        with transaction.atomic(using=using):
            try:
                handle.initial()
                serializer = handle.view.get_serializer(data=items, many=True)  # type: ignore[attr-defined]
                serializer.is_valid(raise_exception=True)
                if validate_only:
                    response = Response({"count": len(items)}, status=200)
                else:
                    handle.view.perform_create(serializer)  # type: ignore[attr-defined]
                    response = Response(serializer.data, status=201)
            except Exception as exc:  # handed to the view's handler
                result = handle.result_for(exc)
                transaction.set_rollback(True, using=using)
                return result
            if validate_only:
                transaction.set_rollback(True, using=using)
    except _CONFLICTS as exc:
        return InvocationResult(status=409, data=None, exception=exc)
    return result_of(response)


def _bulk_by_dispatch(
    endpoint: Endpoint,
    items: list[dict[str, Any]],
    context: CallContext,
    validate_only: bool,
) -> InvocationResult:
    using = database_of(endpoint)
    created: list[Any] = []
    with transaction.atomic(using=using):
        for index, item in enumerate(items):
            call = PreparedCall(body=item)
            if validate_only:
                result = validate_write(endpoint, call, context)
            else:
                result = invoke(endpoint, call, context)
            if result.status >= 400:
                transaction.set_rollback(True, using=using)
                result.index = index
                return result
            created.append(result.data)
        if validate_only:
            transaction.set_rollback(True, using=using)
            return InvocationResult(status=200, data={"count": len(items)})
    return InvocationResult(status=201, data=created)


def result_of(response: HttpResponseBase) -> InvocationResult:
    """Status, unrendered data and headers of a view's response."""
    headers = dict(response.items())
    if isinstance(response, Response):
        return InvocationResult(response.status_code, response.data, headers)
    content = getattr(response, "content", b"")
    data: Any = None
    if content:
        try:
            data = json.loads(content)
        except (ValueError, UnicodeDecodeError):
            data = content.decode("utf-8", "replace")
    return InvocationResult(response.status_code, data, headers)


def database_of(endpoint: Endpoint) -> str:
    """The database alias the endpoint's model writes to."""
    queryset = getattr(endpoint.view_class, "queryset", None)
    model = getattr(queryset, "model", None)
    if model is None:
        return DEFAULT_DB_ALIAS
    return router.db_for_write(model) or DEFAULT_DB_ALIAS


def _callback(endpoint: Endpoint) -> Callable[..., Any]:
    """The view callback; list actions get :class:`ToolPagination`."""
    if endpoint.action != "list" or not issubclass(endpoint.view_class, GenericAPIView):
        return endpoint.callback
    cached = _LIST_CALLBACKS.get(endpoint.callback)
    if cached is None:
        initkwargs = {**endpoint.initkwargs, "pagination_class": ToolPagination}
        actions = endpoint.actions
        if actions is not None:
            cached = endpoint.view_class.as_view(actions, **initkwargs)  # type: ignore[call-arg]
        else:
            cached = endpoint.view_class.as_view(**initkwargs)
        _LIST_CALLBACKS[endpoint.callback] = cached
    return cached


_LIST_CALLBACKS: dict[Callable[..., Any], Callable[..., Any]] = {}
