"""Serializer fields as arguments: relations first, then what else differs.

A related argument is "an id, or a lookup object" naming one row by a unique
field or unique-together set (DESIGN.md §4). DRF's own related fields are
*managed* (lookups resolved by ``frisian_mcp.references``); fields that
resolve lookup objects themselves are *native* and pass through untouched.
"""

from __future__ import annotations

import contextlib
import logging
from dataclasses import dataclass
from typing import Any, Literal

from django.core.exceptions import FieldDoesNotExist
from django.db import models
from drf_spectacular.drainage import has_override
from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from rest_framework import relations, serializers

from frisian_mcp.collisions import unique_sets
from frisian_mcp.conf import mcp_settings
from frisian_mcp.exceptions import SchemaError, few
from frisian_mcp.jsonschema import plain, structural
from frisian_mcp.types import dotted

__all__ = ["Relation", "argument_schema", "record_schema"]

logger = logging.getLogger("frisian_mcp")
_NO_DEFAULT: Any = object()
_OBJECTS = ("object", ["object", "null"])
#: The related fields drf-spectacular maps (relations it knows the values of).
_MAPPED_RELATIONS = (
    relations.PrimaryKeyRelatedField,
    relations.SlugRelatedField,
    relations.StringRelatedField,
    relations.HyperlinkedRelatedField,
)

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


@dataclass(frozen=True)
class Relation:
    """What frisian_mcp knows about one related serializer field.

    ``kind`` is the form the field accepts (``pk``, ``slug``, ``url``) or
    ``native`` when the field resolves lookup objects itself.
    ``lookup_sets`` lists the unique keys of the related model a lookup
    object may use: single unique fields and unique-together sets.
    ``owner`` is the dotted path of the serializer class declaring the field
    (a path, so schemas stay picklable for the shared cache).
    """

    name: str
    kind: RelationKind
    many: bool
    nullable: bool
    model: type[models.Model] | None
    slug_field: str | None = None
    lookup_sets: tuple[tuple[str, ...], ...] = ()
    owner: str | None = None

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


def argument_schema(
    serializer: Any, name: str, field: Any, schema: dict[str, Any]
) -> tuple[dict[str, Any], Relation | None]:
    """A writable field's argument schema from spectacular's, and its relation.

    Unmapped fields follow ``UNMAPPED_FIELD_POLICY``, relations take an id or
    a lookup object, nested serializers refuse unknown keys (DRF would drop
    them silently) and a constant model default is shown.
    """
    if _is_unmapped(field):
        schema = _unmapped(serializer, name, schema)
    relation = describe_relation(name, field)
    if relation is not None:
        # A native field's own schema (a host's extension) may add scalar
        # forms, such as a name; its objects give way to the lookup object.
        inner = getattr(field, "child_relation", getattr(field, "child", field))
        own = not relation.managed and _has_explicit_schema(inner)
        schema = relation_schema(relation, schema, _scalars(schema) if own else [])
    else:
        _seal_nested(schema, field)
    default = _model_default(serializer, field)
    if default is not _NO_DEFAULT and "default" not in schema:
        schema["default"] = default
    return schema, relation


def record_schema(field: Any, schema: dict[str, Any]) -> Any:
    """A readable field's schema in a record, structure only; none where
    drf-spectacular guessed (a field it cannot map is a "string" to it)."""
    if field is not None and (
        _is_unmapped(field) or _untyped_method(field) or _own_relation(field)
    ):
        schema = {k: v for k, v in schema.items() if k == "description"}
    return structural(schema)


def _own_relation(field: Any) -> bool:
    """A related field of the project's own class, declaring no schema."""
    inner = getattr(field, "child_relation", field)
    known = isinstance(inner, _MAPPED_RELATIONS) or _has_explicit_schema(inner)
    return isinstance(inner, relations.RelatedField) and not known


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
    if isinstance(inner, relations.RelatedField):
        model = _queryset_model(inner)
        # A subclass of DRF's own fields keeps their form even when it
        # overrides to_internal_value; only other fields resolve objects.
        if isinstance(inner, relations.HyperlinkedRelatedField):
            kind = "url"
        elif isinstance(inner, relations.SlugRelatedField):
            kind = "slug"
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
    )


def lookup_sets(model: type[models.Model]) -> tuple[tuple[str, ...], ...]:
    """Unique keys of ``model`` usable in a lookup object: the primary key,
    then its unique sets (:func:`~frisian_mcp.collisions.unique_sets`)."""
    pk = [(model._meta.pk.name,)] if model._meta.pk else []
    return tuple(dict.fromkeys(pk + unique_sets(model, _lookup_value_schema)))


