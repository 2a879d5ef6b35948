"""Model viewsets of the interface-assignment host."""

from __future__ import annotations

from typing import Any

from rest_framework import viewsets

from tests.hosts.generic import serializers as api
from tests.hosts.generic.models import Interface, IPAddress, VMInterface


class InterfaceViewSet(viewsets.ModelViewSet[Interface]):
    queryset = Interface.objects.order_by("pk")
    serializer_class = api.InterfaceSerializer


class VMInterfaceViewSet(viewsets.ModelViewSet[VMInterface]):
    queryset = VMInterface.objects.order_by("pk")
    serializer_class = api.VMInterfaceSerializer


class IPAddressViewSet(viewsets.ModelViewSet[IPAddress]):
    queryset = IPAddress.objects.order_by("pk")
    serializer_class: Any = api.IPAddressSerializer


class UntypedIPAddressViewSet(IPAddressViewSet):
    serializer_class = api.UntypedIPAddressSerializer


class SlugIPAddressViewSet(IPAddressViewSet):
    serializer_class = api.SlugIPAddressSerializer


class UntypedSlugIPAddressViewSet(IPAddressViewSet):
    serializer_class = api.UntypedSlugIPAddressSerializer
