"""The accounts host's API under /api/, and /mcp."""

from __future__ import annotations

from django.urls import include, path
from rest_framework.routers import SimpleRouter

from tests.hosts.accounts import views

router = SimpleRouter()
router.register("users", views.UserViewSet)
router.register("profile", views.ProfileViewSet, basename="profile")

urlpatterns = [
    path("api/", include(router.urls)),
    path("api/token-auth/", views.TokenLoginView.as_view()),
    path("api/logout/", views.LogoutView.as_view()),
    path("mcp", include("frisian_mcp.urls")),
]
