"""The archive under /api/, and /mcp."""

from __future__ import annotations

from django.urls import include, path
from rest_framework.routers import SimpleRouter

from tests.hosts.archive import views

router = SimpleRouter()
router.register("documents", views.DocumentViewSet, basename="document")
router.register("tags", views.TagViewSet, basename="tag")

urlpatterns = [
    path("api/", include(router.urls)),
    path("mcp", include("frisian_mcp.urls")),
]
