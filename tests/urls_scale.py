"""URLs of the scale test: generated serializers and viewsets on 300 models.

Each model of ``tests.scaleapp`` gets a ``ModelSerializer`` (all fields, and
a typed read-only method field on every fourth) and a ``ModelViewSet``,
registered on one ``DefaultRouter`` as ``api/group<i % 10>/thing<i>/``. Its
``parent`` is written as the network-inventory application writes foreign
keys: a brief nested serializer, whose base class has a long docstring, under
a field-level "allow pk" spectacular extension (:class:`AllowPkExtension`).
Many
viewsets declare ``filterset_fields`` (some with lookup lists),
``search_fields`` and ``ordering_fields``; every fiftieth has two
``@action``\\ s (``archive``, a detail POST, and ``summary``, a list GET).
With all 300 viewsets that is 1,812 tools.

``FRISIAN_SCALE_VIEWSETS`` (default 300) registers only the first N
viewsets in this module's ``urlpatterns``; :func:`build_urlpatterns` builds
the patterns for any N, for in-process comparisons. With
``FRISIAN_SCALE_PERMISSION=custom`` every viewset checks the host's own
:class:`ScalePermission`, as large projects do.
"""

from __future__ import annotations

import functools
import os
from typing import Any

from django.db import models
from django.urls import URLPattern, URLResolver, include, path
from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from rest_framework import permissions, serializers, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.routers import DefaultRouter

from tests.scaleapp.models import SCALE_MODELS, SCALE_SIZE

__all__ = [
    "VIEWSET_COUNT_ENV",
    "AllowPkExtension",
    "WritableNestedSerializer",
    "brief_serializer_for",
    "build_urlpatterns",
    "expected_tool_count",
    "serializer_for",
    "viewset_count",
    "viewset_for",
]

#: The environment variable that limits how many viewsets are registered.
VIEWSET_COUNT_ENV = "FRISIAN_SCALE_VIEWSETS"
_STANDARD_ACTIONS = 6
_GROUPS = 10


class ArchiveSerializer(serializers.Serializer[dict[str, Any]]):
    """The body of the ``archive`` action."""

    reason = serializers.CharField(max_length=200)
    notify = serializers.BooleanField(default=False)


class _ScaleActions:
    """Two custom actions, mixed into every fiftieth viewset."""

    @action(detail=True, methods=["post"], serializer_class=ArchiveSerializer)
    def archive(self, request: Request, pk: str | None = None) -> Response:
        """Archive the object, giving a reason."""
        return Response({"archived": pk})

    @action(detail=False, methods=["get"])
    def summary(self, request: Request) -> Response:
        """Count the objects by status."""
        return Response({})


class ScalePermission(permissions.BasePermission):
    """A host's own rule, no stock subclass: reads open, writes need perms."""

    _ACTIONS = {"POST": "add", "PUT": "change", "PATCH": "change", "DELETE": "delete"}

    def has_permission(self, request: Request, view: Any) -> bool:
        if request.method in permissions.SAFE_METHODS:
            return True
        meta = view.queryset.model._meta
        action = self._ACTIONS.get(request.method or "", "change")
        return bool(
            request.user.has_perm(f"{meta.app_label}.{action}_{meta.model_name}")
        )


def _display(self: Any, obj: models.Model) -> str:
    return str(obj)


class WritableNestedSerializer(serializers.ModelSerializer[Any]):
    """Represents an object related through a foreign key.

    Reading gives a brief representation of the related object. Writing
    accepts its primary key, or a dictionary of attributes that identify
    exactly one related object. Subclass it per model to pick the fields
    of the brief representation.
    """

    def to_internal_value(self, data: Any) -> Any:
        model: Any = self.Meta.model
        queryset = model._default_manager.all()
        if isinstance(data, dict):
            return queryset.get(**data)
        return queryset.get(pk=data)


