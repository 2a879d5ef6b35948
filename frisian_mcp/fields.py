"""Serializer fields as arguments and as record entries.

A writable field's schema is drf-spectacular's, changed where the field is
not what that schema says: related fields take an id or a lookup object
(:mod:`~frisian_mcp.relations`), unmapped fields any value
(``UNMAPPED_FIELD_POLICY``), nested serializers refuse unknown keys but take
their read-only ones back, and a field that reads its value itself over a
declared schema takes the JSON types that schema leaves out (ADR 0034).
"""

from __future__ import annotations

import inspect
import logging
from typing import Any

from django.core.exceptions import FieldDoesNotExist
from rest_framework import relations, serializers

from frisian_mcp.conf import mcp_settings
from frisian_mcp.examples import schema_types
from frisian_mcp.exceptions import SchemaError
from frisian_mcp.jsonschema import plain, structural
from frisian_mcp.relations import (
    Relation,
    describe_relation,
    has_explicit_schema,
    other_types,
    relation_argument,
)
from frisian_mcp.validation import in_words

__all__ = ["argument_schema", "record_schema"]

logger = logging.getLogger("frisian_mcp")
_NO_DEFAULT: Any = object()
_OBJECTS = ("object", ["object", "null"])
_DRF = "rest_framework."
#: The related fields drf-spectacular maps (relations it knows the values of).
_MAPPED_RELATIONS = (
    relations.PrimaryKeyRelatedField,
    relations.SlugRelatedField,
    relations.StringRelatedField,
    relations.HyperlinkedRelatedField,
)


def argument_schema(
    serializer: Any, name: str, field: Any, schema: dict[str, Any]
) -> tuple[dict[str, Any], Relation | None]:
    """A writable field's argument schema from spectacular's, and its relation.

    Unmapped fields follow ``UNMAPPED_FIELD_POLICY``, relations take an id or
    a lookup object, nested serializers refuse unknown keys (DRF would drop
    them silently) and a constant model default is shown.
    """
    schema = _own_text(field, schema)
    if _is_unmapped(field):
        schema = _unmapped(serializer, name, schema)
    relation = describe_relation(name, field)
    if relation is not None:
        schema, relation = relation_argument(relation, field, schema)
    else:
        schema = _field_schema(schema, field)
    default = _model_default(serializer, field)
    if default is not _NO_DEFAULT and "default" not in schema:
        schema["default"] = default
    return schema, relation


def record_schema(field: Any, schema: dict[str, Any]) -> Any:
    """A readable field's schema in a record, structure only; none where
    drf-spectacular guessed (a field it cannot map is a "string" to it) or
    the field reads its value itself (its declared type a guess, ADR 0034)."""
    guessed = (_is_unmapped, _untyped_method, _own_relation, _reads_itself)
    if field is not None and any(test(field) for test in guessed):
        # Only its text, also where a nullable reference has it (OAS 3.1).
        forms = [schema, *(schema.get("anyOf") or ())]
        texts = [f["description"] for f in forms if "description" in f]
        schema = {"description": texts[0]} if texts else {}
    return structural(_own_text(field, schema))


def _own_relation(field: Any) -> bool:
    """A related field of the project's own class, declaring no schema."""
    inner = getattr(field, "child_relation", field)
    known = isinstance(inner, _MAPPED_RELATIONS) or has_explicit_schema(inner)
    return isinstance(inner, relations.RelatedField) and not known


def _field_schema(schema: dict[str, Any], field: Any) -> dict[str, Any]:
    """A field's schema, open where the field reads its value itself.

    Nested serializers refuse unknown keys (DRF drops them silently) but
    take their read-only keys back from retrieve, which DRF drops too.
    """
    if _reads_itself(field):
        return _lenient(schema)
    target, node = field, schema
    if isinstance(field, serializers.ListSerializer):
        target, node = field.child, schema.get("items") or {}
    if not isinstance(target, serializers.Serializer) or not isinstance(node, dict):
        return schema
    nested = dict(target.fields.items())
    for option in node.get("anyOf") or [node]:
        if isinstance(option, dict) and option.get("type") in _OBJECTS:
            option.setdefault("additionalProperties", False)
            properties = option.setdefault("properties", {})
            for name, child in nested.items():
                if child.read_only:
                    properties.setdefault(name, {"readOnly": True})
                elif isinstance(properties.get(name), dict):
                    child_schema = _own_text(child, properties[name])
                    properties[name] = _field_schema(child_schema, child)
    return schema


def _reads_itself(field: Any) -> bool:
    """Whether ``field``'s schema is a guess about what it reads.

    Its class reads input itself (overrides its DRF base's
    ``to_internal_value``) while its schema is the host's declaration, or
    that of a method field, which describes what the method returns.
    """
    cls: Any = type(field)
    base: Any = next((c for c in cls.__mro__ if c.__module__.startswith(_DRF)), None)
    if base is None or cls.to_internal_value is base.to_internal_value:
        return False
    method_field = isinstance(field, serializers.SerializerMethodField)
    return method_field or has_explicit_schema(field)


def _lenient(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema``, or any value of a JSON type it does not describe."""
    notes: dict[str, Any] = {
        k: schema[k] for k in ("title", "description", "default") if k in schema
    }
    core = {k: v for k, v in schema.items() if k not in notes}
    others = other_types([core])
    types = [t for t in schema_types(core) if t != "null"]
    if not (others and types):
        return schema
    options = list(core["anyOf"]) if list(core) == ["anyOf"] else [core]
    note = (
        f"The host's schema says {in_words(types)}; its field reads values of "
        "other JSON types itself, as over REST."
    )
    text = " ".join(str(t) for t in (notes.get("description"), note) if t)
    return {"anyOf": [*options, {"type": others}], **notes, "description": text}


def _own_text(field: Any, schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` without a method field's description taken from DRF.

    drf-spectacular describes a method field by its method's docstring,
    inherited if the method has none: a ``get_value`` says what DRF's
    ``Field.get_value`` does.
    """
    if not isinstance(field, serializers.SerializerMethodField):
        return schema
    doc = None
    for cls in type(field.parent).__mro__:
        doc = getattr(vars(cls).get(field.method_name or ""), "__doc__", None)
        if doc:
            doc = inspect.cleandoc(doc) if cls.__module__.startswith(_DRF) else None
            break
    text = schema.get("description")
    if doc is None or not isinstance(text, str) or text.split() != doc.split():
        return schema
    return {k: v for k, v in schema.items() if k != "description"}


def _is_unmapped(field: Any) -> bool:
    """A project field subclassing ``Field`` directly with no declared schema."""
    drf = (c for c in type(field).__mro__ if c.__module__.startswith(_DRF))
    return next(drf, None) is serializers.Field and not has_explicit_schema(field)


def _untyped_method(field: Any) -> bool:
    """A SerializerMethodField whose method declares no return type."""
    if not isinstance(field, serializers.SerializerMethodField):
        return False
    method = getattr(field.parent, field.method_name or "", None)
    annotations = getattr(method, "__annotations__", {})
    return "return" not in annotations and not has_explicit_schema(field)


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
