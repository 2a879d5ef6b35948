"""The catalogue under /api/, and /mcp."""

from __future__ import annotations

from django.urls import include, path
from rest_framework.routers import SimpleRouter

from tests.hosts.catalogue import views

router = SimpleRouter()
router.register("products", views.ProductViewSet)
router.register("features", views.FeatureViewSet)

urlpatterns = [
    path("api/", include(router.urls)),
    path("mcp", include("frisian_mcp.urls")),
]
