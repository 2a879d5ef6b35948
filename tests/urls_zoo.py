"""The zoo of real-world DRF patterns under /api/zoo/, and /mcp."""

from __future__ import annotations

from django.urls import include, path

urlpatterns = [
    path("api/zoo/", include(("tests.zoo.urls", "zoo-api"))),
    path("mcp", include("frisian_mcp.urls")),
]
