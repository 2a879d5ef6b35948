"""The URLconf the middleware picks: the same API, plus the public home page."""

from __future__ import annotations

from django.http import HttpResponse
from django.urls import path

from tests.hosts.canonical.urls import urlpatterns as api

urlpatterns = [
    *api,
    path("home/", lambda request: HttpResponse("home"), name="public-home"),
]
