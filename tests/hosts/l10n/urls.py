"""The localization platform under /api/, and /mcp."""

from __future__ import annotations

from django.urls import include, path
from rest_framework.routers import SimpleRouter

from tests.hosts.l10n import views

router = SimpleRouter()
router.register("projects", views.ProjectViewSet, basename="project")
router.register("teams", views.TeamViewSet, basename="team")

urlpatterns = [
    path("api/", include(router.urls)),
    path("mcp", include("frisian_mcp.urls")),
]
