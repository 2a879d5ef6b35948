"""The zoo API's URL patterns (mounted by ``tests.urls_zoo``)."""

from __future__ import annotations

from django.urls import include, path, re_path
from rest_framework.routers import SimpleRouter

from tests.zoo import views

router = SimpleRouter()
router.register(
    "dcim/manufacturers", views.ManufacturerViewSet, basename="manufacturer"
)
router.register("dcim/device-types", views.DeviceTypeViewSet, basename="devicetype")
router.register("dcim/devices", views.DeviceViewSet, basename="device")
router.register("dcim/interfaces", views.InterfaceViewSet, basename="interface")
router.register("reports", views.ReportViewSet, basename="report")

tag_router = SimpleRouter()
tag_router.register("extras/tags", views.TagViewSet, basename="tag")

field_router = SimpleRouter()
field_router.register("custom-fields", views.CustomFieldViewSet, basename="customfield")

plugin_router = SimpleRouter()
plugin_router.register("items", views.InventoryItemViewSet, basename="item")

plugin_patterns = [path("inventory/", include((plugin_router.urls, "inventory")))]

urlpatterns = [
    path("", views.ZooRootView.as_view(), name="root"),
    path("status/", views.StatusView.as_view(), name="status"),
    path("", include(router.urls)),
    re_path(r"^(?P<version>v1|v2)/", include(tag_router.urls)),
    path("legacy/v1/", include((field_router.urls, "v1"))),
    path("legacy/v2/", include((field_router.urls, "v2"))),
    path("plugins/", include((plugin_patterns, "plugins"), namespace="plugins")),
]
