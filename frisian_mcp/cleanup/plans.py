"""Plans: what makes a row of an exposed model an orphaned empty record.

:func:`build_plans` reads the registry: every model a tool serves, and for
each the create serializers that write it. :func:`build_plan` turns one model
into a :class:`ModelPlan` whose SQL filters say "empty" (one
:class:`FieldCheck` per written field) and "orphaned" (one ``NOT EXISTS`` per
foreign key that can point at the row); generic foreign keys cannot be
compared with the key in portable SQL, so they are listed for the runner to
check in Python. Invalid options and refused deletes raise
:class:`frisian_mcp.exceptions.CleanupError`.
"""

from __future__ import annotations

import datetime as dt
import enum
import uuid
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from functools import reduce
from operator import and_, or_
from typing import Any

from django.apps import apps
from django.core.exceptions import FieldDoesNotExist, ValidationError
from django.db import models
from django.utils import timezone
from rest_framework import serializers

from frisian_mcp.exceptions import CleanupError
from frisian_mcp.registry import get_registry
from frisian_mcp.schema import make_view
from frisian_mcp.tools import Tool
from frisian_mcp.types import Kind

__all__ = [
    "FieldCheck",
    "GenericReference",
    "ModelPlan",
    "Reference",
    "build_plan",
    "build_plans",
    "field_check",
]

_STRING_FIELDS = (
    models.CharField,
    models.TextField,
    models.FileField,
    models.FilePathField,
)
#: Callable defaults that build a fixed value without side effects: called.
_VALUE_FACTORIES: tuple[Any, ...] = (dict, list, set, frozenset, tuple, str, bytes)
_VALUE_FACTORIES += (int, float, bool, Decimal)
#: Callable defaults that make a fresh value for every row (keys, clocks):
#: their value says nothing about what a caller sent.
_GENERATORS: tuple[Any, ...] = (uuid.uuid1, uuid.uuid4, timezone.now)
_GENERATORS += (timezone.localdate, dt.datetime.now, dt.datetime.utcnow, dt.date.today)
_CREATION_NAMES = ("created", "created_at", "created_on", "date_created")


@dataclass(frozen=True)
class FieldCheck:
    """How one model field shows it holds no content.

    ``empty`` matches the rows where the field is empty; ``None`` means the
    field always holds content, so no row of its model can be empty.
    """

    name: str
    empty: models.Q | None
    description: str


@dataclass(frozen=True)
class Reference:
    """Rows of ``model`` whose column ``attname`` names a row being checked."""

    label: str
    model: type[models.Model]
    attname: str
    target: str
    #: Whether the database enforces the key (``db_constraint``).
    enforced: bool = True

    def exists(self) -> models.Exists:
        """An ``EXISTS`` subquery for the outer row."""
        rows = self.model._base_manager.filter(
            **{self.attname: models.OuterRef(self.target)}
        )
        return models.Exists(rows)


@dataclass(frozen=True)
class GenericReference:
    """A generic foreign key (content type + object id) of ``model``."""

    label: str
    model: type[models.Model]
    ct_attname: str
    object_id: models.Field[Any, Any]


@dataclass(frozen=True)
class ModelPlan:
    """What makes a row of ``model`` an orphaned empty record, as SQL filters.

    ``skip`` says why no row of the model can be a candidate (no create tool,
    a field that always holds content...); such a model is never scanned.
    """

    model: type[models.Model]
    checks: tuple[FieldCheck, ...] = ()
    ignored: tuple[tuple[str, str], ...] = ()
    references: tuple[Reference, ...] = ()
    generic: tuple[GenericReference, ...] = ()
    created_field: str | None = None
    notes: tuple[str, ...] = ()
    skip: str | None = None

    @property
    def label(self) -> str:
        """``app_label.ModelName``."""
        return str(self.model._meta.label)

    @property
    def reason(self) -> str:
        """Why a row of this model qualifies, in one line."""
        fields = ", ".join(c.name for c in self.checks)
        count = len(self.reference_labels)
        refs = f"{count} relation{'s' if count != 1 else ''} checked"
        return f"no content in {fields}; not referenced ({refs})"

    @property
    def reference_labels(self) -> tuple[str, ...]:
        """Labels of every relation checked: foreign keys, then generic ones."""
        return tuple(r.label for r in self.references) + tuple(
            g.label for g in self.generic
        )

    def queryset(self, using: str) -> models.QuerySet[Any]:
        """Every row of the model on ``using`` that is empty and has no FK to it.

        Generic foreign keys are not part of the query (see
        :func:`frisian_mcp.cleanup.runner.generically_referenced`).
        """
        empty = reduce(and_, (c.empty for c in self.checks if c.empty is not None))
        orphaned = [~ref.exists() for ref in self.references]
        return self.model._base_manager.using(using).filter(empty, *orphaned)


