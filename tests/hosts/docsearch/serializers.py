"""Serializers of the document-management host."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from rest_framework import serializers

from tests.hosts.docsearch.models import Config, Document, Tag


class TagsField(serializers.PrimaryKeyRelatedField):  # type: ignore[type-arg]
    """Tags by id; the class supplies its rows (no ``queryset=``)."""

    def get_queryset(self) -> QuerySet[Tag]:
        return Tag.objects.all()


class TagSerializer(serializers.ModelSerializer[Tag]):
    class Meta:
        model = Tag
        fields = ("id", "name", "color")


class DocumentSerializer(serializers.ModelSerializer[Document]):
    tags = TagsField(many=True, required=False)
    #: Rows given as a manager, as the host writes them.
    inbox_tag = serializers.PrimaryKeyRelatedField(
        queryset=Tag.objects, allow_null=True, required=False
    )

    class Meta:
        model = Document
        fields = ("id", "title", "content", "tags", "inbox_tag")


class ConfigSerializer(serializers.ModelSerializer[Config]):
    class Meta:
        model = Config
        fields = ("id", "app_title", "ocr_pages")


class DocumentsField(serializers.PrimaryKeyRelatedField):  # type: ignore[type-arg]
    """Documents by id; the class supplies its rows."""

    def get_queryset(self) -> QuerySet[Document]:
        return Document.objects.all()


class AddTagSerializer(serializers.Serializer[Any]):
    """No model: the related fields' rows come only from their classes."""

    document = DocumentsField()
    tag = TagsField()
