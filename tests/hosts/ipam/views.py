"""Views of the network-inventory host: model viewsets and allocators.

An allocator (``POST /prefixes/{id}/available-prefixes/``) takes one object
or a list, fills in the values it allocates under the parent row and saves
them through the model's serializer, which its OpenAPI declares as the body.
"""

from __future__ import annotations

import copy
import ipaddress
from typing import Any

from django.db import transaction
from django.db.models import Model
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, viewsets
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from tests.hosts.ipam import serializers as api
from tests.hosts.ipam.models import ASN, VLAN, ASNRange, Prefix, Tenant, VLANGroup


class TenantViewSet(viewsets.ModelViewSet[Tenant]):
    queryset = Tenant.objects.order_by("pk")
    serializer_class = api.TenantSerializer


class PrefixViewSet(viewsets.ModelViewSet[Prefix]):
    queryset = Prefix.objects.order_by("pk")
    serializer_class = api.PrefixSerializer


class ASNRangeViewSet(viewsets.ModelViewSet[ASNRange]):
    queryset = ASNRange.objects.order_by("pk")
    serializer_class = api.ASNRangeSerializer


class ASNViewSet(viewsets.ModelViewSet[ASN]):
    queryset = ASN.objects.order_by("pk")
    serializer_class = api.ASNSerializer


class VLANGroupViewSet(viewsets.ModelViewSet[VLANGroup]):
    queryset = VLANGroup.objects.order_by("pk")
    serializer_class = api.VLANGroupSerializer


class VLANViewSet(viewsets.ModelViewSet[VLAN]):
    queryset = VLAN.objects.order_by("pk")
    serializer_class = api.VLANSerializer


class AvailableObjectsView(APIView):
    """Creates rows under a parent at values the host allocates."""

    parent_model: type[Model]
    serializer_class: type[serializers.ModelSerializer[Any]]
    #: What the caller's objects are checked against first, if anything.
    request_serializer_class: type[serializers.Serializer[Any]] | None = None

    def allocate(self, parent: Any, requested: list[dict[str, Any]]) -> None:
        """Fill the allocated values into ``requested``, in place."""
        raise NotImplementedError

    def post(self, request: Request, pk: int) -> Response:
        parent = get_object_or_404(self.parent_model, pk=pk)
        many = isinstance(request.data, list)
        data: Any = request.data
        requested: list[Any] = copy.deepcopy(data if many else [data])
        if self.request_serializer_class is not None:
            checked = self.request_serializer_class(data=requested, many=True)
            if not checked.is_valid():
                return Response(checked.errors, status=400)
        self.allocate(parent, requested)
        serializer = self.serializer_class(
            data=requested if many else requested[0],
            many=many,
            context={"request": request},
        )
        if not serializer.is_valid():
            return Response(serializer.errors, status=400)
        with transaction.atomic():
            serializer.save()
        return Response(serializer.data, status=201)


class AvailablePrefixesView(AvailableObjectsView):
    parent_model = Prefix
    serializer_class = api.PrefixSerializer
    request_serializer_class = api.PrefixLengthSerializer

    def allocate(self, parent: Any, requested: list[dict[str, Any]]) -> None:
        network = ipaddress.ip_network(parent.prefix)
        taken = [ipaddress.ip_network(p.prefix) for p in Prefix.objects.all()]
        for item in requested:
            length = int(item.pop("prefix_length"))
            free = (
                s
                for s in network.subnets(new_prefix=length)
                if not any(s.overlaps(t) for t in taken if t != network)
            )
            chosen = next(free)
            taken.append(chosen)
            item["prefix"] = str(chosen)

    @extend_schema(
        request=api.PrefixSerializer(many=True),
        responses={201: api.PrefixSerializer(many=True)},
    )
    def post(self, request: Request, pk: int) -> Response:
        return super().post(request, pk)


class AvailableASNsView(AvailableObjectsView):
    parent_model = ASNRange
    serializer_class = api.ASNSerializer

    def allocate(self, parent: Any, requested: list[dict[str, Any]]) -> None:
        taken = set(parent.asns.values_list("asn", flat=True))
        free = (n for n in range(parent.start, parent.end + 1) if n not in taken)
        link = self.request.build_absolute_uri(f"/api/asn-ranges/{parent.pk}/")
        for item in requested:
            item.update(asn=next(free), range=link)

    @extend_schema(
        request=api.ASNSerializer(many=True),
        responses={201: api.ASNSerializer(many=True)},
    )
    def post(self, request: Request, pk: int) -> Response:
        return super().post(request, pk)


class AvailableVLANsView(AvailableObjectsView):
    parent_model = VLANGroup
    serializer_class = api.VLANSerializer

    def allocate(self, parent: Any, requested: list[dict[str, Any]]) -> None:
        taken = set(parent.vlans.values_list("vid", flat=True))
        free = (v for v in range(parent.min_vid, parent.max_vid + 1) if v not in taken)
        for item in requested:
            item.update(vid=next(free), group=parent.pk)

    @extend_schema(
        request=api.VLANSerializer(many=True),
        responses={201: api.VLANSerializer(many=True)},
    )
    def post(self, request: Request, pk: int) -> Response:
        return super().post(request, pk)