def field_check(
    field: models.Field[Any, Any], extra: Iterable[Any] = ()
) -> FieldCheck | str:
    """Return how ``field`` shows it is empty, or why it is not content.

    Empty means NULL (nullable fields), ``""`` (text and file fields), or
    equal to a default: a plain ``default``, the value of a side-effect-free
    factory (``dict``, ``list``... so a JSON ``{}`` under ``default=dict`` is
    empty), a plain ``db_default``, or one of ``extra`` (the serializer
    field's own default). A field whose default generates a fresh value per
    row (``uuid4``, ``timezone.now``, a database expression) is not content
    at all: its value cannot tell a caller's data from the default. Any other
    callable default is never called (it may have side effects), so such a
    field is empty only when NULL or ``""``.
    """
    if field.primary_key or isinstance(field, models.AutoField | models.GeneratedField):
        return "primary key or generated column"
    if getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False):
        return "automatic timestamp"
    values = list(extra)
    default = field.default if field.has_default() else None
    if callable(default):
        if default in _VALUE_FACTORIES:
            values.append(default())
        elif any(default == generator for generator in _GENERATORS):
            name = getattr(default, "__qualname__", default)
            return f"generated default ({name})"
    elif field.has_default():
        values.append(field.get_default())
    if field.has_db_default():
        db_default: Any = field.db_default
        if type(db_default) is models.Value:
            values.append(db_default.value)
        elif hasattr(db_default, "resolve_expression"):
            return "database default expression"
        else:  # a plain value, kept as given (Django wraps it in Value later)
            values.append(db_default)
    options: list[tuple[models.Q, str]] = []
    if field.null:
        options.append((models.Q(**{f"{field.attname}__isnull": True}), "NULL"))
    if isinstance(field, _STRING_FIELDS):
        options.append((models.Q(**{field.attname: ""}), "''"))
    for value in values:
        if isinstance(value, enum.Enum):  # a TextChoices member: its stored value
            value = value.value
        described = f"default {value!r}"
        if value is None or value == "" or described in (d for _, d in options):
            continue
        try:
            field.get_prep_value(value)
        except (TypeError, ValueError, ValidationError):
            continue
        options.append((models.Q(**{field.attname: value}), described))
    if not options:
        return FieldCheck(field.name, None, "always holds a value")
    empty = reduce(or_, (q for q, _ in options))
    return FieldCheck(field.name, empty, " or ".join(d for _, d in options))


def build_plan(
    model: type[models.Model], create_serializers: Sequence[Any]
) -> ModelPlan:
    """The plan for ``model``, written by ``create_serializers`` (may be none).

    Every writable serializer field counts, in the union of the serializers.
    A writable field that is not a model field of ``model`` (``source="*"``,
    a dotted source, a plain value a custom ``create()`` consumes) may store
    data anywhere, so it widens the check to every concrete field of the
    model. ``HiddenField``\\ s are set by the server, not the caller, and do
    not count.
    """
    model = model._meta.concrete_model or model
    if not create_serializers:
        return ModelPlan(model, skip="no create tool writes this model")
    wanted: dict[str, list[Any]] = {}
    ignored: dict[str, str] = {}
    notes: list[str] = []
    for serializer in create_serializers:
        for name, extra in _written_fields(model, serializer, ignored, notes):
            wanted.setdefault(name, []).extend(extra)
    if notes:
        wanted.update(
            {f.name: [] for f in model._meta.concrete_fields if f.name not in wanted}
        )
    checks: list[FieldCheck] = []
    for name, extra in wanted.items():
        result = field_check(model._meta.get_field(name), extra)  # type: ignore[arg-type]
        if isinstance(result, str):
            ignored[name] = result
        else:
            checks.append(result)
    plan = ModelPlan(
        model,
        checks=tuple(checks),
        ignored=tuple(sorted(ignored.items())),
        references=_references(model),
        generic=_generic_references(),
        created_field=_created_field(model),
        notes=tuple(notes),
    )
    never = next((c.name for c in checks if c.empty is None), None)
    if never is not None:
        return _skipped(plan, f"field {never} always holds a value")
    if not checks:
        return _skipped(plan, "the create serializer writes no field to judge")
    return plan


