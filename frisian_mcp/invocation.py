"""Invocation: run one tool call through the view's own DRF dispatch (ADR 0001).

One inner request (:mod:`frisian_mcp.routing`) and one view, run by its own
``dispatch`` as over REST; the action's handler is wrapped to report argument
errors after the access checks, resolve lookups, validate only or bulk-create.
:class:`Probe` answers ``tools/list``'s "may this caller use it?".
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator, Mapping
from typing import Any

from django import db, urls
from django.core.handlers.wsgi import WSGIRequest
from django.db import DEFAULT_DB_ALIAS, router, transaction
from django.db.models import ProtectedError, RestrictedError
from django.http import HttpResponseBase
from django.utils.datastructures import MultiValueDict
from rest_framework import exceptions as drf_exceptions
from rest_framework.generics import GenericAPIView
from rest_framework.response import Response
from rest_framework.views import APIView

from frisian_mcp import bulk, collisions, pagination, references, routing
from frisian_mcp.exceptions import ToolError
from frisian_mcp.hooks import call_hooks, foreign_body, map_response
from frisian_mcp.outcomes import Answer, busy, refused_query, unavailable
from frisian_mcp.tools import Tool
from frisian_mcp.types import Call, CallContext, Endpoint, FieldError, Kind

__all__ = ["Probe", "release_if_lost", "run"]

_WRITES = frozenset({"POST", "PUT", "PATCH", "DELETE"})
_CONFLICTS = (db.IntegrityError, ProtectedError, RestrictedError)
#: serialization_failure, deadlock_detected, lock_not_available.
_BUSY_SQLSTATES = frozenset({"40001", "40P01", "55P03"})
#: SQLITE_BUSY, SQLITE_LOCKED (the low byte of extended result codes).
_BUSY_SQLITE = frozenset({5, 6})
#: connection_exception (08), admin_shutdown, crash_shutdown, cannot_connect_now.
_LOST_SQLSTATES = ("08", "57P01", "57P02", "57P03")
_REFUSALS = (
    drf_exceptions.NotAuthenticated,
    drf_exceptions.PermissionDenied,
    drf_exceptions.AuthenticationFailed,
)


def run(tool: Tool, call: Call, context: CallContext) -> Answer:
    """Run ``call`` on ``tool``'s view as ``context``'s caller.

    The view runs in the transaction REST would run it in (ADR 0012): its
    databases' ``ATOMIC_REQUESTS``, its own blocks. Only a bulk create and
    a validate-only call get one of frisian_mcp's, rolled back when the view
    answers an error (or only validates). A lock or serialization failure is
    a ``busy`` error the caller may retry; a lost connection ``unavailable``.
    """
    endpoint = tool.endpoint
    preset = call.body is not None and routing.takes_json(endpoint)
    paging = pagination.host_query(endpoint, call)
    request = routing.build_request(endpoint, call, context, not preset, paging)
    for hook in call_hooks():  # a file argument, a multipart body (ADR 0027)
        hook.map_request(tool, call, request)
    match = routing.resolve(endpoint, call.path_kwargs, request)
    if match is None:
        if call.error is None:
            return Answer(404, None, {}, entered=True)
        match = urls.ResolverMatch(endpoint.callback, (), dict(endpoint.fixed_kwargs))
    view = _view(endpoint, request, match.kwargs, call.body if preset else None)
    writes = endpoint.method in _WRITES
    handler = _Handler(view, tool, call, writes, context)
    model = tool.model
    using = router.db_for_write(model) if model is not None else DEFAULT_DB_ALIAS
    own = (call.bulk and tool.kind == Kind.CREATE) or call.validate_only
    try:
        with _transaction(match.func, using, own):
            response = view.dispatch(request, *match.args, **match.kwargs)
            if own and (response.status_code >= 400 or call.validate_only):
                transaction.set_rollback(True, using=using)
    except _CONFLICTS as exc:
        answer = Answer(409, None, {}, entered=True)
        if isinstance(exc, db.IntegrityError):  # which rule, which model
            answer.violation = broken = collisions.violation(exc)
            answer.conflicts = _collisions(tool, call, handler, using, broken)
        return answer
    except (db.DatabaseError, db.InterfaceError) as exc:
        if not _settled(exc, writes):
            raise
        if _is_busy(exc):
            raise busy(tool.name, exc) from None
        if release_if_lost(exc):
            raise unavailable(tool.name) from None
        raise refused_query(tool.name, exc) from None
    if foreign_body(response):  # a file: never {} (ADR 0027)
        content = map_response(tool, call, request, response)
        return Answer(response.status_code, content, {}, handler.entered)
    return _answer(response, handler)


@contextlib.contextmanager
def _transaction(callback: Any, using: str, own: bool) -> Iterator[None]:
    """The blocks the view runs in: ``ATOMIC_REQUESTS``, as Django's handler
    wraps a view (``make_view_atomic``, honouring ``non_atomic_requests``),
    plus one on ``using`` for frisian_mcp's own all-or-nothing work.

    Inside a transaction already (a test's, a management command's) the
    view gets a savepoint, so a database error it raises is undone alone.
    """
    nested = transaction.get_connection(using).in_atomic_block
    skipped = getattr(callback, "_non_atomic_requests", ())
    aliases = [
        alias
        for alias, options in db.connections.settings.items()
        if options.get("ATOMIC_REQUESTS") and alias not in skipped
    ]
    if (own or nested) and using not in aliases:
        aliases.append(using)
    with contextlib.ExitStack() as stack:
        for alias in aliases:
            stack.enter_context(transaction.atomic(using=alias))
        try:
            yield
        except db.OperationalError as exc:
            # Decided before the blocks exit: a rollback that fails on a lost
            # connection closes it, and leaving the block reconnects.
            exc.frisian_mcp_lost = _lost(exc)  # type: ignore[attr-defined]
            raise


def _settled(exc: Exception, writes: bool) -> bool:
    """Whether :func:`run` answers ``exc`` itself, as it does when DRF's
    default exception handler lets it through: frisian_mcp's own errors,
    conflicts, a busy database, a value or query the database refuses."""
    if isinstance(exc, (ToolError, *_CONFLICTS, db.InterfaceError)):
        return True
    return isinstance(exc, db.DatabaseError) and (
        _is_busy(exc)
        or isinstance(exc, db.DataError)
        or (isinstance(exc, db.OperationalError) and (not writes or _lost(exc)))
    )


def _collisions(
    tool: Tool, call: Call, handler: _Handler, using: str, broken: collisions.Violation
) -> list[FieldError] | None:
    """Which items and unique fields of a create collided, if that is why."""
    model = tool.model
    if tool.kind != Kind.CREATE or model is None or not broken.unique_in(model):
        return None
    rows = handler.rows or (call.body if call.bulk else [call.body])
    found = collisions.find(
        model, rows, using, indexed=call.bulk, labels=handler.labels
    )
    return found or None


def release_if_lost(exc: BaseException | None) -> bool:
    """Whether ``exc`` says a database connection is lost (the server ended
    it, the network cut it); if so, close the connections that no longer
    work, so the next call opens new ones even where no request cycle runs
    Django's ``close_old_connections``.
    """
    if not _lost(exc):
        return False
    for connection in db.connections.all(initialized_only=True):
        if not connection.in_atomic_block:
            connection.close_if_unusable_or_obsolete()
    return True


def _lost(exc: BaseException | None) -> bool:
    if isinstance(exc, db.InterfaceError):
        return True  # the driver's connection is closed already
    if not isinstance(exc, db.OperationalError):
        return False
    if getattr(exc, "frisian_mcp_lost", False):
        return True
    cause = exc.__cause__
    sqlstate = getattr(cause, "sqlstate", None) or getattr(cause, "pgcode", None)
    if isinstance(sqlstate, str) and sqlstate.startswith(_LOST_SQLSTATES):
        return True
    # No SQLSTATE ("server closed the connection unexpectedly"): the driver
    # marks its connection closed (psycopg 3 ``closed``, psycopg2 nonzero).
    return any(
        getattr(c.connection, "closed", False)
        or (c.connection is None and c.errors_occurred)
        for c in db.connections.all(initialized_only=True)
    )


def _is_busy(exc: db.DatabaseError | db.InterfaceError) -> bool:
    """Whether the database gave up on a lock or a serialization.

    Read from the driver's error (Django chains it as ``__cause__``): its
    SQLSTATE (psycopg 3 ``sqlstate``, psycopg2 ``pgcode``) or SQLite's
    primary result code, never the message text.
    """
    cause = exc.__cause__
    sqlstate = getattr(cause, "sqlstate", None) or getattr(cause, "pgcode", None)
    if sqlstate in _BUSY_SQLSTATES:
        return True
    code = getattr(cause, "sqlite_errorcode", None)
    return isinstance(code, int) and code & 0xFF in _BUSY_SQLITE


class _Handler:
    """The action's handler, wrapped for what a tool call adds to it."""

    def __init__(
        self, view: Any, tool: Tool, call: Call, writes: bool, context: CallContext
    ) -> None:
        self.view, self.tool, self.call, self.context = view, tool, call, context
        self.entered = False
        self.index: int | None = None
        #: A bulk create's validated items and fields' names, for collisions.
        self.rows: list[Any] | None = None
        self.labels: dict[str, str] | None = None
        method = tool.endpoint.method.lower()
        self.original = getattr(view, method)
        setattr(view, method, self)
        # What run() answers never reaches the host's EXCEPTION_HANDLER: one
        # that answers every exception (drf-standardized-errors without
        # DEBUG) would make it a 500 and report a server error (ADR 0013).
        host = view.get_exception_handler

        def handle(exc: Exception, context: Any) -> Any:
            return None if _settled(exc, writes) else host()(exc, context)

        view.get_exception_handler = lambda: handle

    def __call__(self, request: Any, *args: Any, **kwargs: Any) -> Any:
        self.entered = True
        view, call = self.view, self.call
        if call.error is not None:
            # DRF finds the object (404, object permissions) before it reads
            # the body: a caller who may not touch the row learns that first.
            # A nested list or create has path arguments but no row.
            sent = call.path_kwargs
            lookup = getattr(view, "lookup_url_kwarg", None) or getattr(
                view, "lookup_field", None
            )
            found = lookup in sent if lookup else bool(sent)
            if (
                found
                and sent.items() <= view.kwargs.items()
                and hasattr(view, "get_object")
            ):
                view.get_object()
            raise call.error
        if self.tool.schema is not None:
            if self.tool.kind == Kind.UPDATE:
                references.settle_echoes(self.tool.name, self.tool.schema, view, call)
            many = call.bulk or isinstance(call.body, list)  # or a list body
            bodies = call.body if many else [call.body]
            references.resolve(
                self.tool.name, self.tool.schema, bodies, view, indexed=many
            )
        if self.tool.kind in bulk.KINDS:  # its rows, found first (ADR 0033)
            bulk.check(self.tool, view, call)
        for hook in call_hooks():
            hook.check_call(self.tool, call, view, self.context)
        if call.bulk and self.tool.kind == Kind.CREATE:
            return bulk.create(self, _validate, request, args, kwargs)
        if call.validate_only:
            return _validate(view, request.method, call.body)
        return self.original(request, *args, **kwargs)