class AllowPkExtension(OpenApiSerializerFieldExtension):
    """The host's "allow pk" fix: a nested serializer or its id."""

    target_class = "tests.urls_scale.WritableNestedSerializer"
    match_subclasses = True

    def map_serializer_field(self, auto_schema: Any, direction: str) -> Any:
        component = auto_schema.resolve_serializer(self.target, direction)
        if direction == "response":
            return component.ref
        return {"oneOf": [{"type": "integer"}, component.ref]}


@functools.cache
def brief_serializer_for(index: int) -> type[WritableNestedSerializer]:
    """The brief nested serializer of model ``index`` (id and name)."""
    model = SCALE_MODELS[index]
    meta = type("Meta", (), {"model": model, "fields": ("id", "name")})
    name = f"Brief{model.__name__}Serializer"
    return type(
        name, (WritableNestedSerializer,), {"__module__": __name__, "Meta": meta}
    )


@functools.cache
def serializer_for(index: int) -> type[serializers.ModelSerializer[Any]]:
    """The generated ``ModelSerializer`` of model ``index``."""
    model = SCALE_MODELS[index]
    parent = brief_serializer_for(max(index - 1, 0))
    attrs: dict[str, Any] = {
        "__module__": __name__,
        "Meta": type("Meta", (), {"model": model, "fields": "__all__"}),
        "parent": parent(required=False, allow_null=True),
    }
    if index % 4 == 0:
        attrs["display"] = serializers.SerializerMethodField()
        attrs["get_display"] = _display
    return type(f"{model.__name__}Serializer", (serializers.ModelSerializer,), attrs)


@functools.cache
def viewset_for(index: int) -> type[viewsets.ModelViewSet[Any]]:
    """The generated ``ModelViewSet`` of model ``index``."""
    model = SCALE_MODELS[index]
    attrs: dict[str, Any] = {
        "__module__": __name__,
        "__doc__": f"Things of kind {index}.",
        "queryset": model._default_manager.all(),
        "serializer_class": serializer_for(index),
    }
    if index % 3 != 2:
        attrs["filterset_fields"] = (
            {
                "name": ["exact", "icontains"],
                "status": ["exact", "in"],
                "quantity": ["exact", "gte", "lte"],
                "price": ["gte", "lte"],
                "created": ["gte", "lte"],
                "parent": ["exact"],
            }
            if index % 5 == 0
            else ["name", "status", "active", "parent"]
        )
    if index % 2 == 0:
        attrs["search_fields"] = ["name", "notes"]
    if index % 3 == 0:
        attrs["ordering_fields"] = ["name", "quantity", "created"]
    if os.environ.get("FRISIAN_SCALE_PERMISSION") == "custom":
        attrs["permission_classes"] = [ScalePermission]
    bases: tuple[type[Any], ...] = (viewsets.ModelViewSet,)
    if index % 50 == 0:
        bases = (_ScaleActions, viewsets.ModelViewSet)
    return type(f"{model.__name__}ViewSet", bases, attrs)


def expected_tool_count(count: int) -> int:
    """How many flat tools the first ``count`` viewsets make."""
    with_actions = len(range(0, count, 50))
    return count * _STANDARD_ACTIONS + 2 * with_actions


def build_urlpatterns(count: int) -> list[URLPattern | URLResolver]:
    """URL patterns serving the first ``count`` viewsets, and ``/mcp``."""
    if not 1 <= count <= SCALE_SIZE:
        raise ValueError(f"{VIEWSET_COUNT_ENV} must be between 1 and {SCALE_SIZE}.")
    router = DefaultRouter()
    for index in range(count):
        router.register(f"group{index % _GROUPS}/thing{index:03d}", viewset_for(index))
    return [
        path("api/", include(router.urls)),
        path("mcp", include("frisian_mcp.urls")),
    ]


def viewset_count() -> int:
    """How many viewsets ``urlpatterns`` serves (``FRISIAN_SCALE_VIEWSETS``)."""
    return int(os.environ.get(VIEWSET_COUNT_ENV, SCALE_SIZE))


urlpatterns = build_urlpatterns(viewset_count())
