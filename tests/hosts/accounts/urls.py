"""The accounts host's API under /api/, and /mcp."""

from __future__ import annotations

from django.urls import include, path
from rest_framework.routers import SimpleRouter

from tests.hosts.accounts import views

router = SimpleRouter()
router.register("users", views.UserViewSet)

urlpatterns = [
    path("api/", include(router.urls)),
    path("mcp", include("frisian_mcp.urls")),
]
