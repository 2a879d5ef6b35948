"""The host's device view and its plugins' views.

The plugin views are plain ``ViewSet``\\ s with a ``serializer_class``, as
plugins write them: no ``get_serializer()``, no ``queryset``. One has no
docstring, so the host's schema class words its description from
``get_serializer_class()``. ``BrokenPluginViewSet`` raises ``RuntimeError``
whenever its serializer class is asked for, and ``LegacyView`` as soon as it
is made: REST serves them only that error.
"""

from __future__ import annotations

from typing import Any

from rest_framework import status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from tests.hosts.inventory.serializers import (
    AuditSerializer,
    DeviceSerializer,
    ExportRunSerializer,
    ExportSerializer,
    SyncSerializer,
)
from tests.zoo.models import Device


class DeviceViewSet(viewsets.ModelViewSet[Device]):
    """Devices of the inventory."""

    queryset = Device.objects.order_by("pk")
    serializer_class = DeviceSerializer
    filterset_fields = ("status",)


class SyncViewSet(viewsets.ViewSet):
    """Synchronisation runs from an external source."""

    serializer_class = SyncSerializer

    def list(self, request: Request) -> Response:
        """The sources a run can read."""
        devices = Device.objects.count()
        rows = [{"source": s, "dry_run": True, "devices": devices} for s in ("cmdb",)]
        return Response(SyncSerializer(rows, many=True).data)

    def create(self, request: Request) -> Response:
        """Start a run."""
        body = SyncSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        result = {**body.validated_data, "devices": Device.objects.count()}
        return Response(SyncSerializer(result).data, status=status.HTTP_201_CREATED)


class AuditViewSet(viewsets.ViewSet):
    serializer_class = AuditSerializer

    def list(self, request: Request) -> Response:
        locked = Device.objects.filter(locked=True).order_by("pk")
        return Response(AuditSerializer(locked, many=True).data)


class ExportViewSet(viewsets.ViewSet):
    """Exports of one device."""

    serializer_class = ExportSerializer

    def retrieve(self, request: Request, pk: Any = None) -> Response:
        """What an export of the device holds."""
        device = Device.objects.filter(pk=pk).first()
        if device is None:
            return Response({"detail": "Not found."}, status=status.HTTP_404_NOT_FOUND)
        return Response(ExportSerializer(device).data)

    @action(detail=True, methods=["post"], serializer_class=ExportRunSerializer)
    def run(self, request: Request, pk: Any = None) -> Response:
        """Export the device."""
        body = ExportRunSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        return Response({"exported": pk, **body.validated_data})


class HealthViewSet(viewsets.ViewSet):
    """The plugin's health."""

    serializer_class = SyncSerializer

    def list(self, request: Request) -> Response:
        """Whether the plugin's sources answer."""
        return Response([])


class BrokenPluginViewSet(viewsets.ModelViewSet[Device]):
    """A plugin whose backend is not configured."""

    queryset = Device.objects.order_by("pk")

    def get_serializer_class(self) -> Any:
        raise RuntimeError("the plugin's backend is not configured")


class LegacyView(APIView):
    """A plugin's plain view, disabled by raising in ``__init__``."""

    serializer_class = SyncSerializer

    def __init__(self, **kwargs: Any) -> None:
        raise RuntimeError("the legacy plugin is disabled")

    def get(self, request: Request) -> Response:
        return Response({})
