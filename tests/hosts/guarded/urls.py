"""The guarded host's API under /api/, nested by drf-nested-routers, and /mcp."""

from __future__ import annotations

from django.urls import include, path
from rest_framework.routers import SimpleRouter
from rest_framework_nested.routers import NestedSimpleRouter

from tests.hosts.guarded import views

router = SimpleRouter()
router.register("projects", views.ProjectViewSet, basename="guarded-project")
router.register("languages", views.LanguageViewSet, basename="guarded-language")

projects = NestedSimpleRouter(router, "projects", lookup="project")
projects.register("components", views.ComponentViewSet, basename="guarded-component")

urlpatterns = [
    path("api/", include(router.urls)),
    path("api/", include(projects.urls)),
    path("mcp", include("frisian_mcp.urls")),
]
