"""URLs of the demo: the REST API under /api/, its OpenAPI schema, and /mcp."""

from __future__ import annotations

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView
from rest_framework.routers import DefaultRouter

from demo_project.contacts.views import ContactViewSet
from demo_project.dcim.views import DeviceViewSet, SiteViewSet, TagViewSet

router = DefaultRouter()
router.register("contacts", ContactViewSet)
router.register("dcim/sites", SiteViewSet)
router.register("dcim/devices", DeviceViewSet)
router.register("dcim/tags", TagViewSet)

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", include(router.urls)),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api-auth/", include("rest_framework.urls")),
    path("mcp", include("frisian_mcp.urls")),
]
