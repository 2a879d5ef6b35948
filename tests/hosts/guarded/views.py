"""Views of the guarded host app.

* ``ProjectViewSet``: DRF's ``DjangoObjectPermissions`` over guardian's
  object permissions; guardian's ``ObjectPermissionsFilter`` shows each
  user the projects they may view.
* ``ComponentViewSet``: nested under a project (drf-nested-routers); the
  host's ``ProjectMember`` reads the project from the URL.
* ``LanguageViewSet``: the host's ``LanguageEditor``; looked up by a
  writable ``code``.
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from rest_framework import viewsets
from rest_framework.permissions import DjangoObjectPermissions
from rest_framework_guardian.filters import ObjectPermissionsFilter

from tests.hosts.guarded.models import Component, Language, Project
from tests.hosts.guarded.permissions import LanguageEditor, ProjectMember
from tests.hosts.guarded.serializers import (
    ComponentSerializer,
    LanguageSerializer,
    ProjectSerializer,
)


class ProjectViewSet(viewsets.ModelViewSet[Project]):
    """Projects the caller may view."""

    queryset = Project.objects.order_by("slug")
    serializer_class = ProjectSerializer
    permission_classes = (DjangoObjectPermissions,)
    filter_backends = (ObjectPermissionsFilter,)
    lookup_field = "slug"


class ComponentViewSet(viewsets.ModelViewSet[Component]):
    """The components of one project."""

    serializer_class = ComponentSerializer
    permission_classes = (ProjectMember,)
    lookup_field = "slug"

    def get_queryset(self) -> QuerySet[Component]:
        slug = self.kwargs["project_slug"]
        return Component.objects.filter(project__slug=slug).order_by("slug")

    def perform_create(self, serializer: Any) -> None:
        serializer.save(project=Project.objects.get(slug=self.kwargs["project_slug"]))


class LanguageViewSet(viewsets.ModelViewSet[Language]):
    """Languages, by code."""

    queryset = Language.objects.order_by("code")
    serializer_class = LanguageSerializer
    permission_classes = (LanguageEditor,)
    lookup_field = "code"
