"""Value objects the schema builder produces and the registry consumes."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

from frisian_mcp.schema.relations import Relation

__all__ = ["BodySchema", "ToolSchema"]


@dataclass(frozen=True)
class BodySchema:
    """The request body of one action, flattened to top-level properties.

    ``argument`` names the single argument that carries the whole body when
    it cannot be flattened (a list, a free-form object); otherwise ``None``.
    """

    properties: Mapping[str, Any] = field(default_factory=dict)
    required: tuple[str, ...] = ()
    relations: Mapping[str, Relation] = field(default_factory=dict)
    argument: str | None = None
    defs: Mapping[str, Any] = field(default_factory=dict)

    def as_partial(self) -> BodySchema:
        """The same body for PATCH: nothing required, at any depth."""
        if self.argument is not None:
            return self
        # Related fields keep their lookup-object rules: partial means
        # "fields may be left out", not "a reference may be incomplete".
        return replace(
            self,
            properties={
                k: v if k in self.relations else _drop_required(v)
                for k, v in self.properties.items()
            },
            required=(),
            defs={k: _drop_required(v) for k, v in self.defs.items()},
        )


@dataclass(frozen=True)
class ToolSchema:
    """Everything the registry needs to know about one tool's arguments.

    ``path_arguments`` and ``query_arguments`` map argument names to URL
    variables and query parameters; ``body_fields`` are the flattened body
    properties; ``filter_parameters`` are a list tool's filter keys (declared
    under the ``filters`` argument); ``comma_separated`` names query
    parameters sent as one comma-joined value instead of repeated keys.
    """

    input_schema: dict[str, Any]
    description: str
    summary: str
    path_arguments: Mapping[str, str]
    query_arguments: Mapping[str, str]
    body_fields: tuple[str, ...]
    body_argument: str | None
    relations: Mapping[str, Relation]
    filter_parameters: Mapping[str, Any]
    protocol_arguments: tuple[str, ...]
    comma_separated: frozenset[str] = frozenset()
    #: Fields of the records the tool returns (for ``filter_keys``).
    record_fields: tuple[str, ...] = ()
    #: The tool's outputSchema, or ``None`` when its results have no fixed shape.
    output_schema: dict[str, Any] | None = None

    @cached_property
    def declared(self) -> frozenset[str]:
        """Every top-level argument name the inputSchema declares."""
        return frozenset(self.input_schema.get("properties", {}))


def _drop_required(schema: Any) -> Any:
    """Drop the ``required`` keyword from a schema and its subschemas."""
    if not isinstance(schema, dict):
        return schema
    result: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "required" and isinstance(value, list):
            continue
        if key in ("properties", "patternProperties", "$defs") and isinstance(
            value, dict
        ):
            result[key] = {name: _drop_required(v) for name, v in value.items()}
        elif key in ("items", "additionalProperties", "not", "contains"):
            result[key] = _drop_required(value)
        elif key in ("anyOf", "oneOf", "allOf", "prefixItems") and isinstance(
            value, list
        ):
            result[key] = [_drop_required(v) for v in value]
        else:
            result[key] = value
    return result
