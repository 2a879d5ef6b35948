"""A URLconf with versioned and namespaced mounts of the same viewsets."""

from __future__ import annotations

from typing import Any

from django.urls import include, path, re_path
from rest_framework import viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.routers import SimpleRouter
from rest_framework.versioning import NamespaceVersioning, URLPathVersioning

from tests.testapp.models import Publisher
from tests.testapp.serializers import PublisherSerializer


class PathVersionedPublishers(viewsets.ModelViewSet[Publisher]):
    """Publishers, versioned by a URL path segment."""

    queryset = Publisher.objects.all()
    serializer_class = PublisherSerializer
    versioning_class = type(
        "Versioning",
        (URLPathVersioning,),
        {"allowed_versions": ["v1", "v2"], "default_version": "v1"},
    )

    @action(detail=True, methods=["get", "post"])
    def audit(self, request: Request, pk: Any = None, version: Any = None) -> Response:
        """Read or write the audit trail (one action, two methods)."""
        return Response({"method": request.method, "version": request.version})


class NamespacedPublishers(viewsets.ReadOnlyModelViewSet[Publisher]):
    """Publishers, versioned by URL namespace."""

    queryset = Publisher.objects.all()
    serializer_class = PublisherSerializer
    versioning_class = NamespaceVersioning


path_router = SimpleRouter()
path_router.register("publishers", PathVersionedPublishers, basename="pv-publisher")
ns_router = SimpleRouter()
ns_router.register("publishers", NamespacedPublishers, basename="ns-publisher")

urlpatterns = [
    re_path(r"^api/(?P<version>v1|v2)/", include(path_router.urls)),
    path("legacy/v1/", include((ns_router.urls, "v1"))),
    path("legacy/v2/", include((ns_router.urls, "v2"))),
    path("mcp", include("frisian_mcp.urls")),
]
