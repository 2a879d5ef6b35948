"""The interface-assignment host's API under /api/, and /mcp."""

from __future__ import annotations

from django.urls import include, path
from rest_framework.routers import SimpleRouter

from tests.hosts.generic import views

router = SimpleRouter()
router.register("interfaces", views.InterfaceViewSet)
router.register("vm-interfaces", views.VMInterfaceViewSet)
router.register("ip-addresses", views.IPAddressViewSet, basename="ipaddress")
router.register(
    "untyped-ip-addresses", views.UntypedIPAddressViewSet, basename="untyped"
)
router.register("slug-ip-addresses", views.SlugIPAddressViewSet, basename="slug")
router.register(
    "untyped-slug-ip-addresses",
    views.UntypedSlugIPAddressViewSet,
    basename="untypedslug",
)

urlpatterns = [
    path("api/", include(router.urls)),
    path("mcp", include("frisian_mcp.urls")),
]
