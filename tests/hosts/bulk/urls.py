"""The bulk-routes host's API under /api/, and /mcp."""

from __future__ import annotations

from django.urls import include, path

from tests.hosts.bulk import views
from tests.hosts.bulk.routers import BulkRouter

router = BulkRouter()
router.register("sites", views.SiteViewSet)
router.register("racks", views.RackViewSet)

urlpatterns = [
    path("api/", include(router.urls)),
    path("mcp", include("frisian_mcp.urls")),
]
