"""REST endpoints of the dcim app."""

from __future__ import annotations

from rest_framework import viewsets

from demo_project.dcim.models import Device, Site, Tag
from demo_project.dcim.serializers import (
    DeviceSerializer,
    SiteSerializer,
    TagSerializer,
)


class SiteViewSet(viewsets.ModelViewSet[Site]):
    """Sites (data centres, offices) that host devices."""

    queryset = Site.objects.all()
    serializer_class = SiteSerializer
    filterset_fields = ("name", "slug")
    search_fields = ("name", "description")
    ordering_fields = ("name",)


class DeviceViewSet(viewsets.ModelViewSet[Device]):
    """Devices placed at a site, with a lifecycle status and tags."""

    queryset = Device.objects.select_related("site").prefetch_related("tags")
    serializer_class = DeviceSerializer
    filterset_fields = ("site", "status", "tags")
    search_fields = ("name", "serial")
    ordering_fields = ("name", "status")


class TagViewSet(viewsets.ModelViewSet[Tag]):
    """Tags that label devices."""

    queryset = Tag.objects.all()
    serializer_class = TagSerializer
    filterset_fields = ("name", "slug")
    search_fields = ("name",)
