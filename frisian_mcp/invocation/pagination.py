"""The paginator list tools use instead of the view's own (ADR 0003)."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from rest_framework.pagination import BasePagination
from rest_framework.response import Response

from frisian_mcp.conf import mcp_settings

__all__ = ["ToolPagination", "default_page_size", "page_list"]


def default_page_size() -> int:
    """``FRISIAN_MCP["PAGE_SIZE"]``."""
    return int(mcp_settings.PAGE_SIZE)


class ToolPagination(BasePagination):
    """Page-number pagination that list tools use instead of the view's own.

    Reads the page from the inner request (set by the invocation layer, never
    from the query string, so no filter name can collide) and answers with
    ``{"results", "count", "page", "page_size", "has_more"}``.
    """

    def paginate_queryset(
        self, queryset: Any, request: Any, view: Any = None
    ) -> list[Any]:
        """Return one page of ``queryset`` and remember the counts."""
        page, size = getattr(
            request._request, "frisian_mcp_page", (1, default_page_size())
        )
        if isinstance(queryset, QuerySet) and not queryset.ordered:
            # Unordered pages can repeat or skip rows between calls.
            queryset = queryset.order_by("pk")
        self.count = (
            queryset.count() if isinstance(queryset, QuerySet) else len(queryset)
        )
        self.page, self.page_size = page, size
        start = (page - 1) * size
        # Past the end nothing is queried: a huge page number would overflow
        # the database's OFFSET (PostgreSQL's bigint).
        rows = list(queryset[start : start + size]) if start < self.count else []
        self.has_more = start + len(rows) < self.count
        return rows

    def get_paginated_response(self, data: Any) -> Response:
        """Wrap the serialized page with its counts."""
        return Response(
            {
                "results": data,
                "count": self.count,
                "page": self.page,
                "page_size": self.page_size,
                "has_more": self.has_more,
            }
        )

    def get_paginated_response_schema(self, schema: dict[str, Any]) -> dict[str, Any]:
        """The result shape (for drf-spectacular, should it ask)."""
        return {
            "type": "object",
            "properties": {
                "results": schema,
                "count": {"type": "integer"},
                "page": {"type": "integer"},
                "page_size": {"type": "integer"},
                "has_more": {"type": "boolean"},
            },
        }


def page_list(rows: list[Any], page: int, page_size: int | None) -> dict[str, Any]:
    """Page a list a view returned whole (no paginator, or a custom ``list``)."""
    size = page_size or default_page_size()
    start = (page - 1) * size
    chunk = rows[start : start + size]
    return {
        "results": chunk,
        "count": len(rows),
        "page": page,
        "page_size": size,
        "has_more": start + len(chunk) < len(rows),
    }
