"""Model viewsets of the custom-field host."""

from __future__ import annotations

from typing import Any

from rest_framework import viewsets

from tests.hosts.customfields import serializers as api
from tests.hosts.customfields.models import CustomField, CustomFieldInstance, Document


class DocumentViewSet(viewsets.ModelViewSet[Document]):
    queryset = Document.objects.order_by("pk")
    serializer_class = api.DocumentSerializer


class CustomFieldViewSet(viewsets.ModelViewSet[CustomField]):
    queryset = CustomField.objects.order_by("pk")
    serializer_class = api.CustomFieldSerializer


class CustomFieldInstanceViewSet(viewsets.ModelViewSet[CustomFieldInstance]):
    queryset = CustomFieldInstance.objects.select_related("field").order_by("pk")
    serializer_class: Any = api.CustomFieldInstanceSerializer


class MethodValueViewSet(CustomFieldInstanceViewSet):
    serializer_class = api.MethodValueSerializer
