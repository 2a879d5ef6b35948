"""The helpdesk's views.

``TicketViewSet.close`` reads ``reason`` and ``search`` reads ``?q=`` by
hand, ``comments`` (DELETE) reads ``ids`` and ``destroy`` reads ``reason``
from the body: nothing declares them, and drf-spectacular guesses the bodies
from ``serializer_class``. ``MemberViewSet`` picks its serializers per
action in ``get_serializer_class()``: ``promote`` has one of its own,
``invite`` gets the default (a guess) and ``create`` validates with another
serializer than the body ``@extend_schema`` declares for it.
``RegisterView.post`` reads exactly its ``serializer_class``;
``TicketImportView.post`` reads ``titles``, beside a stock list.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import generics, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from tests.hosts.helpdesk.models import Member, Removal, Ticket


class TicketSerializer(serializers.ModelSerializer[Ticket]):
    class Meta:
        model = Ticket
        fields = ("id", "title", "status", "note")


class MemberSerializer(serializers.ModelSerializer[Member]):
    class Meta:
        model = Member
        fields = ("id", "username", "email", "role")
        read_only_fields = ("role",)


class MemberCreateSerializer(serializers.ModelSerializer[Member]):
    class Meta:
        model = Member
        fields = ("id", "username", "email", "secret")
        extra_kwargs = {"secret": {"write_only": True}}


class PromoteSerializer(serializers.Serializer[Any]):
    role = serializers.ChoiceField(choices=["agent", "lead"])


class RegisterSerializer(serializers.ModelSerializer[Member]):
    class Meta:
        model = Member
        fields = ("username", "email")
        extra_kwargs = {"email": {"required": True, "allow_blank": False}}


def _sent(data: Any, name: str) -> Any:
    """``data[name]`` of a body that is an object, else ``None``."""
    return data.get(name) if hasattr(data, "get") else None


def _required(data: Any, name: str) -> Any:
    """``data[name]``, or the host's 400 naming the field."""
    value = _sent(data, name)
    if value in (None, ""):
        raise ValidationError({name: ["This field is required."]})
    return value


class TicketViewSet(viewsets.ModelViewSet[Ticket]):
    """Support tickets."""

    queryset = Ticket.objects.order_by("pk")
    serializer_class = TicketSerializer

    @action(detail=True, methods=["post"])
    def close(self, request: Request, pk: str) -> Response:
        """Close the ticket, saying why."""
        reason = _required(request.data, "reason")
        ticket = self.get_object()
        ticket.status, ticket.note = "closed", str(reason)
        ticket.save()
        return Response(self.get_serializer(ticket).data)

    @action(detail=False, methods=["get"])
    def search(self, request: Request) -> Response:
        """The titles of the tickets whose title holds ``q``."""
        found = self.get_queryset().filter(
            title__icontains=request.query_params.get("q", "")
        )
        return Response({"titles": list(found.values_list("title", flat=True))})

    @action(detail=True, methods=["delete"])
    def comments(self, request: Request, pk: str) -> Response:
        """Delete comments of the ticket, by their ids."""
        ids = _sent(request.data, "ids")
        if not isinstance(ids, list) or not all(isinstance(i, int) for i in ids):
            raise ValidationError({"ids": ["A list of comment ids is required."]})
        deleted, _ = self.get_object().comments.filter(pk__in=ids).delete()
        return Response({"deleted": deleted})

    def destroy(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        """Delete the ticket, saying why (kept in the removals)."""
        reason = _required(request.data, "reason")
        Removal.objects.create(title=self.get_object().title, reason=str(reason))
        return super().destroy(request, *args, **kwargs)


@extend_schema_view(create=extend_schema(request=MemberSerializer))
class MemberViewSet(viewsets.ModelViewSet[Member]):
    """Members of the helpdesk team."""

    queryset = Member.objects.order_by("pk")

    def get_serializer_class(self) -> Any:
        chosen = {"create": MemberCreateSerializer, "promote": PromoteSerializer}
        return chosen.get(self.action, MemberSerializer)

    @action(detail=True, methods=["post"])
    def promote(self, request: Request, pk: str) -> Response:
        """Give the member another role."""
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        member = self.get_object()
        member.role = serializer.validated_data["role"]
        member.save()
        return Response(MemberSerializer(member).data)

    @action(detail=False, methods=["post"])
    def invite(self, request: Request) -> Response:
        """Invite someone by address; the name is the address's local part."""
        address = str(_required(request.data, "address"))
        member = Member.objects.create(username=address.split("@")[0], email=address)
        return Response(MemberSerializer(member).data, status.HTTP_201_CREATED)


class RegisterView(generics.GenericAPIView[Member]):
    """Sign up as a member."""

    serializer_class = RegisterSerializer

    def post(self, request: Request) -> Response:
        """Sign up with a user name and an address."""
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        serializer.save()
        return Response(serializer.data, status.HTTP_201_CREATED)


class TicketImportView(generics.ListAPIView[Ticket]):
    """Tickets; POST opens one per title."""

    queryset = Ticket.objects.order_by("pk")
    serializer_class = TicketSerializer

    def post(self, request: Request) -> Response:
        """Open one ticket per title."""
        titles = _sent(request.data, "titles")
        if not isinstance(titles, list) or not titles:
            raise ValidationError({"titles": ["A list of titles is required."]})
        created = Ticket.objects.bulk_create(Ticket(title=str(t)) for t in titles)
        return Response({"created": len(created)}, status.HTTP_201_CREATED)
