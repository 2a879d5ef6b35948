"""The task-queue host's URLconf: its API under /api/, and /mcp."""

from __future__ import annotations

from django.urls import include, path
from rest_framework.routers import DefaultRouter

from tests.hosts.transactions import views
from tests.testapp.views import PublisherViewSet

router = DefaultRouter()
for prefix, viewset in {
    "publishers": PublisherViewSet,
    "queueing": views.QueueingPublisherViewSet,
    "non-atomic": views.NonAtomicQueueingPublisherViewSet,
    "on-commit": views.OnCommitPublisherViewSet,
    "eager": views.EagerTaskPublisherViewSet,
    "save-then-raise": views.SaveThenRaisePublisherViewSet,
    "save-then-answer": views.SaveThenAnswerPublisherViewSet,
    "auditing": views.AuditingPublisherViewSet,
}.items():
    router.register(prefix, viewset, basename=prefix)

urlpatterns = [
    path("api/", include(router.urls)),
    path("mcp", include("frisian_mcp.urls")),
]
