"""Views of the localization host: actions that page, and one that does not."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, viewsets
from rest_framework.decorators import action
from rest_framework.pagination import LimitOffsetPagination, PageNumberPagination
from rest_framework.request import Request
from rest_framework.response import Response

from tests.hosts.translations.models import Project, Translation, Unit


class StandardPagination(PageNumberPagination):
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 1000


class ProjectSerializer(serializers.ModelSerializer[Project]):
    class Meta:
        model = Project
        fields = ("id", "slug", "active")


class TranslationSerializer(serializers.ModelSerializer[Translation]):
    class Meta:
        model = Translation
        fields = ("id", "project", "language_code")


class UnitSerializer(serializers.ModelSerializer[Unit]):
    class Meta:
        model = Unit
        fields = ("id", "source", "target")


class TranslationViewSet(viewsets.ModelViewSet[Any]):  # pages units too
    queryset = Translation.objects.order_by("pk")
    serializer_class = TranslationSerializer
    pagination_class = StandardPagination

    @extend_schema(parameters=[OpenApiParameter("q", str, description="Search.")])
    @action(detail=True, methods=["get"])
    def units(self, request: Request, **kwargs: Any) -> Response:
        """The translation's units, a page at a time (the action pages itself)."""
        units = self.get_object().units.order_by("id")
        if q := request.query_params.get("q"):
            units = units.filter(source__icontains=q)
        page = self.paginate_queryset(units)
        serializer = UnitSerializer(page, many=True)
        return self.get_paginated_response(serializer.data)

    @extend_schema(responses=UnitSerializer(many=True))
    @action(detail=True, methods=["get"])
    def untranslated(self, request: Request, **kwargs: Any) -> Response:
        """Units without a translation; the schema declares a list."""
        return self._paged(self.get_object().units.filter(target="").order_by("id"))

    def _paged(self, units: QuerySet[Unit]) -> Response:
        page = self.paginate_queryset(units)
        return self.get_paginated_response(UnitSerializer(page, many=True).data)

    @action(detail=True, methods=["get"])
    def statistics(self, request: Request, **kwargs: Any) -> Response:
        """Counts of the translation's units: not paged."""
        units = self.get_object().units
        return Response(
            {"total": units.count(), "translated": units.exclude(target="").count()}
        )


class ProjectViewSet(viewsets.ModelViewSet[Any]):  # pages translations too
    queryset = Project.objects.order_by("pk")
    serializer_class = ProjectSerializer
    pagination_class = LimitOffsetPagination

    @action(detail=True, methods=["get"], url_path="languages")
    def languages(self, request: Request, **kwargs: Any) -> Response:
        """The project's translations, paged by limit and offset."""
        translations = self.get_object().translations.order_by("pk")
        page = self.paginate_queryset(translations)
        data = TranslationSerializer(page, many=True).data
        return self.get_paginated_response(data)

    @action(detail=False, methods=["get"])
    def active(self, request: Request) -> Response:
        """Active projects: the list itself, on a narrower queryset."""
        self.queryset = Project.objects.filter(active=True).order_by("pk")
        return self.list(request)
