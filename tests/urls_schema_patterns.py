"""Real-world view patterns whose schemas once failed to build (issue 11)."""

from __future__ import annotations

from typing import Any

from django.urls import include, path
from drf_spectacular.utils import extend_schema
from rest_framework import permissions, serializers, viewsets
from rest_framework.decorators import action
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.routers import SimpleRouter
from rest_framework.versioning import AcceptHeaderVersioning
from rest_framework.views import APIView

from tests.testapp.models import Publisher
from tests.testapp.serializers import PublisherSerializer


class MediaTypeSerializer(PublisherSerializer):
    """Reads the negotiated media type, as version-aware serializers do."""

    def get_fields(self) -> Any:
        fields = super().get_fields()
        if "version=2" in str(self.context["request"].accepted_media_type):
            fields["code"].read_only = True
        return fields


class AcceptVersioned(AcceptHeaderVersioning):
    allowed_versions = ("1", "2")
    default_version = "1"


class UnversionedDefault(AcceptHeaderVersioning):
    """Accept-header versioning with no default version (DRF's default)."""


class AcceptVersionedPublishers(viewsets.ModelViewSet[Publisher]):
    """Publishers versioned by the Accept header; the serializer reads it."""

    queryset = Publisher.objects.all()
    versioning_class: type[AcceptHeaderVersioning] = AcceptVersioned

    def get_serializer_class(self) -> Any:
        assert self.request.versioning_scheme is not None
        return MediaTypeSerializer if self.request.version else PublisherSerializer


class NoDefaultVersionPublishers(AcceptVersionedPublishers):
    """The same with no default version: ``request.version`` is ``None``."""

    versioning_class = UnversionedDefault

    def get_serializer_class(self) -> Any:
        assert self.request.version is None
        return MediaTypeSerializer


class StartingPublishers(viewsets.ReadOnlyModelViewSet[Publisher]):
    """Reads a query parameter itself, in get_queryset, and declares it."""

    serializer_class = PublisherSerializer
    mcp_query_parameters = {"starts": "string"}

    def get_queryset(self) -> Any:
        rows = Publisher.objects.order_by("name")
        starts = self.request.query_params.get("starts")
        return rows.filter(name__startswith=starts) if starts else rows


class RenameSerializer(serializers.Serializer):  # type: ignore[type-arg]
    name = serializers.CharField(max_length=50)


class DeclaredRequestPublishers(viewsets.ModelViewSet[Publisher]):
    """An action whose body is declared as a serializer class."""

    queryset = Publisher.objects.all()
    serializer_class = PublisherSerializer

    @extend_schema(request=RenameSerializer, responses=PublisherSerializer)
    @action(detail=True, methods=["post"])
    def rename(self, request: Request, pk: Any = None) -> Response:
        """Rename a publisher."""
        publisher = self.get_object()
        body = RenameSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        publisher.name = body.validated_data["name"]
        publisher.save()
        return Response(PublisherSerializer(publisher).data)


class PlainPublishers(viewsets.ViewSet):
    """A plain ViewSet: ``serializer_class`` but no ``get_serializer()``."""

    serializer_class = PublisherSerializer

    def list(self, request: Request) -> Response:
        rows = Publisher.objects.order_by("pk")
        return Response(PublisherSerializer(rows, many=True).data)

    def create(self, request: Request) -> Response:
        body = PublisherSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        body.save()
        return Response(body.data, status=201)

    @extend_schema(request=RenameSerializer)
    @action(detail=False, methods=["post"])
    def preview(self, request: Request) -> Response:
        """Echo the name a rename would give."""
        body = RenameSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        return Response({"name": body.validated_data["name"]})


class CSVRenderer(BaseRenderer):
    media_type, format = "text/csv", "csv"

    def render(self, data: Any, *args: Any, **kwargs: Any) -> bytes:
        return str(data).encode()


class TwoFormatPublishers(viewsets.ReadOnlyModelViewSet[Publisher]):
    """Two renderers: spectacular offers a ``format`` query parameter."""

    queryset = Publisher.objects.all()
    serializer_class = PublisherSerializer
    renderer_classes = (JSONRenderer, CSVRenderer)


class PingView(APIView):
    """An APIView with a ``serializer_class`` attribute only."""

    serializer_class = RenameSerializer

    def post(self, request: Request) -> Response:
        body = RenameSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        return Response({"pong": body.validated_data["name"]})


class BrokenSerializer(serializers.Serializer):  # type: ignore[type-arg]
    def get_fields(self) -> Any:
        raise AttributeError("needs a real request")


class BrokenPublishers(viewsets.ModelViewSet[Publisher]):
    """A host bug: its serializer fails for any mock request."""

    queryset = Publisher.objects.all()
    serializer_class = BrokenSerializer


class PickyPublishers(viewsets.ModelViewSet[Publisher]):
    """A host bug spectacular hides: the serializer class needs a header."""

    queryset = Publisher.objects.all()

    def get_serializer_class(self) -> Any:
        return {"v1": PublisherSerializer}[self.request.headers["X-Tenant"]]


class StaffOnly(permissions.BasePermission):
    def has_permission(self, request: Request, view: APIView) -> bool:
        return bool(request.user and request.user.is_staff)


class HiddenBrokenPublishers(BrokenPublishers):
    """The same bug behind a permission most callers lack."""

    permission_classes = (StaffOnly,)


router = SimpleRouter()
router.register("starting", StartingPublishers, basename="starting")
router.register("accept", AcceptVersionedPublishers, basename="accept")
router.register("unversioned", NoDefaultVersionPublishers, basename="unversioned")
router.register("declared", DeclaredRequestPublishers, basename="declared")
router.register("plain", PlainPublishers, basename="plain")
router.register("broken", BrokenPublishers, basename="broken")
router.register("picky", PickyPublishers, basename="picky")
router.register("formats", TwoFormatPublishers, basename="formats")
router.register("hidden", HiddenBrokenPublishers, basename="hidden")

urlpatterns = [
    path("api/", include(router.urls)),
    path("api/ping/", PingView.as_view()),
    path("mcp", include("frisian_mcp.urls")),
]
