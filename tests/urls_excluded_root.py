"""The test URLs plus a hand-written API root view left out of the schema."""

from __future__ import annotations

from django.urls import path
from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from tests.urls import urlpatterns as base_patterns


class APIRootView(APIView):
    """Links to the API's sections, as large projects write their own root."""

    @extend_schema(exclude=True)
    def get(self, request: Request) -> Response:
        return Response({"contacts": "/api/contacts/"})


urlpatterns = [path("api/", APIRootView.as_view(), name="api-root"), *base_patterns]
