"""Views whose writes fail in the database the way real hosts' do."""

from __future__ import annotations

import sqlite3
from typing import Any

from django.db import DataError, OperationalError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.serializers import BaseSerializer

from tests.testapp.models import Publisher
from tests.testapp.views import PublisherViewSet


class RacyPublisherViewSet(PublisherViewSet):
    """A concurrent insert of the same name wins the race (IntegrityError)."""

    def perform_create(self, serializer: BaseSerializer[Publisher]) -> None:
        Publisher.objects.create(name=serializer.validated_data["name"])
        serializer.save()


class BusyPublisherViewSet(PublisherViewSet):
    """Every write meets another writer's lock (SQLITE_BUSY, as Django wraps it)."""

    def perform_create(self, serializer: BaseSerializer[Publisher]) -> None:
        cause = sqlite3.OperationalError("database is locked")
        cause.sqlite_errorcode = 5
        raise OperationalError("database is locked") from cause


class OversizedPublisherViewSet(PublisherViewSet):
    """The database refuses a value as too long for its column (DataError)."""

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        raise DataError("value too long for type character varying(2)")


class BrokenPublisherViewSet(PublisherViewSet):
    """A bug of the host's own: its handler must still see and report it."""

    def perform_create(self, serializer: BaseSerializer[Publisher]) -> None:
        raise RuntimeError("the host's own bug")
