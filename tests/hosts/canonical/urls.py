"""The canonical host's root URLconf: its API under /api/, and /mcp."""

from __future__ import annotations

from django.urls import include, path
from rest_framework.routers import DefaultRouter

from tests.hosts.canonical.views import LinkedPublisherViewSet

router = DefaultRouter()
router.register("publishers", LinkedPublisherViewSet, basename="linked-publisher")

urlpatterns = [
    path("api/", include(router.urls)),
    path("mcp", include("frisian_mcp.urls")),
]
