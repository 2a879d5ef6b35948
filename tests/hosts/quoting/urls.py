"""The quoting host's URLconf: its API and the demo's under /api/, and /mcp."""

from __future__ import annotations

from django.urls import include, path
from rest_framework.routers import DefaultRouter

from demo_project.contacts.views import ContactViewSet
from demo_project.dcim.views import DeviceViewSet, SiteViewSet
from tests.hosts.quoting import views

router = DefaultRouter()
router.register("components", views.ComponentViewSet, basename="component")
router.register("documents", views.DocumentViewSet, basename="document")
router.register("platform", views.PlatformViewSet, basename="platform")
router.register("wide", views.WideViewSet, basename="wide")
router.register("call-log", views.CallLogViewSet, basename="call-log")
router.register("contacts", ContactViewSet)
router.register("dcim/sites", SiteViewSet)
router.register("dcim/devices", DeviceViewSet)

urlpatterns = [
    path("api/", include(router.urls)),
    path("mcp", include("frisian_mcp.urls")),
]
