"""URLs of the test project: the demo API and the test app under /api/, and /mcp."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, include, path
from rest_framework.routers import DefaultRouter

from demo_project.contacts.views import ContactViewSet
from demo_project.dcim.views import DeviceViewSet, SiteViewSet, TagViewSet
from tests.testapp import views

router = DefaultRouter()
router.register("contacts", ContactViewSet)
router.register("dcim/sites", SiteViewSet)
router.register("dcim/devices", DeviceViewSet)
router.register("dcim/tags", TagViewSet)
router.register("testapp/publishers", views.PublisherViewSet)
router.register("testapp/books", views.BookViewSet)
router.register("testapp/shelves", views.ShelfViewSet)
router.register("testapp/shelf-labels", views.ShelfLabelViewSet)
router.register(
    "testapp/private-shelves", views.PrivateShelfViewSet, basename="private-shelf"
)
router.register(
    "testapp/audited-publishers",
    views.AuditedPublisherViewSet,
    basename="audited-publisher",
)

urlpatterns: list[URLPattern | URLResolver] = [
    path("api/", include(router.urls)),
    path("api/testapp/stats/", views.StatsView.as_view(), name="testapp-stats"),
    path("api/testapp/books-by-title/<str:title>/", views.BookByTitleView.as_view()),
    path("api/testapp/plain/", views.PlainView.as_view()),
    path("mcp", include("frisian_mcp.urls")),
]
