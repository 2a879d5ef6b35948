"""Completion's sources (tests/test_completion.py): publishers searched by
name, their books nested under them (drf-nested-routers, as hosts nest), a
list only staff may read, and one behind a shut throttle."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.urls import URLPattern, URLResolver, include, path
from rest_framework import filters, permissions, throttling, viewsets
from rest_framework.request import Request
from rest_framework.routers import DefaultRouter
from rest_framework_nested.routers import NestedSimpleRouter

from tests.testapp.models import Book, Publisher
from tests.testapp.serializers import BookSerializer, PublisherSerializer


class SearchedPublisherViewSet(viewsets.ReadOnlyModelViewSet[Publisher]):
    """Publishers, searched by name; non-staff see no ``XX`` publishers."""

    serializer_class = PublisherSerializer
    filter_backends = (filters.SearchFilter, filters.OrderingFilter)
    search_fields = ("name",)
    ordering = ("name",)

    def get_queryset(self) -> QuerySet[Publisher]:
        rows = Publisher.objects.all()
        return rows if self.request.user.is_staff else rows.exclude(country="XX")


class CodedPublisherViewSet(viewsets.ReadOnlyModelViewSet[Publisher]):
    """Publishers by their code, with no search: matched by prefix."""

    queryset = Publisher.objects.exclude(code=None).order_by("code")
    serializer_class = PublisherSerializer
    lookup_field = "code"
    filter_backends = ()


class NestedBookViewSet(viewsets.ReadOnlyModelViewSet[Book]):
    """One publisher's books, by ISBN, searched by title."""

    serializer_class = BookSerializer
    lookup_field = "isbn"
    filter_backends = (filters.SearchFilter,)
    search_fields = ("title",)

    def get_queryset(self) -> QuerySet[Book]:
        return Book.objects.filter(publisher_id=self.kwargs["publisher_pk"]).order_by(
            "isbn"
        )


class StaffPublisherViewSet(viewsets.ReadOnlyModelViewSet[Publisher]):
    """Publishers only staff may list or read."""

    queryset = Publisher.objects.order_by("pk")
    serializer_class = PublisherSerializer
    permission_classes = (permissions.IsAdminUser,)


class Shut(throttling.BaseThrottle):
    """Refuses every request, with a wait of 30 seconds."""

    def allow_request(self, request: Request, view: Any) -> bool:
        return False

    def wait(self) -> float:
        return 30.0


class ThrottledPublisherViewSet(viewsets.ReadOnlyModelViewSet[Publisher]):
    """Publishers behind a throttle that is always shut."""

    queryset = Publisher.objects.order_by("pk")
    serializer_class = PublisherSerializer
    throttle_classes = (Shut,)


router = DefaultRouter()
router.register("publishers", SearchedPublisherViewSet, basename="publisher")
router.register("coded", CodedPublisherViewSet, basename="coded")
router.register("staff", StaffPublisherViewSet, basename="staff")
router.register("throttled", ThrottledPublisherViewSet, basename="throttled")
books = NestedSimpleRouter(router, "publishers", lookup="publisher")
books.register("books", NestedBookViewSet, basename="publisher-book")

urlpatterns: list[URLPattern | URLResolver] = [
    path("api/", include(router.urls)),
    path("api/", include(books.urls)),
    path("mcp", include("frisian_mcp.urls")),
]
