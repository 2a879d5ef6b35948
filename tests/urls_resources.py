"""Read-only views whose retrieve tools are resources (tests/test_resources*.py).

Publishers under each kind of refusal ADR 0043 names: a template hidden from
non-staff, a queryset that hides rows, an object permission that refuses
rows (403) or anonymous callers (401), a throttle, a pattern with two path
variables, one that takes a ``/`` in its value, and two routes without any
(one for everyone, the caller's own account for signed-in callers only).
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.http import Http404
from django.urls import URLPattern, URLResolver, include, path
from rest_framework import exceptions, generics, permissions, throttling, viewsets
from rest_framework.authentication import SessionAuthentication, TokenAuthentication
from rest_framework.request import Request
from rest_framework.routers import DefaultRouter

from tests.testapp.models import Book, Publisher
from tests.testapp.serializers import BookSerializer, PublisherSerializer
from tests.testapp.views import MeView


class StaffPublisherViewSet(viewsets.ReadOnlyModelViewSet[Publisher]):
    """Publishers only staff may read: hidden from everyone else."""

    queryset = Publisher.objects.all()
    serializer_class = PublisherSerializer
    permission_classes = (permissions.IsAdminUser,)


class DutchPublisherViewSet(viewsets.ReadOnlyModelViewSet[Publisher]):
    """Publishers; non-staff callers see the Dutch ones only (its queryset)."""

    serializer_class = PublisherSerializer

    def get_queryset(self) -> QuerySet[Publisher]:
        rows = Publisher.objects.all()
        return rows if self.request.user.is_staff else rows.filter(country="NL")


class NoSecrets(permissions.BasePermission):
    """Refuses the rows whose country is ``XX`` (403), to everyone."""

    def has_object_permission(self, request: Request, view: Any, obj: Any) -> bool:
        return bool(obj.country != "XX")


class SignedInRows(permissions.BasePermission):
    """Lets everyone list, but only a signed-in caller read a row (401)."""

    def has_object_permission(self, request: Request, view: Any, obj: Any) -> bool:
        if not request.user.is_authenticated:
            raise exceptions.NotAuthenticated()
        return True


class GuardedPublisherViewSet(viewsets.ReadOnlyModelViewSet[Publisher]):
    """Publishers under object permissions: 403 for secrets, 401 anonymous."""

    queryset = Publisher.objects.all()
    serializer_class = PublisherSerializer
    # A token authenticator first: its header makes DRF answer 401.
    authentication_classes = (TokenAuthentication, SessionAuthentication)
    permission_classes = (NoSecrets, SignedInRows)


class Closed(throttling.BaseThrottle):
    """Refuses every request, with a wait of 30 seconds."""

    def allow_request(self, request: Request, view: Any) -> bool:
        return False

    def wait(self) -> float:
        return 30.0


class ThrottledPublisherViewSet(viewsets.ReadOnlyModelViewSet[Publisher]):
    """Publishers behind a throttle that is always shut."""

    queryset = Publisher.objects.all()
    serializer_class = PublisherSerializer
    throttle_classes = (Closed,)


class PublisherBookView(generics.RetrieveAPIView[Book]):
    """One book of one publisher, by its ISBN: two path variables."""

    serializer_class = BookSerializer

    def get_object(self) -> Book:
        kwargs = self.kwargs
        found = Book.objects.filter(
            publisher_id=kwargs["publisher"], isbn=kwargs["isbn"]
        ).first()
        if found is None:
            raise Http404
        return found


class CodedPublisherView(generics.RetrieveAPIView[Publisher]):
    """A publisher by its code, which may hold a ``/`` (a ``path`` pattern)."""

    queryset = Publisher.objects.all()
    serializer_class = PublisherSerializer
    lookup_field = "code"


class FirstPublisherView(generics.RetrieveAPIView[Publisher]):
    """The first publisher: a route without path variables."""

    serializer_class = PublisherSerializer

    def get_object(self) -> Publisher:
        found = Publisher.objects.order_by("pk").first()
        if found is None:
            raise Http404
        return found


router = DefaultRouter()
router.register("staff", StaffPublisherViewSet, basename="staff")
router.register("dutch", DutchPublisherViewSet, basename="dutch")
router.register("guarded", GuardedPublisherViewSet, basename="guarded")
router.register("throttled", ThrottledPublisherViewSet, basename="throttled")

urlpatterns: list[URLPattern | URLResolver] = [
    path("api/", include(router.urls)),
    path("api/houses/<int:publisher>/books/<str:isbn>/", PublisherBookView.as_view()),
    path("api/coded/<path:code>/", CodedPublisherView.as_view()),
    path("api/first/", FirstPublisherView.as_view()),
    path("api/me/", MeView.as_view()),
    path("mcp", include("frisian_mcp.urls")),
]
