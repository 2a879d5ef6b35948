"""The zoo's drf-spectacular extension: "writable nested, allow pk".

Large projects register one serializer extension for their base serializer
class. This one maps every zoo serializer as spectacular would, except that
a nested brief serializer's request shape becomes ``oneOf`` [integer id,
brief object]: the host accepts both, and spectacular alone shows neither.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiSerializerExtension


class ZooSerializerExtension(OpenApiSerializerExtension):
    """Applies to every subclass of ``ZooSerializerMixin``."""

    target_class = "tests.zoo.serializers.ZooSerializerMixin"
    match_subclasses = True

    def map_serializer(self, auto_schema: Any, direction: str) -> Any:
        from tests.zoo.serializers import WritableNestedSerializer

        schema = auto_schema._map_basic_serializer(self.target, direction)
        if direction == "request" and isinstance(self.target, WritableNestedSerializer):
            return {"oneOf": [{"type": "integer"}, schema]}
        return schema