def _validate(view: Any, method: str, body: Any) -> Response:
    """Check a create, update or delete as the view would; never ``perform_*``."""
    if isinstance(body, list):  # a bulk update's or delete's: checked already
        return Response({})
    instance = view.get_object() if method in ("PUT", "PATCH", "DELETE") else None
    if method == "DELETE":
        return Response({"validated": None, "instance": instance})
    serializer = view.get_serializer(instance, data=body, partial=method == "PATCH")
    serializer.is_valid(raise_exception=True)
    return Response({"validated": serializer.validated_data, "instance": instance})


def _answer(response: HttpResponseBase, handler: _Handler) -> Answer:
    headers = response.headers  # read, never changed: no copy
    data: Any = getattr(response, "data", None)
    if not isinstance(response, Response):
        content = getattr(response, "content", b"")
        try:
            data = json.loads(content) if content else None
        except (ValueError, UnicodeDecodeError):
            data = content.decode("utf-8", "replace")
    answer = Answer(response.status_code, data, headers, handler.entered, handler.index)
    answer.view = handler.view  # whose code wrote its messages (redaction)
    return answer


class Probe:
    """Answers "may this caller use the endpoint?" for ``tools/list``.

    The view's ``check_permissions`` runs on a bare request of the action's
    method (no object, no throttle); a class that cannot decide so lists the
    tool. Views that decide by their class share answers (``answers``, kept
    by rights.Answers): the listing is advice, the call is checked in full.
    """

    def __init__(self, context: CallContext, answers: dict[Any, bool]) -> None:
        self.context, self._answers = context, answers

    def allows(self, tool: Tool) -> bool:
        """Whether the view's permission classes let the caller in."""
        answers = self._answers
        if tool.name not in answers:
            key = _shared_key(tool) or (tool.endpoint.callback, tool.endpoint.method)
            if key not in answers:
                answers[key] = self._check(tool.endpoint)
            answers[tool.name] = answers[key]
        return answers[tool.name]

    def _check(self, endpoint: Endpoint) -> bool:
        request = routing.inner_request(self.context, endpoint, "/", "", b"")
        view = _view(endpoint, request, dict(endpoint.fixed_kwargs), None)
        try:
            view.request = drf_request = view.initialize_request(request)
            view.check_permissions(drf_request)
        except _REFUSALS:
            return False
        except Exception:  # the host's code failed: list the tool
            pass
        return True


