"""Publishers whose delete the host guards with its own 409 message."""

from __future__ import annotations

from django.urls import include, path
from rest_framework.routers import DefaultRouter

from tests.testapp.views import GuardedDeletePublisherViewSet

router = DefaultRouter()
router.register("publishers", GuardedDeletePublisherViewSet, basename="publisher")

urlpatterns = [
    path("api/", include(router.urls)),
    path("mcp", include("frisian_mcp.urls")),
]
