"""The network-inventory host's API under /api/, and /mcp."""

from __future__ import annotations

from django.urls import include, path
from rest_framework.routers import SimpleRouter

from tests.hosts.ipam import views

router = SimpleRouter()
router.register("tenants", views.TenantViewSet)
router.register("prefixes", views.PrefixViewSet)
router.register("asn-ranges", views.ASNRangeViewSet, basename="asnrange")
router.register("asns", views.ASNViewSet)
router.register("vlan-groups", views.VLANGroupViewSet)
router.register("vlans", views.VLANViewSet)

urlpatterns = [
    path("api/", include(router.urls)),
    path(
        "api/prefixes/<int:pk>/available-prefixes/",
        views.AvailablePrefixesView.as_view(),
    ),
    path("api/asn-ranges/<int:pk>/available-asns/", views.AvailableASNsView.as_view()),
    path(
        "api/vlan-groups/<int:pk>/available-vlans/",
        views.AvailableVLANsView.as_view(),
    ),
    path("mcp", include("frisian_mcp.urls")),
]
