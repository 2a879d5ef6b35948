"""The glossary host's API under /api/, and /mcp."""

from __future__ import annotations

from django.urls import include, path
from rest_framework.routers import SimpleRouter

from tests.hosts.glossary import views

router = SimpleRouter()
router.register("languages", views.LanguageViewSet)
router.register("components", views.ComponentViewSet)

urlpatterns = [
    path("api/", include(router.urls)),
    path("mcp", include("frisian_mcp.urls")),
]
