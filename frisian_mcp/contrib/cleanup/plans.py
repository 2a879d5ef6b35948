"""Plans: what makes a row of an exposed model an orphaned empty record.

One :class:`ModelPlan` per model: the fields its create tools write, how each
shows it is empty, and the relations that would make a row referenced
(docs/cleanup.md states the rules). :mod:`.runs` scans and deletes by them.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import enum
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from functools import reduce
from operator import and_, or_
from typing import TYPE_CHECKING, Any, NamedTuple

from django.apps import apps
from django.core.exceptions import FieldDoesNotExist, ValidationError
from django.db import models
from django.utils import timezone
from rest_framework import serializers

from frisian_mcp.registry import get_registry
from frisian_mcp.spectacular import make_view
from frisian_mcp.types import Kind

if TYPE_CHECKING:
    from django.contrib.contenttypes.fields import GenericForeignKey

__all__ = ["FieldCheck", "ModelPlan", "build_plan", "exposed_models", "field_check"]

_STRINGS = (models.CharField, models.TextField, models.FileField, models.FilePathField)
# Callable defaults that build a fixed value without side effects: called.
_FACTORIES = (dict, list, set, frozenset, tuple, str, bytes, int, float, bool, Decimal)
# Callable defaults that make a fresh value per row: not content at all.
_GENERATORS: tuple[Any, ...] = (uuid.uuid1, uuid.uuid4, timezone.now)
_GENERATORS += (timezone.localdate, dt.datetime.now, dt.datetime.utcnow, dt.date.today)
_CREATION_NAMES = ("created", "created_at", "created_on", "date_created")


class FieldCheck(NamedTuple):
    """How one field shows it holds no content (``empty`` None: it never does)."""

    name: str
    empty: models.Q | None
    description: str


@dataclass(frozen=True)
class ModelPlan:
    """What makes a row of ``model`` an orphaned empty record; ``skip``: not scanned.

    ``references``: each foreign key to a row, with its ``EXISTS`` subquery.
    """

    model: type[models.Model]
    checks: tuple[FieldCheck, ...] = ()
    ignored: tuple[tuple[str, str], ...] = ()
    references: tuple[tuple[str, models.Exists], ...] = ()
    generic: tuple[GenericForeignKey, ...] = ()
    created_field: str | None = None
    notes: tuple[str, ...] = ()
    skip: str | None = None

    @property
    def label(self) -> str:
        """``app_label.ModelName``."""
        return str(self.model._meta.label)

    @property
    def chain(self) -> tuple[type[models.Model], ...]:
        """The model and its multi-table-inheritance parents: one row's tables."""
        return (self.model, *self.model._meta.get_parent_list())

    @property
    def reference_labels(self) -> list[str]:
        """Every relation checked: foreign keys, then generic ones."""
        generic = [f"{g.model._meta.label}.{g.name}" for g in self.generic]
        return [label for label, _ in self.references] + generic

    def facts(self) -> dict[str, Any]:
        """The plan's rules, as the JSON report lists them."""
        fields = {c.name: c.description for c in self.checks}
        return {"fields": fields, "ignored": dict(self.ignored)} | {
            "references": self.reference_labels,
            "created_field": self.created_field,
            "notes": list(self.notes),
        }

    def queryset(self, using: str) -> models.QuerySet[Any]:
        """The rows on ``using`` that are empty and no foreign key points at."""
        empty = reduce(and_, (c.empty for c in self.checks if c.empty is not None))
        unreferenced = (~exists for _, exists in self.references)
        return self.model._base_manager.using(using).filter(empty, *unreferenced)


def field_check(
    field: models.Field[Any, Any], extra: Iterable[Any] = ()
) -> FieldCheck | str:
    """How ``field`` shows it is empty, or why it is not content at all.

    Empty is NULL, ``""`` or a default: a plain one, a factory's in
    ``_FACTORIES``, a plain ``db_default`` or one of ``extra``. Other
    callable defaults are never called (they may have side effects).
    """
    if field.primary_key or isinstance(field, models.AutoField | models.GeneratedField):
        return "primary key or generated column"
    if getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False):
        return "automatic timestamp"
    values, default = list(extra), field.default
    if field.has_default() and default in _GENERATORS:
        return f"generated default ({default.__qualname__})"
    if field.has_default() and (not callable(default) or default in _FACTORIES):
        values.append(default() if callable(default) else default)
    if field.has_db_default():
        db_default: Any = field.db_default
        value = db_default.value if type(db_default) is models.Value else db_default
        if hasattr(value, "resolve_expression"):
            return "database default expression"
        values.append(value)
    options = (
        {"NULL": models.Q(**{f"{field.attname}__isnull": True})} if field.null else {}
    )
    if isinstance(field, _STRINGS):
        options["''"] = models.Q(**{field.attname: ""})
    for value in values:
        value = value.value if isinstance(value, enum.Enum) else value
        if value is None or value == "":
            continue
        with contextlib.suppress(TypeError, ValueError, ValidationError):
            field.get_prep_value(value)
            options.setdefault(f"default {value!r}", models.Q(**{field.attname: value}))
    if not options:
        return FieldCheck(field.name, None, "always holds a value")
    return FieldCheck(field.name, reduce(or_, options.values()), " or ".join(options))


