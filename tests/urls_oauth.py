"""URLs for the OAuth tests: the metadata, the endpoint and a per-user API."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.db.models import QuerySet
from django.urls import URLPattern, URLResolver, include, path
from rest_framework import permissions, serializers, viewsets
from rest_framework.authentication import TokenAuthentication
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.routers import DefaultRouter

from demo_project.contacts.views import ContactViewSet
from frisian_mcp.contrib.oauth.authentication import BearerTokenAuthentication


class AccountSerializer(serializers.ModelSerializer[User]):
    class Meta:
        model = User
        fields = ("id", "username")


class AccountViewSet(viewsets.ReadOnlyModelViewSet[User]):
    """The caller's own account: every user sees one row, its own."""

    serializer_class = AccountSerializer
    queryset = User.objects.all()
    authentication_classes = (TokenAuthentication, BearerTokenAuthentication)
    permission_classes = (permissions.IsAuthenticated,)

    def get_queryset(self) -> QuerySet[User]:
        return User.objects.filter(pk=self.request.user.pk or 0)

    @action(detail=False, methods=["get"])
    def whoami(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return Response({"username": request.user.get_username()})


router = DefaultRouter()
router.register("contacts", ContactViewSet)
router.register("accounts", AccountViewSet)

urlpatterns: list[URLPattern | URLResolver] = [
    path("", include("frisian_mcp.contrib.oauth.urls")),
    path("api/", include(router.urls)),
    path("mcp", include("frisian_mcp.urls")),
]