def relation_schema(
    relation: Relation, base: dict[str, Any], scalars: list[dict[str, Any]]
) -> dict[str, Any]:
    """JSON Schema of a related field's argument.

    ``base`` is what drf-spectacular produced for the field; only its
    title and description are kept. The lookup object comes from the related
    model, never from the field's own (or an extension's) nested shape;
    ``scalars`` are further forms the field's own schema declares.
    """
    options = _id_forms(relation)
    options += [form for form in scalars if form not in options]
    lookup = _lookup_object(relation)
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
    if relation.nullable:
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


def _scalars(schema: dict[str, Any]) -> list[dict[str, Any]]:
    """The scalar forms (type and format) a field's schema declares."""
    node = schema.get("items", schema) if schema.get("type") == "array" else schema
    found = []
    for option in node.get("oneOf") or node.get("anyOf") or [node]:
        if option.get("type") in ("string", "integer", "number"):
            found.append({k: option[k] for k in ("type", "format") if k in option})
    return found


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
    its object stays open and any subset passes through.
    """
    if relation.model is None or not relation.lookup_sets:
        return None
    properties = {}
    for name in relation.lookup_fields:
        model_field = relation.model._meta.get_field(name)
        schema = _lookup_value_schema(model_field)
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


def _has_explicit_schema(field: Any) -> bool:
    """Whether the project gave the field its own schema."""
    return bool(
        has_override(field, "field") or OpenApiSerializerFieldExtension.get_match(field)
    )


def _is_unmapped(field: Any) -> bool:
    """A project field subclassing ``Field`` directly with no declared schema."""
    drf = (c for c in type(field).__mro__ if c.__module__.startswith("rest_framework."))
    return next(drf, None) is serializers.Field and not _has_explicit_schema(field)


def _untyped_method(field: Any) -> bool:
    """A SerializerMethodField whose method declares no return type."""
    if not isinstance(field, serializers.SerializerMethodField):
        return False
    method = getattr(field.parent, field.method_name or "", None)
    annotations = getattr(method, "__annotations__", {})
    return "return" not in annotations and not _has_explicit_schema(field)


def _unmapped(serializer: Any, name: str, schema: dict[str, Any]) -> dict[str, Any]:
    policy = mcp_settings.UNMAPPED_FIELD_POLICY.upper()
    where = f"{type(serializer).__name__}.{name}"
    if policy == "RAISE":
        raise SchemaError(
            f"Field {where} has no JSON Schema mapping. Decorate its class with "
            "@extend_schema_field(...) or set FRISIAN_MCP['UNMAPPED_FIELD_POLICY']."
        )
    if policy == "WARN":
        logger.warning(
            "frisian_mcp: field %s has no JSON Schema mapping; accepting any JSON "
            "value for it. Decorate its class with @extend_schema_field(...).",
            where,
        )
    note = "Any JSON value (the field declares no schema)."
    result = {k: v for k, v in schema.items() if k == "title"}
    description = schema.get("description")
    result["description"] = f"{description} {note}" if description else note
    return result


def _model_default(serializer: Any, field: Any) -> Any:
    """The model field's constant default, when DRF made the field optional."""
    model = getattr(getattr(serializer, "Meta", None), "model", None)
    source = getattr(field, "source", None) or "*"
    if model is None or field.required or "." in source or source == "*":
        return _NO_DEFAULT
    try:
        model_field = model._meta.get_field(source)
    except FieldDoesNotExist:
        return _NO_DEFAULT
    has_default = getattr(model_field, "has_default", None)
    if not (has_default and has_default()) or callable(model_field.default):
        return _NO_DEFAULT
    return plain(model_field.default)


def _seal_nested(schema: dict[str, Any], field: Any) -> None:
    """Refuse unknown keys in nested serializers too: DRF drops them silently."""
    target, node = field, schema
    if isinstance(field, serializers.ListSerializer):
        target, node = field.child, schema.get("items") or {}
    if not isinstance(target, serializers.Serializer) or not isinstance(node, dict):
        return
    nested = {n: f for n, f in target.fields.items() if not f.read_only}
    for option in node.get("anyOf") or [node]:
        if isinstance(option, dict) and option.get("type") in _OBJECTS:
            option.setdefault("additionalProperties", False)
            for name, child in (option.get("properties") or {}).items():
                if name in nested and isinstance(child, dict):
                    _seal_nested(child, nested[name])
