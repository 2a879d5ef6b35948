"""Zoo views: the patterns large DRF projects use, one or two each.

* ``ZooRootView``: the API root, excluded from the schema.
* ``ManufacturerViewSet``: Accept-header versioning (2.0 has its own
  serializer), a protected delete the
  view answers with its own 409.
* ``DeviceViewSet``: a project permission class with an object check, a
  filter set with per-instance filters, a ``q`` parameter read in
  ``get_queryset``, an action declaring its body as a serializer class.
* ``InterfaceViewSet``: hyperlinked relations and a path id declared as a
  string.
* ``TagViewSet`` (URL-path versioning), ``CustomFieldViewSet`` (namespace
  versioning), ``InventoryItemViewSet`` (nested plugin namespaces).
* ``StatusView`` and ``ReportViewSet``: a plain ``APIView`` and a plain
  ``ViewSet`` with a ``serializer_class`` but no ``get_serializer()``.
"""

from __future__ import annotations

from typing import Any

from django.db.models import ProtectedError, Q, QuerySet
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    extend_schema,
    extend_schema_view,
)
from rest_framework import status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.reverse import reverse
from rest_framework.versioning import (
    AcceptHeaderVersioning,
    NamespaceVersioning,
    URLPathVersioning,
)
from rest_framework.views import APIView

from tests.zoo.filters import DeviceFilterSet
from tests.zoo.models import (
    CustomField,
    Device,
    DeviceType,
    Interface,
    InventoryItem,
    Manufacturer,
    Tag,
)
from tests.zoo.permissions import ZooObjectPermission
from tests.zoo.serializers import (
    CustomFieldSerializer,
    DeviceSerializer,
    DeviceTypeSerializer,
    InterfaceSerializer,
    InventoryItemSerializer,
    ManufacturerSerializer,
    ManufacturerV2Serializer,
    RenameSerializer,
    ReportResultSerializer,
    ReportRunSerializer,
    StatusSerializer,
    TagSerializer,
)


class ZooRootView(APIView):
    """Links to the zoo API's sections."""

    @extend_schema(exclude=True)
    def get(self, request: Request) -> Response:
        return Response({"devices": reverse("zoo-api:device-list", request=request)})


