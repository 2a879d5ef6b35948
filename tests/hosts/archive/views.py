"""The archive's viewsets."""

from __future__ import annotations

from rest_framework import serializers, viewsets

from tests.hosts.archive.filters import DocumentFilterSet
from tests.hosts.archive.models import Document, Tag


class DocumentSerializer(serializers.ModelSerializer[Document]):
    class Meta:
        model = Document
        fields = ("id", "title", "status", "correspondent", "tags", "custom_fields")


class TagSerializer(serializers.ModelSerializer[Tag]):
    class Meta:
        model = Tag
        fields = ("id", "name")


class DocumentViewSet(viewsets.ModelViewSet[Document]):
    """Documents, filtered by django-filter."""

    queryset = Document.objects.order_by("pk")
    serializer_class = DocumentSerializer
    filterset_class = DocumentFilterSet


class TagViewSet(viewsets.ModelViewSet[Tag]):
    """Tags."""

    queryset = Tag.objects.order_by("pk")
    serializer_class = TagSerializer