def build_plan(
    model: type[models.Model], create_serializers: Sequence[Any]
) -> ModelPlan:
    """The plan for ``model`` as ``create_serializers`` write it (may be none).

    A written field that is not a field of ``model`` (``source="*"``, a
    non-model serializer) may store data anywhere: every field is checked.
    """
    model = model._meta.concrete_model or model
    if not create_serializers:
        return ModelPlan(model, skip="no create tool writes this model")
    wanted, ignored, notes = _written_fields(model, create_serializers)
    for field_ in model._meta.concrete_fields if notes else ():
        wanted.setdefault(field_.name, [])
    checks = []
    for name, extra in wanted.items():
        check = field_check(model._meta.get_field(name), extra)  # type: ignore[arg-type]
        if isinstance(check, str):
            ignored[name] = check
        else:
            checks.append(check)
    never = next((c.name for c in checks if c.empty is None), None)
    skip = f"field {never} always holds a value" if never else None
    skip = skip or (
        None if checks else "the create serializer writes no field to judge"
    )
    return ModelPlan(
        model,
        checks=tuple(checks),
        ignored=tuple(sorted(ignored.items())),
        references=() if skip else _references(model),
        generic=() if skip else _generic_references(),
        created_field=_created_field(model),
        notes=tuple(notes),
        skip=skip,
    )


def _written_fields(
    model: type[models.Model], create_serializers: Sequence[Any]
) -> tuple[dict[str, list[Any]], dict[str, str], list[str]]:
    """Written fields (with serializer defaults), ignored ones (with why), notes."""
    wanted: dict[str, list[Any]] = {}
    ignored: dict[str, str] = {}
    notes: list[str] = []
    for serializer in create_serializers:
        if isinstance(serializer, serializers.ListSerializer):
            serializer = serializer.child
        kind = type(serializer).__name__
        if not isinstance(serializer, serializers.ModelSerializer):
            notes.append(f"{kind} is not a ModelSerializer")
            continue
        for name, sfield in serializer.fields.items():
            try:
                mfield: Any = model._meta.get_field(sfield.source or name)
            except FieldDoesNotExist:  # also source="*" and dotted sources
                mfield = None
            if sfield.read_only:
                continue
            if isinstance(sfield, serializers.HiddenField):
                ignored[name] = "set by the server (HiddenField)"
            elif mfield is None:
                notes.append(f"{kind}.{name} is not a field of {model._meta.label}")
            elif mfield.many_to_many or not mfield.concrete:
                ignored[mfield.name] = "relation: non-empty means referenced"
            else:
                default = getattr(sfield, "default", serializers.empty)
                plain = default is not serializers.empty and not callable(default)
                wanted.setdefault(mfield.name, []).extend([default] if plain else [])
    return wanted, ignored, notes


def exposed_models() -> dict[type[models.Model], list[Any]]:
    """Each exposed model, by label, with the serializers its create tools write."""
    exposed: dict[type[models.Model], list[Any]] = {}
    for tool in get_registry():
        if tool.model is not None:
            model = tool.model._meta.concrete_model or tool.model
            writers = exposed.setdefault(model, [])
            if tool.kind == Kind.CREATE and tool.schema is not None:
                writers.append(make_view(tool.endpoint).get_serializer())
    return dict(sorted(exposed.items(), key=lambda item: item[0]._meta.label))


def _references(model: type[models.Model]) -> tuple[tuple[str, models.Exists], ...]:
    """Foreign keys (many-to-many rows included) that can point at a row."""
    chain = (model, *model._meta.get_parent_list())
    found: dict[str, models.Exists] = {}
    for owner in chain:
        for rel in owner._meta.get_fields(include_parents=False, include_hidden=True):
            if not isinstance(rel, models.ManyToOneRel):
                continue  # its field is a ForeignKey (or a OneToOneField)
            fk: Any = rel.field
            if fk.remote_field.parent_link and fk.model in chain:
                continue  # the row's own multi-table-inheritance link
            target = "pk" if fk.target_field.primary_key else fk.target_field.attname
            rows = fk.model._base_manager.filter(
                **{fk.attname: models.OuterRef(target)}
            )
            found[f"{fk.model._meta.label}.{fk.name}"] = models.Exists(rows)
    return tuple(sorted(found.items(), key=lambda item: item[0]))


def _generic_references() -> tuple[GenericForeignKey, ...]:
    if not apps.is_installed("django.contrib.contenttypes"):
        return ()
    from django.contrib.contenttypes.fields import GenericForeignKey

    fields = (f for m in apps.get_models() for f in m._meta.private_fields)
    found = [f for f in fields if isinstance(f, GenericForeignKey)]
    return tuple(sorted(found, key=lambda g: (g.model._meta.label, g.name)))


def _created_field(model: type[models.Model]) -> str | None:
    dated = [f for f in model._meta.concrete_fields if isinstance(f, models.DateField)]
    auto = next((f.name for f in dated if getattr(f, "auto_now_add", False)), None)
    return auto or next((f.name for f in dated if f.name in _CREATION_NAMES), None)
