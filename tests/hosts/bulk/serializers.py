"""Serializers of the bulk-routes host."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from tests.hosts.bulk.models import Rack, Site


class BulkOperationSerializer(serializers.Serializer[Any]):
    """What every item of a bulk body must hold: the row's id."""

    id = serializers.IntegerField()


class SiteSerializer(serializers.ModelSerializer[Site]):
    class Meta:
        model = Site
        fields = ("id", "name", "slug", "status", "description")


class RackSerializer(serializers.ModelSerializer[Rack]):
    class Meta:
        model = Rack
        fields = ("id", "site", "name", "status")
