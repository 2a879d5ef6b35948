"""Model viewsets of the nested-lookup host."""

from __future__ import annotations

from rest_framework import viewsets

from tests.hosts.lookups import serializers as api
from tests.hosts.lookups.models import Device, DeviceType, Manufacturer


class ManufacturerViewSet(viewsets.ModelViewSet[Manufacturer]):
    queryset = Manufacturer.objects.order_by("pk")
    serializer_class = api.ManufacturerSerializer


class DeviceTypeViewSet(viewsets.ModelViewSet[DeviceType]):
    queryset = DeviceType.objects.order_by("pk")
    serializer_class = api.DeviceTypeSerializer


class DeviceViewSet(viewsets.ModelViewSet[Device]):
    queryset = Device.objects.order_by("pk")
    serializer_class = api.DeviceSerializer
