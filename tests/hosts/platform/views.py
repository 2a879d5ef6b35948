"""The platform's API, with the shortcuts real hosts take.

A project's create also writes its translations (``perform_create``), from
values the serializer does not check against the database: a language code
that may be null, a progress with no upper bound, a parent given by its raw
id. The database refuses what the serializer let through.
"""

from __future__ import annotations

from typing import Any

import django_filters
from rest_framework import serializers, viewsets

from tests.hosts.platform.models import STYLES, Project, Translation

#: A filter's help as hosts write it: long, in markdown.
STYLE_HELP = "\n".join(
    f"* `{code}` - {label}: codes are written the {label.lower()} way, as "
    "in the [style guide](https://example.org/styles) of the platform."
    for code, label in STYLES
)


class ProjectSerializer(serializers.ModelSerializer[Project]):
    languages = serializers.ListField(
        child=serializers.CharField(allow_null=True), write_only=True, required=False
    )
    progress = serializers.IntegerField(write_only=True, required=False)
    parent_id = serializers.IntegerField(write_only=True, required=False)

    class Meta:
        model = Project
        fields = ["id", "slug", "language_code_style", "languages", "progress"]
        fields += ["parent_id"]


# django-filter ships no type information, so its classes are ``Any``.
class ProjectFilterSet(django_filters.FilterSet):  # type: ignore[misc]
    language_code_style = django_filters.MultipleChoiceFilter(
        choices=STYLES, help_text=STYLE_HELP
    )

    class Meta:
        model = Project
        fields = ("slug",)


class ProjectViewSet(viewsets.ModelViewSet[Project]):
    """Projects; creating one creates its translations too."""

    queryset = Project.objects.order_by("pk")
    serializer_class = ProjectSerializer
    filterset_class = ProjectFilterSet

    def perform_create(self, serializer: Any) -> None:
        languages = serializer.validated_data.pop("languages", [])
        progress = serializer.validated_data.pop("progress", 0)
        project = serializer.save()
        for code in languages:
            Translation.objects.create(
                project=project, language_code=code, progress=progress
            )
