"""The host's device view and its plugins' views.

``BrokenPluginViewSet`` raises ``RuntimeError`` whenever its serializer class
is asked for, and ``LegacyView`` as soon as it is made: REST serves them
only that error.
"""

from __future__ import annotations

from typing import Any

from rest_framework import viewsets
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from tests.hosts.inventory.serializers import DeviceSerializer, SyncSerializer
from tests.zoo.models import Device


class DeviceViewSet(viewsets.ModelViewSet[Device]):
    """Devices of the inventory."""

    queryset = Device.objects.order_by("pk")
    serializer_class = DeviceSerializer


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
