"""Related serializer fields as arguments: an id, or a lookup object.

A related argument names one row by its id or by a lookup object of a
unique field or unique-together set (DESIGN.md §4). DRF's own related fields
are *managed*: their forms are checked and lookups resolved by
``frisian_mcp.references``. *Native* fields read the value themselves and
are never stricter than the host: a form their schema does not describe
goes to the field (ADR 0034).
"""

from __future__ import annotations

import contextlib
import logging
from dataclasses import dataclass, replace
from typing import Any, Literal

from django.core.exceptions import FieldDoesNotExist
from django.db import models
from drf_spectacular.drainage import has_override
from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from rest_framework import relations, serializers

from frisian_mcp.collisions import unique_sets
from frisian_mcp.examples import schema_types
from frisian_mcp.exceptions import few
from frisian_mcp.types import dotted
from frisian_mcp.validation import in_words

__all__ = [
    "Relation",
    "describe_relation",
    "has_explicit_schema",
    "lookup_sets",
    "other_types",
    "relation_argument",
    "relation_schema",
]

logger = logging.getLogger("frisian_mcp")
_JSON_TYPES = ("array", "boolean", "integer", "number", "object", "string")
_SCALARS = ("string", "integer", "number", "boolean")

# Model field -> schema of its value in a lookup object; None: not usable.
_LOOKUP_VALUES: tuple[tuple[type[Any] | tuple[type[Any], ...], Any], ...] = (
    (models.BooleanField, {"type": "boolean"}),
    ((models.AutoField, models.BigAutoField, models.IntegerField), {"type": "integer"}),
    ((models.DecimalField, models.FloatField), {"type": "number"}),
    (models.UUIDField, {"type": "string", "format": "uuid"}),
    ((models.BinaryField, models.FileField, models.JSONField), None),
    (models.Field, {"type": "string"}),
)

RelationKind = Literal["pk", "slug", "url", "native"]
_SLUG_READS = relations.SlugRelatedField.to_internal_value


@dataclass(frozen=True)
class Relation:
    """What frisian_mcp knows about one related serializer field.

    ``kind`` is the form the field accepts (``pk``, ``slug``, ``url``) or
    ``native`` when the field resolves lookup objects itself.
    ``lookup_sets`` lists the unique keys of the related model a lookup
    object may use: single unique fields and unique-together sets.
    ``owner`` is the dotted path of the serializer class declaring the field
    (a path, so schemas stay picklable for the shared cache). ``forms`` says
    in words what the field reads, where that is not DRF's form.
    """

    name: str
    kind: RelationKind
    many: bool
    nullable: bool
    model: type[models.Model] | None
    slug_field: str | None = None
    lookup_sets: tuple[tuple[str, ...], ...] = ()
    owner: str | None = None
    forms: str | None = None

    @property
    def lookup_fields(self) -> tuple[str, ...]:
        """Every field that may appear in a lookup object, in key order."""
        return tuple(dict.fromkeys(name for key in self.lookup_sets for name in key))

    @property
    def numeric_ids(self) -> bool:
        """Whether the related model's primary key is an integer."""
        pk: Any = self.model._meta.pk if self.model is not None else None
        if isinstance(pk, models.ForeignKey | models.OneToOneField):
            pk = pk.target_field
        return isinstance(pk, models.AutoField | models.IntegerField)

    @property
    def plain_form(self) -> str:
        """The field's own form in words: "its id", "its URL or id"..."""
        if self.forms:
            return self.forms
        if self.kind == "slug":
            return f"its {self.slug_field}"
        return "its URL or id" if self.kind == "url" else "its id"

    @property
    def managed(self) -> bool:
        """Whether frisian_mcp resolves lookup objects for this field."""
        return self.kind != "native"

    def describe_lookups(self) -> str:
        """Human-readable list of the accepted lookup keys."""
        return few(
            key[0] if len(key) == 1 else "(" + " + ".join(key) + ")"
            for key in self.lookup_sets
        )


def relation_argument(
    relation: Relation, field: Any, schema: dict[str, Any]
) -> tuple[dict[str, Any], Relation]:
    """A related field's argument schema, from spectacular's, and its relation.

    A native field's own schema (a host's declaration) says what it reads;
    its objects give way to the lookup object.
    """
    inner = getattr(field, "child_relation", getattr(field, "child", field))
    declared = None
    if not relation.managed and has_explicit_schema(inner):
        scalars, objects = _declared_forms(schema)
        if scalars or objects:
            words = in_words([form["type"] for form in scalars]) or "an object"
            sets = relation.lookup_sets if objects else ()
            forms = f"{words} (the host's schema)"
            relation = replace(relation, forms=forms, lookup_sets=sets)
            declared = scalars
    return relation_schema(relation, schema, declared), relation


