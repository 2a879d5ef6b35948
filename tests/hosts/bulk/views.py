"""Views of the bulk-routes host: model viewsets with bulk actions.

A delete that other rows protect answers 409 naming how many refer to it,
as the application's viewsets do. ``available-racks`` creates racks in a
site under names it allocates, from one object or a list of them.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models import ProtectedError
from drf_spectacular.utils import extend_schema
from rest_framework import viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from tests.hosts.bulk.mixins import BulkDestroyModelMixin, BulkUpdateModelMixin
from tests.hosts.bulk.models import Rack, Site
from tests.hosts.bulk.serializers import RackSerializer, SiteSerializer


class BulkModelViewSet(
    BulkUpdateModelMixin,
    BulkDestroyModelMixin,
    viewsets.ModelViewSet,  # type: ignore[type-arg]
):
    """A model viewset with bulk update and delete on its list route."""

    def dispatch(self, request: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return super().dispatch(request, *args, **kwargs)
        except ProtectedError as exc:
            count = len(exc.protected_objects)
            response = Response(
                {"detail": f"Unable to delete: {count} dependent objects."},
                status=409,
            )
            return self.finalize_response(request, response, *args, **kwargs)


class SiteViewSet(BulkModelViewSet):
    queryset = Site.objects.order_by("pk")
    serializer_class = SiteSerializer

    @extend_schema(
        request=RackSerializer(many=True), responses={201: RackSerializer(many=True)}
    )
    @action(detail=True, methods=["post"], url_path="available-racks")
    def available_racks(self, request: Request, pk: Any = None) -> Response:
        """Create racks in the site, named by the next free numbers."""
        site = self.get_object()
        sent: Any = request.data
        many = isinstance(sent, list)
        wanted = [dict(item) for item in (sent if many else [sent])]
        taken = set(site.racks.values_list("name", flat=True))
        free = (f"R{n}" for n in range(1, 10_000) if f"R{n}" not in taken)
        for item in wanted:
            item.update(site=site.pk, name=next(free))
        serializer = RackSerializer(data=wanted if many else wanted[0], many=many)
        serializer.is_valid(raise_exception=True)
        with transaction.atomic():
            serializer.save()
        return Response(serializer.data, status=201)


class RackViewSet(BulkModelViewSet):
    queryset = Rack.objects.order_by("pk")
    serializer_class = RackSerializer
    filterset_fields = ("site", "status")
