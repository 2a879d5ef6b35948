"""The notebook host: its API under /api/, DRF's login, and /mcp."""

from __future__ import annotations

from django.urls import include, path
from rest_framework.routers import SimpleRouter

from tests.hosts.notebook import views

router = SimpleRouter()
router.register("notebooks", views.NotebookViewSet)
router.register("notes", views.NoteViewSet)

urlpatterns = [
    path("api/", include(router.urls)),
    path("api-auth/", include("rest_framework.urls")),
    path("mcp", include("frisian_mcp.urls")),
]
