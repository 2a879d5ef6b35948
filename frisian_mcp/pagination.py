"""Pagination: tools page by the call, through the view's own paginator class.

A list tool, and a GET action that REST pages, take ``page`` and
``page_size`` (ADR 0003). :func:`tool_pagination` puts
:class:`ToolPagination` in front of the view's own paginator class, so host
code may call any method of that class on ``view.paginator`` and gets the
call's page; :func:`page` cuts one page of rows with its counts.
"""

from __future__ import annotations

import dis
import functools
import inspect
from collections.abc import Callable
from types import CodeType
from typing import Any

from django.core.paginator import Page
from django.db.models import Manager, QuerySet
from drf_spectacular.openapi import AutoSchema
from rest_framework.generics import GenericAPIView
from rest_framework.pagination import (
    BasePagination,
    CursorPagination,
    LimitOffsetPagination,
    PageNumberPagination,
)
from rest_framework.response import Response

from frisian_mcp.spectacular import pagination_parameters
from frisian_mcp.types import Endpoint, JSONObject, Kind, ListState

__all__ = ["ToolPagination", "page", "pages", "tool_pagination"]


def page(rows: Any, listing: ListState) -> JSONObject:
    """One page of ``rows`` (a list, a queryset or a host's sequence) with counts.

    Pages the tool pagination's rows and a list a view returned whole.
    """
    count = rows.count() if isinstance(rows, QuerySet) else len(rows)
    start = (listing.page - 1) * listing.page_size
    # Past the end nothing is queried: a huge page would overflow OFFSET.
    chunk = list(rows[start : start + listing.page_size]) if start < count else []
    return {
        "results": chunk,
        "count": count,
        "page": listing.page,
        "page_size": listing.page_size,
        "has_more": start + len(chunk) < count,
    }


class ToolPagination(BasePagination):
    """Pages by the call, in front of the view's own paginator class.

    Of the methods the class has, those asking for the page size, number,
    limit and offset answer the call's; after a page, the state DRF's
    classes keep is set as they set it
    (``page``; ``limit``, ``offset`` and ``count``; a cursor's page and
    neighbours), so links, ``to_html`` and a host's own methods see this
    page. The page comes from the call, never the query string, so no
    filter name can collide with it.
    """

    counts: JSONObject

    def paginate_queryset(
        self, queryset: Any, request: Any, view: Any = None
    ) -> list[Any]:
        """One page of ``queryset`` (or a manager's rows); remembers the counts.

        Rows come in REST's order: a ``CursorPagination`` orders them itself
        (its ``ordering``, or the ordering filter's); an unordered queryset
        is ordered by pk, else pages would repeat or skip rows.
        """
        # The host's class, as DRF's classes keep their state (mypy cannot
        # see a subclass of both).
        host: Any = self
        if isinstance(queryset, Manager):
            queryset = queryset.all()
        if isinstance(queryset, QuerySet):
            if isinstance(host, CursorPagination):
                host.ordering = host.get_ordering(request, queryset, view)
                queryset = queryset.order_by(*host.ordering)
            elif not queryset.ordered:
                queryset = queryset.order_by("pk")
        self.counts = counts = page(queryset, _listing(request))
        rows: list[Any] = counts["results"]
        host.request, size, number = request, counts["page_size"], counts["page"]
        if isinstance(host, PageNumberPagination):
            paginator = host.django_paginator_class(queryset, size)
            paginator.__dict__["count"] = counts["count"]  # counted once
            # Past the end (REST's 404) its links are the last page's.
            last = max(paginator.num_pages, 1)
            host.page = Page(rows, min(number, last), paginator)
        if isinstance(host, LimitOffsetPagination):
            host.limit, host.offset = size, (number - 1) * size
            host.count = counts["count"]
        if isinstance(host, CursorPagination):
            host.base_url, host.cursor = request.build_absolute_uri(), None
            host.page_size, host.page = size, rows
            host.has_next, host.has_previous = counts["has_more"], number > 1
            host.next_position = host.previous_position = None
        return rows

    def get_paginated_response(self, data: Any) -> Response:
        """The serialized page with its counts."""
        return Response({**self.counts, "results": data})


@functools.cache
def tool_pagination(host: Any) -> type[ToolPagination]:
    """:class:`ToolPagination` in front of the view's own paginator class.

    Only methods the host's class has are answered by the call: a class
    keeps its interface (a page-number class gains no ``get_limit``).
    """
    if not isinstance(host, type) or issubclass(host, ToolPagination):
        return ToolPagination
    answers = {name: f for name, f in _ANSWERS.items() if hasattr(host, name)}
    namespace = {"__module__": __name__, **answers}
    return type(host.__name__, (ToolPagination, host), namespace)


def _listing(request: Any) -> ListState:
    """The list state of the call an inner (DRF or Django) request carries."""
    django_request = getattr(request, "_request", request)
    listing: ListState = django_request.frisian_mcp_call.listing
    return listing


def _offset(request: Any) -> int:
    listing = _listing(request)
    return (listing.page - 1) * listing.page_size


#: What the paging methods of DRF's classes ask for, answered by the call.
_ANSWERS: dict[str, Callable[..., int]] = {
    "get_page_size": lambda self, request: _listing(request).page_size,
    "get_page_number": lambda self, request, paginator=None: _listing(request).page,
    "get_limit": lambda self, request: _listing(request).page_size,
    "get_offset": lambda self, request: _offset(request),
}


def pages(endpoint: Endpoint, view: Any, auto: AutoSchema) -> bool:
    """Whether the endpoint's tool pages: a list, or a GET action REST pages.

    An action pages when its view has a paginator and spectacular documents
    a list response (and so the paging parameters), or when its handler asks
    the paginator for a page (``paginate_queryset``, in the handler or in a
    view method it calls, such as ``list``).
    """
    if endpoint.kind == Kind.LIST:
        return True
    if endpoint.kind != Kind.ACTION or endpoint.method != "GET":
        return False
    if not isinstance(view, GenericAPIView) or view.pagination_class is None:
        return False
    cls = type(view)
    return bool(pagination_parameters(auto)) or _calls(cls, endpoint.handler_name, 3)


def _calls(cls: type[Any], name: str, depth: int) -> bool:
    """Whether ``cls.name`` calls ``paginate_queryset``, ``depth`` calls deep.

    Calls are followed through ``self`` only (``self.list``), never through
    other objects' attributes or globals (``list()``).
    """
    function: Any = getattr(cls, name, None)  # unwrap() passes None through
    code = getattr(inspect.unwrap(function), "__code__", None)
    if not isinstance(code, CodeType) or not code.co_varnames:
        return False
    this, found, on_self, stack = code.co_varnames[0], set(), set(), [code]
    while stack:  # the function's code and the code nested in it
        current, previous = stack.pop(), None
        for instruction in dis.get_instructions(current):
            if instruction.opname in ("LOAD_ATTR", "LOAD_METHOD"):
                found.add(instruction.argval)
                if previous is not None and previous.argval == this:
                    on_self.add(instruction.argval)
            previous = instruction
        stack += [c for c in current.co_consts if isinstance(c, CodeType)]
    if "paginate_queryset" in found:
        return True
    return depth > 1 and any(_calls(cls, n, depth - 1) for n in on_self - {name})