def build_plans(labels: Sequence[str] = ()) -> list[ModelPlan]:
    """Plans for the exposed models named by ``labels`` (all when empty).

    Raises:
        CleanupError: a label names no model, or a model no tool exposes.
    """
    exposed: dict[type[models.Model], list[Any]] = {}
    for tool in get_registry():
        model = tool.model
        if model is None:
            continue
        writers = exposed.setdefault(model._meta.concrete_model or model, [])
        if tool.kind == Kind.CREATE and tool.schema is not None:
            writers.append(_create_serializer(tool))
    names = ", ".join(sorted(m._meta.label for m in exposed)) or "none"
    chosen: list[type[models.Model]] = []
    for label in labels:
        try:
            model = apps.get_model(label)
        except (LookupError, ValueError):
            raise CleanupError(
                f"Unknown model {label!r}; use app_label.ModelName. Exposed: {names}."
            ) from None
        model = model._meta.concrete_model or model
        if model not in exposed:
            raise CleanupError(
                f"{model._meta.label} is not exposed through frisian_mcp. Exposed: {names}."
            )
        if model not in chosen:
            chosen.append(model)
    models_ = chosen or sorted(exposed, key=lambda m: m._meta.label)
    return [build_plan(model, exposed[model]) for model in models_]


def _skipped(plan: ModelPlan, reason: str) -> ModelPlan:
    return replace(plan, references=(), generic=(), skip=reason)


def _create_serializer(tool: Tool) -> Any:
    """The serializer a create tool writes with, on the schema builder's view."""
    view: Any = make_view(tool.endpoint)
    return view.get_serializer()


def _written_fields(
    model: type[models.Model],
    serializer: Any,
    ignored: dict[str, str],
    notes: list[str],
) -> Iterator[tuple[str, list[Any]]]:
    """Yield (model field name, serializer defaults) for each field written."""
    if isinstance(serializer, serializers.ListSerializer):
        serializer = serializer.child
    if not isinstance(serializer, serializers.ModelSerializer):
        notes.append(f"{type(serializer).__name__} is not a ModelSerializer")
        return
    for name, sfield in serializer.fields.items():
        if sfield.read_only:
            continue
        if isinstance(sfield, serializers.HiddenField):
            ignored[name] = "set by the server (HiddenField)"
            continue
        source = sfield.source or name
        try:
            mfield = (
                model._meta.get_field(source)
                if "." not in source and source != "*"
                else None
            )
        except FieldDoesNotExist:
            mfield = None
        if mfield is None:
            notes.append(
                f"{type(serializer).__name__}.{name} is not a field of {model._meta.label}"
            )
        elif mfield.many_to_many or not mfield.concrete:
            ignored[mfield.name] = "relation: non-empty means referenced"
        else:
            default = getattr(sfield, "default", serializers.empty)
            plain = default is not serializers.empty and not callable(default)
            yield mfield.name, [default] if plain else []


def _references(model: type[models.Model]) -> tuple[Reference, ...]:
    """Foreign keys (many-to-many rows included) that can point at a row."""
    chain = {model, *model._meta.get_parent_list()}
    found: dict[str, Reference] = {}
    for owner in (model, *model._meta.get_parent_list()):
        for rel in owner._meta.get_fields(include_parents=False, include_hidden=True):
            fk = getattr(rel, "field", None)
            if not isinstance(rel, models.ManyToOneRel) or not isinstance(
                fk, models.ForeignKey
            ):
                continue
            if fk.remote_field.parent_link and fk.model in chain:
                continue  # the row's own multi-table-inheritance link
            target = fk.target_field
            label = f"{fk.model._meta.label}.{fk.name}"
            found[label] = Reference(
                label,
                fk.model,
                fk.attname,
                "pk" if target.primary_key else target.attname,
                enforced=bool(getattr(fk, "db_constraint", True)),
            )
    return tuple(found[k] for k in sorted(found))


def _generic_references() -> tuple[GenericReference, ...]:
    if not apps.is_installed("django.contrib.contenttypes"):
        return ()
    from django.contrib.contenttypes.fields import GenericForeignKey

    found = []
    for model in apps.get_models():
        for gfk in model._meta.private_fields:
            if isinstance(gfk, GenericForeignKey):
                ct: Any = model._meta.get_field(gfk.ct_field)
                object_id: Any = model._meta.get_field(gfk.fk_field)
                label = f"{model._meta.label}.{gfk.name}"
                found.append(GenericReference(label, model, ct.attname, object_id))
    return tuple(sorted(found, key=lambda g: g.label))


def _created_field(model: type[models.Model]) -> str | None:
    dated = [f for f in model._meta.concrete_fields if isinstance(f, models.DateField)]
    for field_ in dated:
        if getattr(field_, "auto_now_add", False):
            return field_.name
    return next((f.name for f in dated if f.name in _CREATION_NAMES), None)
