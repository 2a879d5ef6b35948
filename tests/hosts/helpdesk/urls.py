"""The helpdesk's API under /api/, and /mcp."""

from __future__ import annotations

from django.urls import include, path
from rest_framework.routers import SimpleRouter

from tests.hosts.helpdesk import views

router = SimpleRouter()
router.register("tickets", views.TicketViewSet)
router.register("members", views.MemberViewSet, basename="member")

urlpatterns = [
    path("api/", include(router.urls)),
    path("api/register/", views.RegisterView.as_view()),
    path("api/imports/", views.TicketImportView.as_view()),
    path("mcp", include("frisian_mcp.urls")),
]
