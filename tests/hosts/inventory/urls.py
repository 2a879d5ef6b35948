"""The inventory host's API under /api/, and /mcp."""

from __future__ import annotations

from django.urls import include, path
from rest_framework.routers import SimpleRouter

from tests.hosts.inventory import views

router = SimpleRouter()
router.register("dcim/devices", views.DeviceViewSet, basename="device")
router.register("plugins/sync", views.SyncViewSet, basename="sync")
router.register("plugins/audit", views.AuditViewSet, basename="audit")
router.register("plugins/export", views.ExportViewSet, basename="export")
router.register("plugins/health", views.HealthViewSet, basename="health")
router.register("plugins/broken", views.BrokenPluginViewSet, basename="broken")

urlpatterns = [
    path("api/", include(router.urls)),
    path("api/plugins/legacy/", views.LegacyView.as_view()),
    path("mcp", include("frisian_mcp.urls")),
]
