"""Model viewsets of the glossary host."""

from __future__ import annotations

from rest_framework import viewsets

from tests.hosts.glossary.models import Component, Language
from tests.hosts.glossary.serializers import ComponentSerializer, LanguageSerializer


class LanguageViewSet(viewsets.ModelViewSet[Language]):
    queryset = Language.objects.order_by("pk")
    serializer_class = LanguageSerializer
    lookup_field = "code"


class ComponentViewSet(viewsets.ModelViewSet[Component]):
    queryset = Component.objects.order_by("pk")
    serializer_class = ComponentSerializer
    lookup_field = "slug"
