"""The accounts host's views: one serializer per kind of caller."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from rest_framework import permissions, serializers, viewsets


class BasicUserSerializer(serializers.ModelSerializer[User]):
    """A person as everyone sees them."""

    class Meta:
        model = User
        fields = ["id", "username", "first_name", "last_name"]


class FullUserSerializer(BasicUserSerializer):
    """A person as user managers see them: with their email address."""

    class Meta(BasicUserSerializer.Meta):
        fields = [*BasicUserSerializer.Meta.fields, "email", "is_active"]


class UserViewSet(viewsets.ModelViewSet[User]):
    """People; user managers also see and set their email address."""

    queryset = User.objects.order_by("pk")
    permission_classes = [permissions.IsAuthenticated]

    def get_serializer_class(self) -> Any:
        user = self.request.user
        if user.is_staff or user.has_perm("auth.change_user"):
            return FullUserSerializer
        return BasicUserSerializer
