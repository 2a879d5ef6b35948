"""The accounts host's views: one serializer per kind of caller, and tokens."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from rest_framework import permissions, serializers, status, viewsets
from rest_framework.authentication import SessionAuthentication, TokenAuthentication
from rest_framework.authtoken.models import Token
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

#: The host's API takes its tokens and the browser's session.
AUTHENTICATION = [TokenAuthentication, SessionAuthentication]


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
    authentication_classes = AUTHENTICATION
    permission_classes = [permissions.IsAuthenticated]

    def get_serializer_class(self) -> Any:
        user = self.request.user
        if user.is_staff or user.has_perm("auth.change_user"):
            return FullUserSerializer
        return BasicUserSerializer


class ProfileViewSet(viewsets.GenericViewSet[User]):
    """The caller's own account."""

    serializer_class = BasicUserSerializer
    authentication_classes = AUTHENTICATION
    permission_classes = [permissions.IsAuthenticated]

    def get_queryset(self) -> Any:
        caller: Any = self.request.user
        return User.objects.filter(pk=caller.pk)

    def list(self, request: Request) -> Response:
        """The caller's own account."""
        return Response(self.get_serializer(request.user).data)

    @action(detail=False, methods=["post"])
    def generate_auth_token(self, request: Request) -> Response:
        """Replace the caller's API token with a new one."""
        caller: Any = request.user
        Token.objects.filter(user=caller).delete()
        token = Token.objects.create(user=caller)
        return Response({"token": token.key}, status=status.HTTP_201_CREATED)


class TokenLoginView(ObtainAuthToken):
    """Trade a username and password for the user's API token."""


class LogoutView(APIView):
    """End the API token the request came with."""

    authentication_classes = AUTHENTICATION
    permission_classes = [permissions.IsAuthenticated]
    serializer_class = serializers.Serializer

    def post(self, request: Request) -> Response:
        if isinstance(request.auth, Token):
            request.auth.delete()
        return Response(status=status.HTTP_204_NO_CONTENT)
