"""The catalogue's views: actions paging by paginators of their own,
compressed and conditional answers."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.http import HttpResponse, JsonResponse
from django.utils.decorators import method_decorator
from django.views.decorators.gzip import gzip_page
from django.views.decorators.http import etag
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, viewsets
from rest_framework.decorators import action
from rest_framework.pagination import (
    CursorPagination,
    LimitOffsetPagination,
    PageNumberPagination,
)
from rest_framework.request import Request
from rest_framework.response import Response

from tests.hosts.catalogue.filters import ProductFilterSet
from tests.hosts.catalogue.models import Feature, Product


class StandardPagination(PageNumberPagination):
    page_size = 3
    page_size_query_param = "page_size"
    max_page_size = 100


class LargePagination(StandardPagination):
    """The pages of reports: bigger than the list's."""

    page_size = 4


class TailPagination(LimitOffsetPagination):
    default_limit = 2


class ReleaseCursor(CursorPagination):
    ordering = ("released", "pk")
    page_size = 2


class ProductSerializer(serializers.ModelSerializer[Product]):
    class Meta:
        model = Product
        fields = ("id", "name", "sku", "category", "price", "stock", "released")


class SummarySerializer(serializers.Serializer[Any]):
    products = serializers.IntegerField()
    in_stock = serializers.IntegerField()


class FeatureSerializer(serializers.ModelSerializer[Feature]):
    class Meta:
        model = Feature
        fields = ("id", "name")


def _page(paginator: Any, rows: QuerySet[Product], view: Any) -> Response:
    page = paginator.paginate_queryset(rows, view.request, view=view)
    data = ProductSerializer(page, many=True).data
    response: Response = paginator.get_paginated_response(data)
    return response


def _sheet(rows: QuerySet[Product]) -> str:
    lines = ["sku,name,price"] + [f"{p.sku},{p.name},{p.price}" for p in rows]
    return "\n".join(lines) + "\n"


class ProductViewSet(viewsets.ModelViewSet[Product]):
    """Products; reports that page with paginators of their own."""

    queryset = Product.objects.order_by("pk")
    serializer_class = ProductSerializer
    pagination_class = StandardPagination
    filterset_class = ProductFilterSet

    @action(detail=False, methods=["get"])
    def bestsellers(self, request: Request) -> Response:
        """Products by stock, a page at a time (its own page-number paginator)."""
        paginator = LargePagination()
        return _page(paginator, self.get_queryset().order_by("-stock", "pk"), self)

    @action(detail=False, methods=["get"])
    def newest(self, request: Request) -> Response:
        """The newest products, by limit and offset (its own paginator)."""
        paginator = TailPagination()
        return _page(paginator, self.get_queryset().order_by("-released", "pk"), self)

    @action(detail=False, methods=["get"], pagination_class=LimitOffsetPagination)
    def oldest(self, request: Request) -> Response:
        """The oldest products; the action's paginator class is limit/offset."""
        paginator = TailPagination()
        return _page(paginator, self.get_queryset().order_by("released", "pk"), self)

    @action(detail=False, methods=["get"])
    def timeline(self, request: Request) -> Response:
        """Products by release, by cursor (its own cursor paginator)."""
        return _page(ReleaseCursor(), self.get_queryset(), self)

    @action(detail=False, methods=["get"])
    def skus(self, request: Request) -> Response:
        """Every SKU at once: a plain list, not paged."""
        return Response(list(self.get_queryset().values_list("sku", flat=True)))

    @extend_schema(responses=SummarySerializer)
    @action(detail=False, methods=["get"])
    def summary(self, request: Request) -> Response:
        """Counts of the catalogue: declared, and no list."""
        rows = self.get_queryset()
        return Response(
            {"products": rows.count(), "in_stock": rows.filter(stock__gt=0).count()}
        )

    @method_decorator(gzip_page)
    @action(detail=False, methods=["get"])
    def export(self, request: Request) -> JsonResponse:
        """Every product as JSON, compressed for clients that take gzip."""
        rows = ProductSerializer(self.get_queryset(), many=True).data
        return JsonResponse({"products": rows})

    @method_decorator(gzip_page)
    @action(detail=False, methods=["get"])
    def sheet(self, request: Request) -> HttpResponse:
        """The price list as CSV, compressed for clients that take gzip."""
        return HttpResponse(_sheet(self.get_queryset()), content_type="text/csv")

    @action(detail=False, methods=["get"])
    def received(self, request: Request) -> Response:
        """The names of the headers this request carries (a diagnostic)."""
        meta = request.META
        return Response(sorted(k for k in meta if k.startswith("HTTP_")))

    @method_decorator(etag(lambda request, *args, **kwargs: '"catalogue-v1"'))
    @action(detail=False, methods=["get"])
    def stamp(self, request: Request) -> Response:
        """The catalogue's version; answers 304 to a matching If-None-Match."""
        return Response({"version": 1, "products": self.get_queryset().count()})


@method_decorator(gzip_page, name="dispatch")
class FeatureViewSet(viewsets.ReadOnlyModelViewSet[Feature]):
    """Features; every answer compressed for clients that take gzip."""

    queryset = Feature.objects.order_by("pk")
    serializer_class = FeatureSerializer

    @action(detail=False, methods=["get"])
    def sheet(self, request: Request) -> HttpResponse:
        """Every feature's name, one per line, as text."""
        names = self.get_queryset().values_list("name", flat=True)
        return HttpResponse("".join(f"{n}\n" for n in names), content_type="text/plain")
