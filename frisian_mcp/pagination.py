"""Pagination: tools page by the call, through the view's own paginator class.

A list tool, and a GET action that may page, take ``page``, ``page_size``
and ``continuation_token`` (ADR 0017, ADR 0035). :func:`install` puts
:class:`ToolPagination` in front of the view's own paginator class, so host
code may call any method of that class on ``view.paginator`` and gets the
call's page; :func:`page` cuts one page of rows with its counts. A paginator
an action builds itself reads the page from the query string
(:func:`host_query`), and its REST page becomes the tool's (:func:`answer`).
A page of more than :data:`~frisian_mcp.notices.LARGE_PAGE` rows reports its
progress per row serialized (ADR 0044).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from django.core.paginator import Page
from django.db.models import Manager, QuerySet
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.plumbing import force_instance, is_list_serializer
from drf_spectacular.utils import OpenApiResponse
from rest_framework.generics import GenericAPIView
from rest_framework.pagination import (
    BasePagination,
    CursorPagination,
    LimitOffsetPagination,
    PageNumberPagination,
)
from rest_framework.response import Response
from rest_framework.serializers import ListSerializer
from rest_framework.settings import api_settings

from frisian_mcp import notices, results
from frisian_mcp.exceptions import HostError, ToolInputError, host_call
from frisian_mcp.types import Call, Endpoint, ErrorCode, JSONObject, Kind, ListState

__all__ = [
    "ToolPagination",
    "answer",
    "host_query",
    "install",
    "page",
    "pages",
    "tool_pagination",
]

#: The paging arguments, in the order an error names them.
_PAGING = ("page", "page_size", "continuation_token")


def page(rows: Any, listing: ListState) -> JSONObject:
    """One page of ``rows`` (a list, a queryset or a host's sequence) with counts.

    Pages the tool pagination's rows and a list a view returned whole.
    """
    count = rows.count() if isinstance(rows, QuerySet) else len(rows)
    start = (listing.page - 1) * listing.page_size
    # Past the end nothing is queried: a huge page would overflow OFFSET.
    chunk = list(rows[start : start + listing.page_size]) if start < count else []
    return results.page(chunk, count, listing)


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
        call = _call(request)
        call.tool_paged = True
        self.counts = counts = page(queryset, call.listing)
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


def install(view: Any, call: Call | None) -> None:
    """Page ``view`` by ``call``: the tool paginator in front of its own;
    a large page's serializer counts its rows."""
    if call is not None and call.paged and isinstance(view, GenericAPIView):
        host: Any = view.pagination_class
        view.pagination_class = tool_pagination(host)
        if call.listing.page_size > notices.LARGE_PAGE:
            counting: Any = view  # an instance's method, replaced
            counting.get_serializer = _counted(view.get_serializer)


def _counted(get_serializer: Callable[..., Any]) -> Callable[..., Any]:
    """``get_serializer``, whose list serializer of a page of more than
    ``LARGE_PAGE`` rows reports each row it serializes."""

    def counted(*args: Any, **kwargs: Any) -> Any:
        serializer = get_serializer(*args, **kwargs)
        rows = serializer.instance if isinstance(serializer, ListSerializer) else None
        if not isinstance(rows, list) or len(rows) <= notices.LARGE_PAGE:
            return serializer
        serializer.child.to_representation = notices.counted(
            serializer.child.to_representation, len(rows), "serialized"
        )
        return serializer

    return counted


def _call(request: Any) -> Call:
    """The call an inner (DRF or Django) request carries."""
    django_request = getattr(request, "_request", request)
    call: Call = django_request.frisian_mcp_call
    return call


def _listing(request: Any) -> ListState:
    return _call(request).listing


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
    """Whether the endpoint's tool takes the paging arguments.

    A list does. A GET action does unless its schema declares an answer that
    is neither a list nor a page (``@extend_schema(responses=...)``): an
    action may page through the view's paginator or through one it builds
    itself, which only its answer shows (ADR 0035).
    """
    if endpoint.kind == Kind.LIST:
        return True
    if endpoint.kind != Kind.ACTION or endpoint.method != "GET":
        return False
    try:
        guessed = host_call(AutoSchema.get_response_serializers, auto)
        declared = host_call(auto.get_response_serializers)
        if type(force_instance(declared)) is type(force_instance(guessed)):
            return True  # nothing declared (or the guess): it may page
        return host_call(_listish, declared)
    except HostError:
        return True  # its schema says nothing; its answer will


def _listish(declared: Any) -> bool:
    """Whether a declared answer is a list of records, or a page of them."""
    if isinstance(declared, Mapping):
        # By status (``200``, ``(200, "application/json")``): the lowest.
        codes = {
            str(k[0] if isinstance(k, tuple) else k): v for k, v in declared.items()
        }
        declared = codes[min(codes)] if codes else None
    if isinstance(declared, OpenApiResponse):
        declared = declared.response
    if isinstance(declared, Mapping):  # a schema given as it is
        fields = declared.get("properties") or {}
        return declared.get("type") == "array" or "results" in fields
    if is_list_serializer(declared):
        return True
    fields = getattr(force_instance(declared), "fields", None)
    return isinstance(fields, Mapping) and "results" in fields


def host_query(endpoint: Endpoint, call: Call) -> list[tuple[str, str]]:
    """The query pairs by which a host's own paginator pages this call.

    A token's pairs are its previous page's ``next`` link's. Else, where an
    action's call asks for a page, they are named as the view's paginator
    class names them: the class an action's own paginator most likely
    shares (its answer tells whether it did). A pair the call's filters or
    query arguments hold already is theirs.
    """
    listing = call.listing
    if listing.query:
        pairs = list(listing.query)
    elif endpoint.kind == Kind.ACTION and call.paged and {*_PAGING} & {*call.arguments}:
        sized = "page" not in call.arguments or "page_size" in call.arguments
        pairs = _named(_paginator_class(endpoint), listing, sized=sized)
    else:
        return []
    own = {name for name, _ in call.query}
    return [(name, value) for name, value in pairs if name not in own]


def _paginator_class(endpoint: Endpoint) -> Any:
    initkwargs = endpoint.initkwargs
    found = initkwargs.get("pagination_class") or getattr(
        endpoint.view_class, "pagination_class", None
    )
    return found or api_settings.DEFAULT_PAGINATION_CLASS or PageNumberPagination


def _named(cls: Any, listing: ListState, *, sized: bool) -> list[tuple[str, str]]:
    """The page and its size in the query parameters of paginator ``cls``.

    Limit and offset always go together, so that every page's offset
    counts in the same page size: the call's, else the class's default.
    """
    number, size = listing.page, listing.page_size
    limit = getattr(cls, "limit_query_param", None)
    offset = getattr(cls, "offset_query_param", None)
    if isinstance(limit, str) and isinstance(offset, str):
        default = getattr(cls, "default_limit", None)
        size = size if sized or not isinstance(default, int) else default
        return [(limit, str(size)), (offset, str((number - 1) * size))]
    pairs = []
    page_param = getattr(cls, "page_query_param", None)
    if isinstance(page_param, str):  # a cursor pages by its links only
        pairs.append((page_param, str(number)))
    size_param = getattr(cls, "page_size_query_param", None)
    if isinstance(size_param, str) and sized:
        pairs.append((size_param, str(size)))
    return pairs


def answer(tool: str, kind: Kind, call: Call, data: Any) -> Any:
    """A paging tool's answer, as a page of the call's where it is one.

    The tool paginator's page stays as it is; a list a list tool's view
    returned whole is paged here (ADR 0003); a REST page of a paginator the
    host built itself becomes the tool's page, its ``next`` link the next
    page's token. Paging arguments an answer that is no page cannot honour
    are refused, never ignored (ADR 0035).
    """
    if not call.paged or call.tool_paged:
        return data
    if isinstance(data, list) and kind == Kind.LIST:
        return page(data, call.listing)
    if _rest_page(data):
        return _from_rest(tool, call, data)
    asked = [name for name in _PAGING if name in call.arguments]
    if asked == ["page"] and call.listing.page == 1:
        return data  # the whole answer is its first page
    if asked:
        raise ToolInputError(
            f"{tool} answered whole, not in pages, so {asked[0]} does not apply.",
            code=ErrorCode.INVALID_ARGUMENT,
            tool=tool,
            field=asked[0],
            hint=f"Call it again without {', '.join(asked)}.",
        )
    return data


def _rest_page(data: Any) -> bool:
    """Whether ``data`` is a page of DRF's paginators (or shaped like one)."""
    return (
        isinstance(data, Mapping)
        and isinstance(data.get("results"), list)
        and {"next", "previous"} <= data.keys()
    )


def _from_rest(tool: str, call: Call, data: Mapping[str, Any]) -> JSONObject:
    """The tool's page of a host paginator's REST page; remembers its next
    link's paging pairs for the next page's token."""
    listing, link = call.listing, data.get("next")
    if listing.page > 1 and not listing.query and data.get("previous") is None:
        raise ToolInputError(
            f"{tool} pages with a paginator of its own, which does not take this "
            "page by number: it answered its first page.",
            code=ErrorCode.INVALID_ARGUMENT,
            tool=tool,
            field="page",
            hint="Call it without page and follow next_token from page to page.",
        )
    if isinstance(link, str) and link:
        own = {name for name, _ in call.query}
        pairs = parse_qsl(urlsplit(link).query, keep_blank_values=True)
        call.next_query = [(name, value) for name, value in pairs if name not in own]
    shaped = {k: v for k, v in data.items() if k not in ("next", "previous")}
    more = isinstance(link, str) and bool(link)
    shaped.update(page=listing.page, has_more=more)
    if more:  # the size its paginator chose, whatever the call asked
        shaped["page_size"] = len(data["results"])
    return shaped
