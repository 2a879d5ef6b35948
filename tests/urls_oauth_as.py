"""URLs for the authorization-server tests: the demo's server and a small API.

The demo's discovery documents and ``/oauth/`` endpoints, the endpoint, and
viewsets that take OAuth and DRF tokens (the demo's take the defaults of
the settings they were imported under): contacts with Django's model
permissions, and accounts, where staff see every row and others only their
own.
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db.models import QuerySet
from django.urls import URLPattern, URLResolver, include, path
from rest_framework import permissions, serializers, viewsets
from rest_framework.authentication import TokenAuthentication
from rest_framework.routers import DefaultRouter

from demo_project.authserver import urls as authserver
from demo_project.contacts.views import ContactViewSet
from frisian_mcp.contrib.oauth.authentication import BearerTokenAuthentication

AUTHENTICATION = (BearerTokenAuthentication, TokenAuthentication)


class OAuthContactViewSet(ContactViewSet):
    """The demo's contacts, for OAuth and DRF tokens alike."""

    authentication_classes = AUTHENTICATION
    permission_classes = (permissions.DjangoModelPermissions,)


class AccountSerializer(serializers.ModelSerializer[User]):
    class Meta:
        model = User
        fields = ("id", "username")


class AccountViewSet(viewsets.ReadOnlyModelViewSet[User]):
    """User accounts: staff see every row, everyone else only their own."""

    serializer_class = AccountSerializer
    queryset = User.objects.order_by("username")
    authentication_classes = AUTHENTICATION
    permission_classes = (permissions.IsAuthenticated,)

    def get_queryset(self) -> QuerySet[User]:
        if self.request.user.is_staff:
            return self.queryset
        return self.queryset.filter(pk=self.request.user.pk or 0)


router = DefaultRouter()
router.register("contacts", OAuthContactViewSet)
router.register("accounts", AccountViewSet)

urlpatterns: list[URLPattern | URLResolver] = [
    path("", include("frisian_mcp.contrib.oauth.urls")),
    path("", include(authserver.metadata)),
    path("oauth/", include((authserver.endpoints, "oauth2_provider"))),
    path("api/", include(router.urls)),
    path("mcp", include("frisian_mcp.urls")),
]
