"""The drf-standardized-errors host's URLconf: its API under /api/, and /mcp."""

from __future__ import annotations

from django.urls import include, path
from rest_framework.routers import DefaultRouter

from demo_project.dcim.views import DeviceViewSet, SiteViewSet
from tests.hosts.standardized import views
from tests.testapp.views import BookViewSet, PublisherViewSet

router = DefaultRouter()
router.register("publishers", PublisherViewSet)
router.register("books", BookViewSet)
router.register("sites", SiteViewSet)
router.register("devices", DeviceViewSet)
router.register("racy", views.RacyPublisherViewSet, basename="racy")
router.register("busy", views.BusyPublisherViewSet, basename="busy")
router.register("oversized", views.OversizedPublisherViewSet, basename="oversized")
router.register("broken", views.BrokenPublisherViewSet, basename="broken")

urlpatterns = [
    path("api/", include(router.urls)),
    path("mcp", include("frisian_mcp.urls")),
]
