"""Schema: per serializer, DRF fields to JSON Schema 2020-12 tool schemas.

Files:

* ``builder.py``   drives drf-spectacular for one endpoint (``SchemaBuilder``):
  path and query parameters, the request body, flattening and naming.
* ``openapi.py``   converts spectacular's OpenAPI 3.0 output to JSON Schema
  2020-12 and makes values JSON-safe.
* ``relations.py`` related fields: managed vs. native, lookup keys, and the
  "id or lookup object" schema.
* ``types.py``     the ``ToolSchema`` and ``BodySchema`` value objects.
"""

from __future__ import annotations

from frisian_mcp.schema.builder import SchemaBuilder
from frisian_mcp.schema.relations import Relation
from frisian_mcp.schema.types import BodySchema, ToolSchema

__all__ = ["BodySchema", "Relation", "SchemaBuilder", "ToolSchema"]