def _shared_key(tool: Tool) -> tuple[Any, ...] | None:
    """A key shared by views whose permission checks must answer alike."""
    endpoint = tool.endpoint
    cls = endpoint.view_class
    initkwargs = endpoint.initkwargs
    if (
        "permission_classes" in initkwargs
        or "queryset" in initkwargs
        or cls.get_permissions is not APIView.get_permissions
        or cls.check_permissions is not APIView.check_permissions
        or getattr(cls, "get_queryset", None) not in (None, GenericAPIView.get_queryset)
    ):
        return None  # decided per action or per request, not by the class
    classes = tuple(getattr(cls, "permission_classes", ()) or ())
    auth = getattr(cls, "authentication_classes", None)
    return (classes, tool.model, endpoint.method, tuple(auth or ()))


def _view(
    endpoint: Endpoint, request: WSGIRequest, kwargs: Mapping[str, Any], data: Any
) -> Any:
    """The view instance, set up as ``as_view()``'s view function does; its
    DRF request handed the endpoint's caller and ``data`` (unless ``None``)
    as its body, neither authenticated nor parsed again (ADR 0039)."""
    view = endpoint.view_class(**endpoint.initkwargs)
    caller = getattr(request, "frisian_mcp_caller", None)
    if data is not None or caller is not None:
        initialize = view.initialize_request

        def initialize_request(request: Any, *args: Any, **kwargs: Any) -> Any:
            drf_request = initialize(request, *args, **kwargs)
            if caller is not None:
                drf_request._authenticator = caller.authenticator
                drf_request._user, drf_request._auth = caller.user, caller.auth
            if data is not None:
                drf_request._full_data = drf_request._data = data
                drf_request._files = MultiValueDict()
            return drf_request

        view.initialize_request = initialize_request
    actions = endpoint.actions
    if actions is not None:
        view.action_map = actions
        for method, action in actions.items():
            setattr(view, method, getattr(view, action))
    pagination.install(view, getattr(request, "frisian_mcp_call", None))
    view.request, view.args, view.kwargs = request, (), dict(kwargs)
    view.format_kwarg = None
    return view
