"""The custom-field host's API under /api/, and /mcp."""

from __future__ import annotations

from django.urls import include, path
from rest_framework.routers import SimpleRouter

from tests.hosts.customfields import views

router = SimpleRouter()
router.register("documents", views.DocumentViewSet)
router.register("custom-fields", views.CustomFieldViewSet)
router.register("values", views.CustomFieldInstanceViewSet, basename="value")
router.register("method-values", views.MethodValueViewSet, basename="methodvalue")

urlpatterns = [
    path("api/", include(router.urls)),
    path("mcp", include("frisian_mcp.urls")),
]
