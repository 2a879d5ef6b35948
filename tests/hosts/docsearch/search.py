"""The host's full-text search and its paginator.

:class:`DelayedSearch` stands for a search index's query object: it is no
queryset, and it answers a slice by fetching the whole index page the
slice starts in, so the page size it is built with must be the one the
paginator pages by (a document-management application builds it with
``self.paginator.get_page_size(request)``). No maintained library provides
such an index for tests; the shape is what matters.
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from rest_framework.pagination import PageNumberPagination
from rest_framework.response import Response


class DelayedSearch:
    """The hits of ``terms`` among ``rows``, fetched a page at a time."""

    def __init__(self, rows: QuerySet[Any], terms: str, page_size: int) -> None:
        self.hits = rows.filter(content__icontains=terms).order_by("pk")
        self.page_size = page_size

    def __len__(self) -> int:
        return self.hits.count()

    def __getitem__(self, item: slice) -> list[Any]:
        # An index answers page numbers, not offsets.
        number = (item.start or 0) // self.page_size
        start = number * self.page_size
        return list(self.hits[start : start + self.page_size])

    def ids(self) -> list[int]:
        """Every hit's id, as the index lists them."""
        return list(self.hits.values_list("pk", flat=True))


class StandardPagination(PageNumberPagination):
    """The host's paginator: page numbers, and every result's id."""

    page_size = 25
    page_size_query_param = "page_size"
    max_page_size = 1000

    def get_paginated_response(self, data: Any) -> Response:
        response = super().get_paginated_response(data)
        response.data["all"] = self.get_all_result_ids()
        return response

    def get_all_result_ids(self) -> list[int]:
        """The ids of every row of the paged list, not only this page's."""
        assert self.page is not None, "called after a page"
        rows: Any = self.page.paginator.object_list
        if isinstance(rows, DelayedSearch):
            return rows.ids()
        return list(rows.values_list("pk", flat=True))
