"""The file-moving host's API under /api/, and /mcp."""

from __future__ import annotations

from django.urls import include, path
from rest_framework.routers import SimpleRouter

from tests.hosts.files import views

router = SimpleRouter()
router.register("papers", views.PaperViewSet)
router.register("uploads", views.UploadViewSet, basename="upload")
router.register("briefs", views.BriefViewSet, basename="brief")

urlpatterns = [
    path("api/", include(router.urls)),
    path("mcp", include("frisian_mcp.urls")),
]