class ProtectedDeleteMixin:
    """Answer a delete blocked by ``PROTECT`` with the host's own 409."""

    def destroy(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        instance = self.get_object()  # type: ignore[attr-defined]
        try:
            instance.delete()
        except ProtectedError as exc:
            dependents = sorted(str(obj) for obj in exc.protected_objects)
            return Response(
                {
                    "detail": f"Unable to delete {instance._meta.verbose_name}: "
                    f"{len(dependents)} dependent objects were found: "
                    + ", ".join(dependents)
                },
                status=status.HTTP_409_CONFLICT,
            )
        return Response(status=status.HTTP_204_NO_CONTENT)


class ManufacturerVersioning(AcceptHeaderVersioning):
    allowed_versions = ("1.0", "2.0")
    default_version = "1.0"


class ManufacturerViewSet(ProtectedDeleteMixin, viewsets.ModelViewSet[Manufacturer]):
    """Manufacturers; the API version comes from the Accept header."""

    queryset = Manufacturer.objects.order_by("pk")
    serializer_class = ManufacturerSerializer
    versioning_class = ManufacturerVersioning
    filterset_fields = ("slug",)

    def get_serializer_class(self) -> type[ManufacturerSerializer]:
        if self.request.version == "2.0":
            return ManufacturerV2Serializer
        return ManufacturerSerializer


class DeviceTypeViewSet(ProtectedDeleteMixin, viewsets.ModelViewSet[DeviceType]):
    """Device types, with their manufacturer as a brief nested object."""

    queryset = DeviceType.objects.select_related("manufacturer").order_by("pk")
    serializer_class = DeviceTypeSerializer
    filterset_fields = ("manufacturer", "slug")


@extend_schema_view(
    list=extend_schema(
        parameters=[
            OpenApiParameter(
                "q", str, description="Search names and custom field values."
            )
        ]
    )
)
class DeviceViewSet(viewsets.ModelViewSet[Device]):
    """Devices, guarded by the project's own permission class."""

    queryset = Device.objects.select_related("device_type").prefetch_related("tags")
    serializer_class = DeviceSerializer
    permission_classes = (ZooObjectPermission,)
    filterset_class = DeviceFilterSet

    def get_queryset(self) -> QuerySet[Device]:
        queryset = super().get_queryset().order_by("pk")
        q = self.request.query_params.get("q")
        if q:
            queryset = queryset.filter(
                Q(name__icontains=q) | Q(custom_fields__icontains=q)
            )
        return queryset

    @extend_schema(request=RenameSerializer, responses={200: DeviceSerializer})
    @action(detail=True, methods=["post"])
    def rename(self, request: Request, pk: Any = None) -> Response:
        """Give the device a new name."""
        device = self.get_object()
        body = RenameSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        device.name = body.validated_data["name"]
        device.save(update_fields=["name"])
        return Response(self.get_serializer(device).data)


_STRING_ID = OpenApiParameter(
    "id", OpenApiTypes.STR, OpenApiParameter.PATH, description="The interface id."
)


@extend_schema_view(
    retrieve=extend_schema(parameters=[_STRING_ID]),
    update=extend_schema(parameters=[_STRING_ID]),
    partial_update=extend_schema(parameters=[_STRING_ID]),
    destroy=extend_schema(parameters=[_STRING_ID]),
)
class InterfaceViewSet(viewsets.ModelViewSet[Interface]):
    """Interfaces, whose device is a hyperlink; ids are declared as strings."""

    queryset = Interface.objects.order_by("pk")
    serializer_class = InterfaceSerializer
    lookup_value_regex = "[0-9]+"
    filterset_fields = ("device", "enabled")


class TagVersioning(URLPathVersioning):
    allowed_versions = ("v1", "v2")
    default_version = "v1"


class TagViewSet(viewsets.ModelViewSet[Tag]):
    """Tags, versioned by a URL path segment."""

    queryset = Tag.objects.order_by("pk")
    serializer_class = TagSerializer
    versioning_class = TagVersioning
    filterset_fields = ("slug",)


class CustomFieldViewSet(viewsets.ModelViewSet[CustomField]):
    """Custom field definitions, versioned by URL namespace."""

    queryset = CustomField.objects.order_by("pk")
    serializer_class = CustomFieldSerializer
    versioning_class = NamespaceVersioning


class InventoryItemViewSet(viewsets.ModelViewSet[InventoryItem]):
    """A plugin's inventory items, mounted under nested namespaces."""

    queryset = InventoryItem.objects.order_by("pk")
    serializer_class = InventoryItemSerializer


class StatusView(APIView):
    """Counts of the zoo's rows (a plain APIView with a serializer class)."""

    serializer_class = StatusSerializer

    def get(self, request: Request) -> Response:
        data = {
            "devices": Device.objects.count(),
            "manufacturers": Manufacturer.objects.count(),
        }
        return Response(StatusSerializer(data).data)


class ReportViewSet(viewsets.ViewSet):
    """Reports on devices (a plain ViewSet with a serializer class)."""

    serializer_class = ReportResultSerializer

    def list(self, request: Request) -> Response:
        """How many devices there are of each status."""
        rows = [
            {"status": value, "count": Device.objects.filter(status=value).count()}
            for value, _ in Device.Status.choices
        ]
        return Response(ReportResultSerializer(rows, many=True).data)

    @extend_schema(request=ReportRunSerializer, responses=ReportResultSerializer)
    def create(self, request: Request) -> Response:
        """Count the devices of one status."""
        body = ReportRunSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        value = body.validated_data["status"]
        result = {"status": value, "count": Device.objects.filter(status=value).count()}
        return Response(ReportResultSerializer(result).data, status=201)
