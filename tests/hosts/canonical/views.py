"""Hyperlinked publishers: absolute URLs built from the request."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.urls import reverse
from rest_framework import serializers, viewsets

from tests.testapp.models import Publisher


class LinkedPublisherSerializer(serializers.HyperlinkedModelSerializer[Publisher]):
    """``url`` through DRF's reverse; ``home`` from the request's own URLconf,
    read the way Django's own code reads it."""

    home = serializers.SerializerMethodField()

    class Meta:
        model = Publisher
        fields = ("url", "id", "name", "home")
        extra_kwargs = {"url": {"view_name": "linked-publisher-detail"}}

    def get_home(self, publisher: Publisher) -> str:
        request = self.context["request"]
        urlconf = getattr(request, "urlconf", settings.ROOT_URLCONF)
        path = reverse("public-home", urlconf=urlconf)
        absolute: Any = request.build_absolute_uri(path)
        return str(absolute)


class LinkedPublisherViewSet(viewsets.ModelViewSet[Publisher]):
    """Publishers with links."""

    queryset = Publisher.objects.order_by("pk")
    serializer_class = LinkedPublisherSerializer
