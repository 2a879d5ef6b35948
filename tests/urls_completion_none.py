"""A URLconf with no retrieve route: no resources, so nothing to complete
(tests/test_completion.py), unless the project declares prompts."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, include, path
from rest_framework import generics

from tests.testapp.models import Publisher
from tests.testapp.serializers import PublisherSerializer


class PublisherList(generics.ListAPIView[Publisher]):
    """Publishers, listed only."""

    queryset = Publisher.objects.order_by("pk")
    serializer_class = PublisherSerializer


urlpatterns: list[URLPattern | URLResolver] = [
    path("api/publishers/", PublisherList.as_view()),
    path("mcp", include("frisian_mcp.urls")),
]
