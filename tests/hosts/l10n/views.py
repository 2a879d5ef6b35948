"""The localization platform's viewsets.

``languages``, ``labels`` and ``roles`` read keys their viewset's serializer
lacks and declare no body, so drf-spectacular guesses it from
``serializer_class``; they refuse a missing key with the host's own 400, as
the real platform does. ``rename`` declares its body, the viewset's own
serializer, explicitly; ``transfer`` gets its serializer from
``get_serializer_class``.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from tests.hosts.l10n.models import Label, Language, Project, Role, Team


class ProjectSerializer(serializers.ModelSerializer[Project]):
    class Meta:
        model = Project
        fields = ("slug", "name")


class TransferSerializer(serializers.Serializer[Any]):
    owner = serializers.CharField(max_length=50)


class TeamSerializer(serializers.ModelSerializer[Team]):
    class Meta:
        model = Team
        fields = ("id", "name")


def _required(data: Any, name: str) -> Any:
    """``data[name]``, or the host's 400 naming the field."""
    value = data.get(name) if hasattr(data, "get") else None
    if value in (None, ""):
        raise ValidationError({name: ["This field is required."]})
    return value


class ProjectViewSet(viewsets.ModelViewSet[Project]):
    """Translation projects."""

    queryset = Project.objects.order_by("pk")
    serializer_class = ProjectSerializer
    lookup_field = "slug"

    def get_serializer_class(self) -> Any:
        if self.action == "transfer":
            return TransferSerializer
        return super().get_serializer_class()

    @action(detail=True, methods=["post"])
    def languages(self, request: Request, slug: str) -> Response:
        """Start translating the project into a language."""
        code = _required(request.data, "language_code")
        language = Language.objects.filter(code=str(code)).first()
        if language is None:
            raise ValidationError({"language_code": ["No such language."]})
        self.get_object().languages.add(language)
        return Response({"language_code": language.code}, status.HTTP_201_CREATED)

    @action(detail=True, methods=["post"])
    def labels(self, request: Request, slug: str) -> Response:
        """Add a coloured label to the project."""
        name = _required(request.data, "name")
        color = _required(request.data, "color")
        label = Label.objects.create(
            project=self.get_object(), name=str(name), color=str(color)
        )
        return Response(
            {"id": label.pk, "name": label.name, "color": label.color},
            status.HTTP_201_CREATED,
        )

    @extend_schema(request=ProjectSerializer)
    @action(detail=True, methods=["post"])
    def rename(self, request: Request, slug: str) -> Response:
        """Rename the project (its body is the project's own fields)."""
        serializer = self.get_serializer(self.get_object(), request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        serializer.save()
        return Response(serializer.data)

    @action(detail=True, methods=["post"])
    def transfer(self, request: Request, slug: str) -> Response:
        """Hand the project to another owner (its serializer is chosen per action)."""
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        return Response({"owner": serializer.validated_data["owner"]})


class TeamViewSet(viewsets.ModelViewSet[Team]):
    """Teams of translators."""

    queryset = Team.objects.order_by("pk")
    serializer_class = TeamSerializer

    @action(detail=True, methods=["post"])
    def roles(self, request: Request, pk: str) -> Response:
        """Grant the team a role, by its id."""
        role_id = _required(request.data, "role_id")
        if not isinstance(role_id, int):
            raise ValidationError({"role_id": ["A valid integer is required."]})
        role = Role.objects.filter(pk=role_id).first()
        if role is None:
            raise ValidationError({"role_id": ["No such role."]})
        self.get_object().roles.add(role)
        return Response({"role_id": role.pk}, status.HTTP_201_CREATED)
