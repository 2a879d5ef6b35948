"""Serializers of the guarded host app."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers
from rest_framework_guardian.serializers import ObjectPermissionsAssignmentMixin
from rest_framework_nested.relations import NestedHyperlinkedIdentityField

from tests.hosts.guarded.models import Component, Language, Project


class ProjectSerializer(
    ObjectPermissionsAssignmentMixin,  # type: ignore[misc]  # untyped library
    serializers.ModelSerializer[Project],
):
    """A project; its creator is granted it, as guardian hosts do."""

    class Meta:
        model = Project
        fields = ("id", "slug", "name")

    def get_permissions_map(self, created: bool) -> dict[str, list[Any]]:
        user = self.context["request"].user
        actions = ("view", "change", "delete")
        return {f"guarded.{action}_project": [user] for action in actions}


class ComponentSerializer(serializers.ModelSerializer[Component]):
    """A component; its project comes from the URL, its link names both."""

    url: NestedHyperlinkedIdentityField[Component] = NestedHyperlinkedIdentityField(
        view_name="guarded-component-detail",
        lookup_field="slug",
        parent_lookup_kwargs={"project_slug": "project__slug"},
    )

    class Meta:
        model = Component
        fields = ("id", "url", "slug", "name")


class LanguageSerializer(serializers.ModelSerializer[Language]):
    """A language; its code is both its lookup and a writable field."""

    class Meta:
        model = Language
        fields = ("code", "name")
