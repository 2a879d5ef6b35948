"""Views of the document-management host."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import viewsets
from rest_framework.decorators import action
from rest_framework.pagination import (
    CursorPagination,
    LimitOffsetPagination,
    PageNumberPagination,
)
from rest_framework.permissions import DjangoModelPermissions
from rest_framework.request import Request
from rest_framework.response import Response

from tests.hosts.docsearch.models import Config, Document, Tag
from tests.hosts.docsearch.search import DelayedSearch, StandardPagination
from tests.hosts.docsearch.serializers import (
    AddTagSerializer,
    ConfigSerializer,
    DocumentSerializer,
    TagSerializer,
)


class DocumentViewSet(viewsets.ModelViewSet[Document]):
    """Documents; ``query`` searches their content through the index."""

    queryset = Document.objects.prefetch_related("tags").order_by("pk")
    serializer_class = DocumentSerializer
    pagination_class = StandardPagination
    filterset_fields = ("title",)

    @extend_schema(parameters=[OpenApiParameter("query", str)])
    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().list(request, *args, **kwargs)

    def filter_queryset(self, queryset: Any) -> Any:
        queryset = super().filter_queryset(queryset)
        terms = self.request.query_params.get("query")
        if self.action != "list" or not terms:
            return queryset
        paginator: Any = self.paginator
        return DelayedSearch(queryset, terms, paginator.get_page_size(self.request))

    @extend_schema(request=AddTagSerializer, responses={200: None})
    @action(detail=False, methods=["post"], url_path="add-tag")
    def add_tag(self, request: Request) -> Response:
        serializer = AddTagSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        data["document"].tags.add(data["tag"])
        return Response({"tagged": data["document"].pk})


class TagViewSet(viewsets.ModelViewSet[Tag]):
    queryset = Tag.objects.order_by("pk")
    serializer_class = TagSerializer
    pagination_class = StandardPagination


class ConfigViewSet(viewsets.ModelViewSet[Config]):
    """The settings row; the queryset is the manager itself, unpaged."""

    queryset = Config.objects
    serializer_class = ConfigSerializer
    pagination_class = None


class PaginatorProbe:
    """Host code around a page: asks the paginator, then reads its links.

    What it saw is added to the response as ``seen``, over REST and MCP.
    """

    def paginate_queryset(self, queryset: Any) -> Any:
        view: Any = self
        paginator, request = view.paginator, view.request
        asked = {
            name: getattr(paginator, name)(request)
            for name in ("get_page_size", "get_limit", "get_offset")
            if hasattr(paginator, name)
        }
        rows = super().paginate_queryset(queryset)  # type: ignore[misc]
        self.seen = {
            "asked": asked,
            "next": paginator.get_next_link(),
            "previous": paginator.get_previous_link(),
            "html": paginator.to_html() if rows else "",
        }
        if hasattr(paginator, "get_all_result_ids"):
            self.seen["all"] = paginator.get_all_result_ids()
        return rows

    def get_paginated_response(self, data: Any) -> Response:
        response: Response = super().get_paginated_response(data)  # type: ignore[misc]
        response.data["seen"] = self.seen
        return response


class NumberPagination(PageNumberPagination):
    page_size = 3
    page_size_query_param = "page_size"


class OffsetPagination(LimitOffsetPagination):
    default_limit = 3


class PkCursorPagination(CursorPagination):
    ordering = "pk"
    page_size = 3
    page_size_query_param = "page_size"


class ProbedDocuments(PaginatorProbe, viewsets.ReadOnlyModelViewSet[Document]):
    queryset = Document.objects.prefetch_related("tags").order_by("pk")
    serializer_class = DocumentSerializer


class NumberDocuments(ProbedDocuments):
    pagination_class = NumberPagination


class OffsetDocuments(ProbedDocuments):
    pagination_class = OffsetPagination


class CursorDocuments(ProbedDocuments):
    pagination_class = PkCursorPagination


class StandardDocuments(ProbedDocuments):
    pagination_class = StandardPagination


class SecuredConfigViewSet(ConfigViewSet):
    """The settings row behind the model permissions, which read the manager."""

    permission_classes = [DjangoModelPermissions]