def describe_relation(
    name: str, field: serializers.Field[Any, Any, Any, Any]
) -> Relation | None:
    """Classify a writable serializer field; ``None`` if it is not a relation."""
    inner: Any = field
    if isinstance(field, relations.ManyRelatedField):
        inner = field.child_relation
    elif isinstance(field, serializers.ListSerializer):
        inner = field.child
    kind: RelationKind = "native"
    forms = None
    if isinstance(inner, relations.RelatedField):
        model = _queryset_model(inner)
        # A subclass of DRF's own fields keeps their form even when it
        # overrides to_internal_value; only other fields resolve objects.
        if isinstance(inner, relations.HyperlinkedRelatedField):
            kind = "url"
        elif isinstance(inner, relations.SlugRelatedField):
            kind = "slug"
            if type(inner).to_internal_value is not _SLUG_READS:
                forms = "the text retrieve shows for it"  # not its bare slug
        elif isinstance(inner, relations.PrimaryKeyRelatedField):
            kind = "pk"
    elif isinstance(inner, serializers.Serializer) and (
        type(inner).to_internal_value is not serializers.Serializer.to_internal_value
    ):
        model = getattr(getattr(inner, "Meta", None), "model", None)
        if not (isinstance(model, type) and issubclass(model, models.Model)):
            return None
    else:
        return None
    return Relation(
        name=name,
        kind=kind,
        many=inner is not field,
        nullable=bool(getattr(field, "allow_null", False)),
        model=model,
        slug_field=getattr(inner, "slug_field", None) if kind == "slug" else None,
        lookup_sets=lookup_sets(model) if model is not None else (),
        owner=dotted(type(field.parent)),
        forms=forms,
    )


def lookup_sets(model: type[models.Model]) -> tuple[tuple[str, ...], ...]:
    """Unique keys of ``model`` usable in a lookup object: the primary key,
    then its unique sets (:func:`~frisian_mcp.collisions.unique_sets`)."""
    pk = [(model._meta.pk.name,)] if model._meta.pk else []
    return tuple(dict.fromkeys(pk + unique_sets(model, _lookup_value_schema)))


