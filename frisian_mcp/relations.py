"""Relations: serializer fields that point at other rows, and their schemas.

A related argument is "an id, or a lookup object" naming one row by a unique
field or unique-together set (DESIGN.md §4). DRF's own related fields are
*managed* (lookups resolved by ``frisian_mcp.references``); fields that
resolve lookup objects themselves are *native* and pass through untouched.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from django.db import models
from rest_framework import relations, serializers

__all__ = [
    "Relation",
    "describe_relation",
    "lookup_sets",
    "relation_schema",
]

_MANAGED_CONVERTERS = frozenset(
    {
        relations.PrimaryKeyRelatedField.to_internal_value,
        relations.SlugRelatedField.to_internal_value,
        relations.HyperlinkedRelatedField.to_internal_value,
    }
)

RelationKind = Literal["pk", "slug", "url", "native"]


@dataclass(frozen=True)
class Relation:
    """What frisian_mcp knows about one related serializer field.

    ``kind`` is the form the field accepts (``pk``, ``slug``, ``url``) or
    ``native`` when the field resolves lookup objects itself.
    ``lookup_sets`` lists the unique keys of the related model a lookup
    object may use: single unique fields and unique-together sets.
    """

    name: str
    kind: RelationKind
    many: bool
    nullable: bool
    model: type[models.Model] | None
    slug_field: str | None = None
    lookup_sets: tuple[tuple[str, ...], ...] = ()

    @property
    def lookup_fields(self) -> tuple[str, ...]:
        """Every field that may appear in a lookup object, in key order."""
        seen: dict[str, None] = {}
        for key in self.lookup_sets:
            seen.update(dict.fromkeys(key))
        return tuple(seen)

    @property
    def managed(self) -> bool:
        """Whether frisian_mcp resolves lookup objects for this field."""
        return self.kind != "native"

    def describe_lookups(self) -> str:
        """Human-readable list of the accepted lookup keys."""
        return ", ".join(
            key[0] if len(key) == 1 else "(" + " + ".join(key) + ")"
            for key in self.lookup_sets
        )


def describe_relation(
    name: str, field: serializers.Field[Any, Any, Any, Any]
) -> Relation | None:
    """Classify a writable serializer field; ``None`` if it is not a relation."""
    many = False
    inner: Any = field
    if isinstance(field, relations.ManyRelatedField):
        many, inner = True, field.child_relation
    elif isinstance(field, serializers.ListSerializer):
        many, inner = True, field.child
    nullable = bool(getattr(field, "allow_null", False))

    if isinstance(inner, relations.RelatedField):
        model = _queryset_model(inner)
        native = type(inner).to_internal_value not in _MANAGED_CONVERTERS
        if native:
            kind: RelationKind = "native"
        elif isinstance(inner, relations.HyperlinkedRelatedField):
            kind = "url"
        elif isinstance(inner, relations.SlugRelatedField):
            kind = "slug"
        else:
            kind = "pk"
        return Relation(
            name=name,
            kind=kind,
            many=many,
            nullable=nullable,
            model=model,
            slug_field=getattr(inner, "slug_field", None) if kind == "slug" else None,
            lookup_sets=lookup_sets(model) if model is not None else (),
        )
    if isinstance(inner, serializers.Serializer) and (
        type(inner).to_internal_value is not serializers.Serializer.to_internal_value
    ):
        model = getattr(getattr(inner, "Meta", None), "model", None)
        if isinstance(model, type) and issubclass(model, models.Model):
            return Relation(
                name=name,
                kind="native",
                many=many,
                nullable=nullable,
                model=model,
                lookup_sets=lookup_sets(model),
            )
    return None


def lookup_sets(model: type[models.Model]) -> tuple[tuple[str, ...], ...]:
    """Unique keys of ``model`` usable in a lookup object.

    The primary key, every other unique concrete field, and every
    unique-together set and unconditional ``UniqueConstraint``.
    """
    opts = model._meta
    found: dict[tuple[str, ...], None] = {(opts.pk.name,): None} if opts.pk else {}
    for field in opts.concrete_fields:
        if field.unique and not field.primary_key and _lookup_value_schema(field):
            found[(field.name,)] = None
    for fields in opts.unique_together:
        found[tuple(fields)] = None
    for constraint in opts.total_unique_constraints:
        found[tuple(constraint.fields)] = None
    return tuple(found)


def relation_schema(relation: Relation, base: dict[str, Any]) -> dict[str, Any]:
    """JSON Schema of a related field's argument.

    ``base`` is what drf-spectacular produced for the field; its
    description is kept and, for native nested serializers, its properties
    become the lookup object's.
    """
    options = _id_forms(relation)
    lookup = _lookup_object(relation, base)
    if lookup is not None:
        options.append(lookup)
    one: dict[str, Any] = options[0] if len(options) == 1 else {"anyOf": options}
    annotations: dict[str, Any] = {
        k: base[k] for k in ("title", "description") if k in base
    }
    hint = _reference_hint(relation)
    description = annotations.get("description")
    annotations["description"] = f"{description} {hint}" if description else hint
    if relation.many:
        schema: dict[str, Any] = {"type": "array", "items": one}
        if isinstance(base.get("minItems"), int):
            schema["minItems"] = base["minItems"]
        if relation.nullable:
            schema["type"] = ["array", "null"]
        return {**schema, **annotations}
    if relation.nullable:
        choices = list(one["anyOf"]) if "anyOf" in one else [one]
        return {"anyOf": [*choices, {"type": "null"}], **annotations}
    return {**one, **annotations}


def _queryset_model(
    field: relations.RelatedField[Any, Any, Any],
) -> type[models.Model] | None:
    queryset = getattr(field, "queryset", None)
    model = getattr(queryset, "model", None)
    if model is not None:
        return model  # type: ignore[no-any-return]
    # get_queryset() may need the request; fall back to the model field.
    parent = getattr(field, "parent", None)
    if isinstance(parent, relations.ManyRelatedField):
        parent = parent.parent
    parent_model = getattr(getattr(parent, "Meta", None), "model", None)
    source = getattr(field, "source", None) or getattr(field, "field_name", None)
    if parent_model is None or not source:
        return None
    try:
        model_field = parent_model._meta.get_field(source.split(".")[0])
    except Exception:
        return None
    related = getattr(model_field, "related_model", None)
    return related if isinstance(related, type) else None


def _id_forms(relation: Relation) -> list[dict[str, Any]]:
    if relation.kind == "slug":
        return [{"type": "string"}]
    forms = _pk_forms(relation.model)
    if relation.kind == "url":
        return [{"type": "string", "format": "uri"}, *forms]
    return forms


def _pk_forms(model: type[models.Model] | None) -> list[dict[str, Any]]:
    pk = model._meta.pk if model is not None else None
    if pk is not None and isinstance(pk, models.ForeignKey | models.OneToOneField):
        pk = pk.target_field
    if isinstance(pk, models.AutoField | models.BigAutoField | models.IntegerField):
        return [{"type": "integer"}, {"type": "string", "pattern": "^-?[0-9]+$"}]
    if isinstance(pk, models.UUIDField):
        return [{"type": "string", "format": "uuid"}]
    return [{"type": "string"}]


def _lookup_object(relation: Relation, base: dict[str, Any]) -> dict[str, Any] | None:
    if relation.kind == "native":
        nested = base.get("items", base) if relation.many else base
        properties = nested.get("properties") if isinstance(nested, dict) else None
        if not properties:
            return None
        return {"type": "object", "properties": properties, "minProperties": 1}
    if relation.model is None or not relation.lookup_sets:
        return None
    opts = relation.model._meta
    properties = {}
    for name in relation.lookup_fields:
        model_field = opts.get_field(name)
        schema = _lookup_value_schema(model_field)
        if schema and getattr(model_field, "null", False):
            schema = {**schema, "type": [schema["type"], "null"]}
        properties[name] = schema or {}
    lookup: dict[str, Any] = {
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
        "minProperties": 1,
    }
    if len(relation.lookup_sets) == 1:
        lookup["required"] = list(relation.lookup_sets[0])
    else:
        lookup["anyOf"] = [{"required": list(key)} for key in relation.lookup_sets]
    return lookup


def _lookup_value_schema(field: Any) -> dict[str, Any] | None:
    if isinstance(field, models.ForeignKey | models.OneToOneField):
        return _lookup_value_schema(field.target_field)
    if isinstance(field, models.BooleanField):
        return {"type": "boolean"}
    if isinstance(field, models.AutoField | models.BigAutoField | models.IntegerField):
        return {"type": "integer"}
    if isinstance(field, models.DecimalField | models.FloatField):
        return {"type": "number"}
    if isinstance(field, models.UUIDField):
        return {"type": "string", "format": "uuid"}
    if isinstance(field, models.BinaryField | models.FileField | models.JSONField):
        return None
    if isinstance(field, models.Field):
        return {"type": "string"}
    return None


def _reference_hint(relation: Relation) -> str:
    model_name = (
        str(relation.model._meta.verbose_name)
        if relation.model is not None
        else "object"
    )
    if relation.kind == "slug":
        form = f"its {relation.slug_field}"
    elif relation.kind == "url":
        form = "its URL or id"
    else:
        form = "its id"
    sentence = f"Refers to a {model_name} by {form}"
    lookups = relation.describe_lookups() if relation.kind != "native" else ""
    if lookups:
        sentence += f", or by an object with one of these keys: {lookups}"
    elif relation.kind == "native":
        sentence += ", or by an object of its fields"
    sentence += "."
    if relation.many:
        sentence = "A list; each item " + sentence[0].lower() + sentence[1:]
    return sentence
