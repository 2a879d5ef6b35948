"""Viewsets and views of the test app."""

from __future__ import annotations

from typing import Any, cast

from django.contrib.auth.models import User
from django.db.models import Q, QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework import generics, permissions, serializers, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from tests.testapp.models import Book, Publisher, Shelf, ShelfLabel
from tests.testapp.permissions import DutchPublisherPermission
from tests.testapp.serializers import (
    AccountSerializer,
    BookSerializer,
    PublisherSerializer,
    ShelfLabelSerializer,
    ShelfSerializer,
    StatsSerializer,
)


class PublisherViewSet(viewsets.ModelViewSet[Publisher]):
    """Publishers of books."""

    queryset = Publisher.objects.all()
    serializer_class = PublisherSerializer
    filterset_fields = ("country",)


class BookViewSet(viewsets.ModelViewSet[Book]):
    """Books, with an action that marks one out of print."""

    queryset = Book.objects.all()
    serializer_class = BookSerializer
    filterset_fields = ("genre", "publisher", "in_print")
    search_fields = ("title",)
    ordering_fields = ("title", "pages")

    # Reads no body: saying so keeps BookSerializer's fields off its tool (W009).
    @extend_schema(request=None)
    @action(detail=True, methods=["post"])
    def retire(self, request: Request, pk: Any = None) -> Response:
        """Mark the book out of print."""
        book = self.get_object()
        book.in_print = False
        book.save(update_fields=["in_print"])
        return Response(self.get_serializer(book).data)

    @action(detail=False, methods=["get"], url_path="in-print")
    def in_print(self, request: Request) -> Response:
        """Titles of the books still in print."""
        return Response(
            {
                "titles": list(
                    self.get_queryset()
                    .filter(in_print=True)
                    .values_list("title", flat=True)
                )
            }
        )


class ShelfViewSet(viewsets.ModelViewSet[Shelf]):
    """Shelves, unique by room and number."""

    queryset = Shelf.objects.all()
    serializer_class = ShelfSerializer


class ShelfLabelViewSet(viewsets.ModelViewSet[ShelfLabel]):
    """Labels on shelves."""

    queryset = ShelfLabel.objects.all()
    serializer_class = ShelfLabelSerializer


class PrivateShelfViewSet(ShelfViewSet):
    """Shelves for signed-in users only."""

    permission_classes = (permissions.IsAuthenticated,)


class AuditedPublisherViewSet(viewsets.ModelViewSet[Publisher]):
    """Publishers whose create() is customised: bulk creates go item by item."""

    queryset = Publisher.objects.all()
    serializer_class = PublisherSerializer

    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        response = super().create(request, *args, **kwargs)
        response.data = {**response.data, "audited": True}
        return response


class StatsView(generics.GenericAPIView[Any]):
    """How many books and publishers there are."""

    serializer_class = StatsSerializer

    def get(self, request: Request) -> Response:
        return Response(
            {"books": Book.objects.count(), "publishers": Publisher.objects.count()}
        )


class BookByTitleView(generics.RetrieveAPIView[Book]):
    """A book found by its exact title."""

    queryset = Book.objects.all()
    serializer_class = BookSerializer
    lookup_field = "title"


class PlainView(APIView):
    """A plain APIView without a serializer: not a tool."""

    def get(self, request: Request) -> Response:
        return Response({"ok": True})


#: Publishers of this country are visible to superusers only.
RESTRICTED_COUNTRY = "ZZ"


def visible_publishers(user: Any) -> QuerySet[Publisher]:
    """The publishers ``user`` may see: all for superusers, else unrestricted."""
    publishers = Publisher.objects.all()
    if getattr(user, "is_superuser", False):
        return publishers
    return publishers.exclude(country=RESTRICTED_COUNTRY)


class VisiblePublisherField(serializers.PrimaryKeyRelatedField[Publisher]):
    """A publisher id, resolved among the publishers the caller may see."""

    def get_queryset(self) -> QuerySet[Publisher]:
        request = self.context.get("request")
        return visible_publishers(getattr(request, "user", None))


class ScopedBookSerializer(BookSerializer):
    """A book whose publisher must be one the caller may see."""

    publisher = VisiblePublisherField(
        queryset=Publisher.objects.all(), required=False, allow_null=True
    )

    class Meta(BookSerializer.Meta):
        fields = tuple(f for f in BookSerializer.Meta.fields if f != "sequels")


class GuardedPublisherViewSet(viewsets.ModelViewSet[Publisher]):
    """Publishers; only superusers may change or delete Dutch ones."""

    queryset = Publisher.objects.order_by("pk")
    serializer_class = PublisherSerializer
    permission_classes = (DutchPublisherPermission,)


class ScopedBookViewSet(viewsets.ModelViewSet[Book]):
    """Books of the publishers the caller may see (per-user queryset scoping)."""

    queryset = Book.objects.all()
    serializer_class = ScopedBookSerializer
    permission_classes = (permissions.IsAuthenticated,)

    def get_queryset(self) -> QuerySet[Book]:
        visible = visible_publishers(self.request.user)
        return Book.objects.filter(
            Q(publisher__isnull=True) | Q(publisher__in=visible)
        ).order_by("pk")


class GuardedDeletePublisherViewSet(PublisherViewSet):
    """Publishers whose delete the host refuses with its own 409 reason."""

    def destroy(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        publisher = self.get_object()
        books = Book.objects.filter(publisher=publisher).count()
        if books:
            return Response(
                {"detail": f"Cannot delete: {books} books still name this publisher."},
                status=409,
            )
        return super().destroy(request, *args, **kwargs)


class MeView(generics.RetrieveAPIView[User]):
    """The caller's own account: a route without path variables, so one
    resource (ADR 0043) that only a signed-in caller may read, each their
    own record."""

    serializer_class = AccountSerializer
    permission_classes = (permissions.IsAuthenticated,)

    def get_object(self) -> User:
        return cast(User, self.request.user)