def relation_schema(
    relation: Relation,
    base: dict[str, Any],
    declared: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """JSON Schema of a related field's argument.

    ``base`` is what drf-spectacular produced for the field; only its
    title and description are kept. The lookup object comes from the related
    model, never from the field's own (or an extension's) nested shape;
    ``declared`` are the scalar forms a native field's own schema declares,
    which replace the id forms. A native field also takes any other JSON
    type: the host's field reads it.
    """
    options = _id_forms(relation) if declared is None else []
    if not relation.managed and declared is None:
        options.append({"type": "string"})  # a natural key, such as a slug
    for form in declared or ():
        options += [form] if form not in options else []
    lookup = _lookup_object(relation)
    if not relation.managed:
        others = other_types([*options, *([lookup] if lookup else [])])
        null = relation.nullable and not relation.many
        options = _merged(options, [*others, *(["null"] if null else [])])
    if lookup is not None:
        options.append(lookup)
    one: dict[str, Any] = options[0] if len(options) == 1 else {"anyOf": options}
    annotations = {"title": base["title"]} if "title" in base else {}
    texts = (base.get("description"), _reference_hint(relation))
    annotations["description"] = " ".join(str(text) for text in texts if text)
    if relation.many:
        schema: dict[str, Any] = {"type": "array", "items": one}
        if isinstance(base.get("minItems"), int):
            schema["minItems"] = base["minItems"]
        if relation.nullable:
            schema["type"] = ["array", "null"]
        return {**schema, **annotations}
    if relation.nullable and relation.managed:  # else merged above
        choices = list(one["anyOf"]) if "anyOf" in one else [one]
        return {"anyOf": [*choices, {"type": "null"}], **annotations}
    return {**one, **annotations}


def _queryset_model(field: Any) -> type[models.Model] | None:
    """The related model: of ``queryset=``, the model field, or ``get_queryset()``.

    A many field's source is its ``ManyRelatedField``'s. ``get_queryset()``
    (which a class may supply instead of ``queryset=``) is asked last: it may
    need a request.
    """
    model = getattr(getattr(field, "queryset", None), "model", None)
    many = isinstance(field.parent, relations.ManyRelatedField)
    outer = field.parent if many else field
    parent_model = getattr(getattr(outer.parent, "Meta", None), "model", None)
    source = outer.source.split(".")[0]
    if model is None and parent_model is not None and source not in ("", "*"):
        with contextlib.suppress(FieldDoesNotExist):
            model = getattr(parent_model._meta.get_field(source), "related_model", None)
    if model is None:
        try:
            model = getattr(field.get_queryset(), "model", None)
        except Exception as exc:  # the host's get_queryset(), exactly
            where = f"{type(outer.parent).__name__}.{outer.field_name}"
            logger.warning(
                "frisian_mcp: get_queryset() of %s raised %s; ids taken as strings.",
                *(where, type(exc).__name__),
            )
    return model if isinstance(model, type) else None


def _declared_forms(schema: dict[str, Any]) -> tuple[list[dict[str, Any]], bool]:
    """The scalar forms (type and format) a field's schema declares, and
    whether it declares an object; nothing for a schema of any value."""
    array = "array" in schema_types(schema) and "items" in schema
    node = schema["items"] if array else schema
    found: list[dict[str, Any]] = []
    objects = False
    for option in node.get("oneOf") or node.get("anyOf") or [node]:
        types = schema_types(option)
        objects = objects or "object" in types or "$ref" in option
        forms: list[dict[str, Any]] = [{"type": t} for t in types if t in _SCALARS]
        if "format" in option and len(forms) == 1:
            forms[0]["format"] = option["format"]
        found += forms
    return found, objects


def other_types(options: list[dict[str, Any]]) -> list[str]:
    """The JSON types none of ``options`` takes (all of them: none)."""
    covered = {t for option in options for t in schema_types(option)}
    if any(not schema_types(option) for option in options):
        return []  # an option of any type
    if "number" in covered:
        covered.add("integer")
    return [t for t in _JSON_TYPES if t not in covered]


def _merged(options: list[dict[str, Any]], more: list[str]) -> list[dict[str, Any]]:
    """A native field's forms with the types its field also reads: the plain
    forms (a ``type`` alone) and ``more`` as one ``type`` list."""
    plain = [o for o in options if set(o) == {"type"}]
    types = {t for o in plain for t in schema_types(o)} | set(more)
    rest = [o for o in options if o not in plain and set(schema_types(o)) - types]
    return [*rest, {"type": sorted(types)}] if types else rest


def _id_forms(relation: Relation) -> list[dict[str, Any]]:
    if relation.kind == "slug":
        return [{"type": "string"}]
    model = relation.model
    forms: list[dict[str, Any]] = [{"type": "string"}]
    if relation.numeric_ids:
        forms = [{"type": "integer"}, {"type": "string", "pattern": "^-?[0-9]+$"}]
    elif model is not None and isinstance(model._meta.pk, models.UUIDField):
        forms = [{"type": "string", "format": "uuid"}]
    if relation.kind == "url":
        return [{"type": "string", "format": "uri"}, *forms]
    return forms


def _lookup_object(relation: Relation) -> dict[str, Any] | None:
    """A lookup object: any non-empty set of the related model's unique keys.

    Managed relations are resolved here, so unknown keys are refused and a
    multi-field key must be complete. A native field decides for itself:
    its object stays open, and its values (a lookup inside the lookup, text
    for a number) pass through.
    """
    if relation.model is None or not relation.lookup_sets:
        return None
    properties: dict[str, Any] = dict.fromkeys(relation.lookup_fields)
    for name in properties:
        model_field = relation.model._meta.get_field(name)
        schema = _lookup_value_schema(model_field) if relation.managed else None
        if schema and getattr(model_field, "null", False):
            schema = {**schema, "type": [schema["type"], "null"]}
        properties[name] = schema or {}
    lookup: dict[str, Any] = {"type": "object", "properties": properties}
    lookup["minProperties"] = 1
    if relation.managed:
        lookup["additionalProperties"] = False
        if any(len(key) > 1 for key in relation.lookup_sets):
            lookup["anyOf"] = [{"required": list(key)} for key in relation.lookup_sets]
    return lookup


def _lookup_value_schema(field: Any) -> dict[str, Any] | None:
    if isinstance(field, models.ForeignKey | models.OneToOneField):
        return _lookup_value_schema(field.target_field)
    for classes, schema in _LOOKUP_VALUES:
        if isinstance(field, classes):
            return dict(schema) if schema is not None else None
    return None


def _reference_hint(relation: Relation) -> str:
    model = relation.model
    noun = str(model._meta.verbose_name) if model is not None else "object"
    sentence = f"A {noun}: {relation.plain_form}"
    if lookups := relation.describe_lookups():
        sentence += f", or an object with one of these keys: {lookups}"
    sentence += "."
    if relation.many:
        sentence = "A list; each item " + sentence[0].lower() + sentence[1:]
    return sentence


def has_explicit_schema(field: Any) -> bool:
    """Whether the project gave the field its own schema."""
    return bool(
        has_override(field, "field") or OpenApiSerializerFieldExtension.get_match(field)
    )
