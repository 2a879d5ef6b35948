"""The host's drf-spectacular *field* extensions, registered on import.

A brief nested serializer used as a field is documented as "an id or the
brief object" on requests (the host's "allow pk" fix), a tenant field taking
a slug as "an id or a string", and the ASN range link as a URL. Both are ``OpenApiSerializerFieldExtension``\\ s, as the
network-inventory application registers them.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from drf_spectacular.plumbing import build_basic_type
from drf_spectacular.types import OpenApiTypes


class AllowPkExtension(OpenApiSerializerFieldExtension):
    target_class = "tests.hosts.ipam.serializers.WritableNestedSerializer"
    match_subclasses = True

    def map_serializer_field(self, auto_schema: Any, direction: str) -> Any:
        component = auto_schema.resolve_serializer(self.target, direction)
        if direction == "request":
            return {"oneOf": [build_basic_type(OpenApiTypes.INT), component.ref]}
        return component.ref


class TenantSlugExtension(OpenApiSerializerFieldExtension):
    target_class = "tests.hosts.ipam.serializers.TenantSlugField"

    def map_serializer_field(self, auto_schema: Any, direction: str) -> Any:
        slug = {"type": "string", "pattern": "^[a-z-]+$"}
        return {"oneOf": [{"type": "integer"}, slug]}


class RangeLinkExtension(OpenApiSerializerFieldExtension):
    target_class = "tests.hosts.ipam.serializers.RangeLinkField"

    def map_serializer_field(self, auto_schema: Any, direction: str) -> Any:
        return {"type": "string", "format": "uri"}
