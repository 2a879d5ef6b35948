"""The document-management host's API under /api/, and /mcp."""

from __future__ import annotations

from django.urls import include, path
from rest_framework.routers import SimpleRouter

from tests.hosts.docsearch import views

router = SimpleRouter()
router.register("documents", views.DocumentViewSet)
router.register("tags", views.TagViewSet)
router.register("config", views.ConfigViewSet)
router.register("secured-config", views.SecuredConfigViewSet, basename="secured")
router.register("by-number", views.NumberDocuments, basename="by-number")
router.register("by-offset", views.OffsetDocuments, basename="by-offset")
router.register("by-cursor", views.CursorDocuments, basename="by-cursor")
router.register("by-host", views.StandardDocuments, basename="by-host")

urlpatterns = [
    path("api/", include(router.urls)),
    path("mcp", include("frisian_mcp.urls")),
]
