"""Cleanup: find, and on request delete, orphaned empty rows of exposed models.

A row is a candidate when a create tool writes its model, every field that
tool writes holds no content (NULL, ``""`` or a default) and nothing refers
to it. ``manage.py frisian_mcp_cleanup`` is the CLI; docs/cleanup.md has the
rules, the guarantees and the audit log (logger ``frisian_mcp.cleanup``).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import enum
import itertools
import json
import logging
import re
import time
import uuid
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from functools import reduce
from operator import and_, or_
from typing import TYPE_CHECKING, Any, NamedTuple, TypeAlias

from django.apps import apps
from django.core.exceptions import FieldDoesNotExist, ValidationError
from django.core.management.base import OutputWrapper
from django.db import DatabaseError, connections, models, router, transaction
from django.db.models.deletion import ProtectedError, RestrictedError
from django.utils import timezone
from rest_framework import serializers

from frisian_mcp.exceptions import CleanupError
from frisian_mcp.registry import get_registry
from frisian_mcp.spectacular import make_view
from frisian_mcp.types import Kind

if TYPE_CHECKING:
    from django.contrib.contenttypes.fields import GenericForeignKey

__all__ = [
    "CANDIDATE",
    "DELETED",
    "FAILED",
    "KEPT",
    "PROGRESS_INTERVAL",
    "Candidate",
    "CleanupRun",
    "FieldCheck",
    "ModelPlan",
    "Scope",
    "build_plan",
    "build_plans",
    "delete_batch",
    "field_check",
    "id_matches",
    "with_progress",
    "write_json",
    "write_table",
]

logger = logging.getLogger("frisian_mcp.cleanup")

STATUSES = CANDIDATE, DELETED, KEPT, FAILED = ("candidate", "deleted", "kept", "failed")
FETCH_ROWS = 2000  # rows per round trip of the scan's cursor, at least a batch
PROGRESS_INTERVAL = 2.0  # seconds between progress lines; short runs print none

_STRINGS = (models.CharField, models.TextField, models.FileField, models.FilePathField)
# Callable defaults that build a fixed value without side effects: called.
_FACTORIES = (dict, list, set, frozenset, tuple, str, bytes, int, float, bool, Decimal)
# Callable defaults that make a fresh value per row: not content at all.
_GENERATORS: tuple[Any, ...] = (
    uuid.uuid1,
    uuid.uuid4,
    timezone.now,
    timezone.localdate,
)
_GENERATORS += (dt.datetime.now, dt.datetime.utcnow, dt.date.today)
_CREATION_NAMES = ("created", "created_at", "created_on", "date_created")
# A batch that fails with one of these is rolled back and reported; the run goes on.
_BATCH_ERRORS = (CleanupError, DatabaseError, ProtectedError, RestrictedError)


class FieldCheck(NamedTuple):
    """How one field shows it holds no content (``empty`` None: it never does)."""

    name: str
    empty: models.Q | None
    description: str


class Candidate(NamedTuple):
    """One orphaned empty row: its key and creation time."""

    pk: Any
    created: dt.date | None = None


@dataclass(frozen=True)
class ModelPlan:
    """What makes a row of ``model`` an orphaned empty record.

    ``references`` pairs each foreign key to the row with its ``EXISTS``
    subquery; ``generic`` ones are checked in Python. A plan with ``skip``
    is not scanned.
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
    def reference_labels(self) -> list[str]:
        """Every relation checked: foreign keys, then generic ones."""
        generic = [f"{g.model._meta.label}.{g.name}" for g in self.generic]
        return [label for label, _ in self.references] + generic

    @property
    def reason(self) -> str:
        """Why a row of this model qualifies, in one line."""
        n, fields = len(self.reference_labels), ", ".join(c.name for c in self.checks)
        relations = f"{n} relation{'' if n == 1 else 's'} checked"
        return f"no content in {fields}; not referenced ({relations})"

    def queryset(self, using: str) -> models.QuerySet[Any]:
        """The rows on ``using`` that are empty and no foreign key points at."""
        empty = reduce(and_, (c.empty for c in self.checks if c.empty is not None))
        unreferenced = (~exists for _, exists in self.references)
        return self.model._base_manager.using(using).filter(empty, *unreferenced)


@dataclass(frozen=True)
class Scope:
    """Which rows to look at: ``--id`` values, ``[created_after, created_before)``."""

    ids: tuple[str, ...] = ()
    created_after: dt.datetime | None = None
    created_before: dt.datetime | None = None


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


def build_plans(
    labels: Sequence[str] = (), scope: Scope | None = None
) -> list[ModelPlan]:
    """Plans for the exposed models named by ``labels`` (all when empty).

    Raises :class:`CleanupError` for an unknown or unexposed model, an
    ``--id`` that fits no key, or a window on a named model without a date.
    """
    exposed: dict[type[models.Model], list[Any]] = {}
    for tool in get_registry():
        if tool.model is not None:
            model = tool.model._meta.concrete_model or tool.model
            writers = exposed.setdefault(model, [])
            if tool.kind == Kind.CREATE and tool.schema is not None:
                writers.append(make_view(tool.endpoint).get_serializer())
    names = ", ".join(sorted(m._meta.label for m in exposed)) or "none"
    chosen = []
    for label in labels:
        try:
            model = apps.get_model(label)._meta.concrete_model
        except (LookupError, ValueError):
            raise CleanupError(
                f"Unknown model {label!r}; use app_label.ModelName. Exposed: {names}."
            ) from None
        if model not in exposed:
            raise CleanupError(
                f"{model._meta.label} is not exposed through frisian_mcp. Exposed: {names}."
            )
        if model not in chosen:
            chosen.append(model)
    chosen = chosen or sorted(exposed, key=lambda m: m._meta.label)
    plans = [build_plan(model, exposed[model]) for model in chosen]
    scope = scope or Scope()
    for position, value in enumerate(scope.ids, 1):
        if all(_id_lookup(plan.model, value) is None for plan in plans):
            # The value is the caller's input: it is not echoed.
            raise CleanupError(
                f"--id number {position} is not an id or id prefix of any model scanned."
            )
    undated = [p.label for p in plans if p.created_field is None]
    if labels and undated and (scope.created_after or scope.created_before):
        raise CleanupError(
            f"{', '.join(undated)} has no creation timestamp (an auto_now_add field or "
            "one named created/created_at), so --created-after/--created-before cannot apply."
        )
    return plans


def _references(model: type[models.Model]) -> tuple[tuple[str, models.Exists], ...]:
    """Foreign keys (many-to-many rows included) that can point at a row."""
    chain = (model, *model._meta.get_parent_list())
    found: dict[str, models.Exists] = {}
    for owner in chain:
        for rel in owner._meta.get_fields(include_parents=False, include_hidden=True):
            fk: Any = getattr(rel, "field", None)
            if not isinstance(rel, models.ManyToOneRel) or not isinstance(
                fk, models.ForeignKey
            ):
                continue
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


def _id_lookup(model: type[models.Model], value: str) -> tuple[bool, Any] | None:
    """(exact, key) for ``--id value``, or None when it fits no key of ``model``.

    Integer keys match exactly, text keys by prefix, UUIDs by prefix in their
    canonical form (any case, hyphens optional).
    """
    key: Any = model._meta.pk
    while key.is_relation:  # a multi-table-inheritance child's parent link
        key = key.target_field
    value = value.strip()
    if isinstance(key, models.UUIDField):
        digits = value.replace("-", "").lower()
        if not re.fullmatch(r"[0-9a-f]{1,32}", digits):
            return None
        hyphens = sum(len(digits) > cut for cut in (8, 12, 16, 20))
        canonical = str(uuid.UUID(digits.ljust(32, "0")))
        return len(digits) == 32, canonical[: len(digits) + hyphens]
    if isinstance(key, models.IntegerField):
        return (True, int(value)) if re.fullmatch(r"-?\d+", value) else None
    return (False, value) if value else None


def id_matches(model: type[models.Model], pk: Any, value: str) -> bool:
    """Whether ``--id value`` selects the row ``pk`` of ``model``."""
    lookup = _id_lookup(model, value)
    if lookup is None:
        return False
    exact, key = lookup
    return str(pk) == str(key) if exact else str(pk).startswith(key)


#: One handled batch: its plan, its rows and their status.
Batch: TypeAlias = tuple[ModelPlan, list[Candidate], str]


@dataclass
class CleanupRun:
    """One pass over ``plans``: iterate it for the batches, then read its counts.

    With ``delete`` each batch is deleted as it comes (:func:`delete_batch`);
    a batch that fails is rolled back, counted ``failed`` and listed in
    ``errors``, and the run goes on.
    """

    plans: Sequence[ModelPlan]
    scope: Scope
    using: str
    delete: bool = False
    batch_size: int = 500
    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    matched_ids: set[str] = field(default_factory=set)

    def __iter__(self) -> Iterator[Batch]:
        """Scan (and delete) plan by plan, yielding each batch as it is handled."""
        for plan in self.plans:
            if reason := self._skip_reason(plan):
                self.skipped[plan.label] = reason
                continue
            counts = self.counts[plan.label] = dict.fromkeys(STATUSES, 0)
            for batch in self._scan(plan):
                counts[CANDIDATE] += len(batch)
                for c, v in itertools.product(batch, self.scope.ids):
                    if id_matches(plan.model, c.pk, v):
                        self.matched_ids.add(v)
                outcome = [(batch, CANDIDATE)]
                if self.delete:
                    try:
                        deleted, kept = delete_batch(plan, batch, using=self.using)
                        outcome = [(deleted, DELETED), (kept, KEPT)]
                    except _BATCH_ERRORS as exc:
                        why = f"{len(batch)} rows not deleted: {_first_line(exc)}"
                        self.errors.append(f"{plan.label}: {why}")
                        outcome = [(batch, FAILED)]
                    for rows, status in outcome:
                        counts[status] += len(rows)
                yield from ((plan, rows, status) for rows, status in outcome if rows)

    def total(self, status: str) -> int:
        """Rows with ``status`` over every model (``candidate``: all found)."""
        return sum(counts[status] for counts in self.counts.values())

    @property
    def models_found(self) -> int:
        """How many models had at least one candidate."""
        return sum(1 for counts in self.counts.values() if counts[CANDIDATE])

    @property
    def remaining(self) -> int:
        """Candidates neither deleted nor kept by the re-check."""
        return self.total(CANDIDATE) - self.total(DELETED) - self.total(KEPT)

    @property
    def unmatched_ids(self) -> list[str]:
        """The ``--id`` values that selected no candidate."""
        return [value for value in self.scope.ids if value not in self.matched_ids]

    def log(self) -> None:
        """Write the run's audit line: database, mode and counts, no values."""
        logger.info(
            "frisian_mcp_cleanup run: database=%s mode=%s models=%d candidates=%d "
            "deleted=%d kept=%d failed=%d",
            self.using,
            "delete" if self.delete else "dry-run",
            len(self.counts),
            *map(self.total, STATUSES),
        )

    def _skip_reason(self, plan: ModelPlan) -> str | None:
        meta, scope = plan.model._meta, self.scope
        if plan.skip:
            return plan.skip
        if not router.allow_migrate(
            self.using, meta.app_label, model_name=meta.model_name
        ):
            return f"not stored on database {self.using!r} (database routers)"
        if (scope.created_after or scope.created_before) and not plan.created_field:
            return "no creation timestamp for --created-after/--created-before"
        if scope.ids and all(_id_lookup(plan.model, v) is None for v in scope.ids):
            return "no --id value fits its primary key"
        return None

    def _scan(self, plan: ModelPlan) -> Iterator[list[Candidate]]:
        """The plan's candidates in scope, in batches: keys and creation times."""
        rows, created, scope = plan.queryset(self.using), plan.created_field, self.scope
        lookups = filter(None, (_id_lookup(plan.model, v) for v in scope.ids))
        ids = [
            models.Q(pk=k) if exact else models.Q(pk__startswith=k)
            for exact, k in lookups
        ]
        rows = rows.filter(reduce(or_, ids)) if ids else rows
        if scope.created_after:
            rows = rows.filter(**{f"{created}__gte": scope.created_after})
        if scope.created_before:
            rows = rows.filter(**{f"{created}__lt": scope.created_before})
        # No ORDER BY: PostgreSQL would plan the cursor to walk the key index
        # and read the table in random order (docs/performance.md).
        rows = rows.order_by().values_list(*(["pk", created] if created else ["pk"]))
        cursor = rows.iterator(chunk_size=max(self.batch_size, FETCH_ROWS))
        while rows_ := list(itertools.islice(cursor, self.batch_size)):
            scanned = [Candidate(*row) for row in rows_]
            referenced = _generic_hits(plan, [c.pk for c in scanned], self.using)
            if batch := [c for c in scanned if c.pk not in referenced]:
                yield batch


def _generic_hits(plan: ModelPlan, pks: Collection[Any], using: str) -> set[Any]:
    """The keys among ``pks`` a generic foreign key names, in any text form."""
    if not plan.generic:
        return set()
    from django.contrib.contenttypes.models import ContentType

    chain = {plan.model, *plan.model._meta.get_parent_list()}
    kinds = [m._meta for m in apps.get_models() if m._meta.concrete_model in chain]
    names = (models.Q(app_label=m.app_label, model=m.model_name) for m in kinds)
    types = ContentType.objects.db_manager(using).filter(reduce(or_, names))
    found: set[Any] = set()
    for ref in plan.generic:
        object_id: Any = ref.model._meta.get_field(ref.fk_field)
        forms: dict[Any, Any] = {}  # each form the column may hold -> key
        for pk in pks:
            for form in (pk, pk.hex) if isinstance(pk, uuid.UUID) else (pk,):
                with contextlib.suppress(TypeError, ValueError, ValidationError):
                    forms.setdefault(object_id.to_python(form), pk)
        column, rows = object_id.attname, ref.model._base_manager.using(using)
        rows = rows.filter(**{f"{ref.ct_field}__in": types, f"{column}__in": [*forms]})
        found.update(
            forms[v] for v in rows.values_list(column, flat=True) if v in forms
        )
    return found


def delete_batch(
    plan: ModelPlan, batch: Sequence[Candidate], *, using: str
) -> tuple[list[Candidate], list[Candidate]]:
    """Delete the rows of ``batch`` that still qualify, in one transaction.

    The rows are locked (``SELECT ... FOR UPDATE`` where supported), checked
    again in a new statement, then deleted by ``QuerySet.delete()``. Returns
    the deleted and the kept candidates. Raises :class:`CleanupError`, rolled
    back, when the delete would remove any other row.
    """
    keys, rows = [c.pk for c in batch], plan.model._base_manager.using(using)
    with transaction.atomic(using=using):
        if connections[using].features.has_select_for_update:
            locked = rows.filter(pk__in=keys).select_for_update().order_by("pk")
            list(locked.values_list("pk"))
        still = plan.queryset(using).filter(pk__in=keys)
        gone = set(still.values_list("pk", flat=True))
        gone -= _generic_hits(plan, gone, using)
        _, counts = rows.filter(pk__in=gone).delete()
        own = {m._meta.label for m in (plan.model, *plan.model._meta.get_parent_list())}
        stray = sorted(label for label, n in counts.items() if n and label not in own)
        if stray or counts.get(plan.label, 0) != len(gone):
            stray_rows = ", ".join(stray) or plan.label
            raise CleanupError(
                f"deleting would also remove rows of {stray_rows}; rolled back"
            )
    deleted = [c for c in batch if c.pk in gone]
    for candidate in deleted:
        logger.info("frisian_mcp_cleanup deleted %s pk=%s", plan.label, candidate.pk)
    return deleted, [c for c in batch if c.pk not in gone]


def _first_line(exc: Exception) -> str:
    """The error's type and first line: later lines may quote row values."""
    # ProtectedError and RestrictedError hold the related objects in args[1].
    text = exc.args[0] if exc.args and isinstance(exc.args[0], str) else ""
    first = text.strip().splitlines()[0] if text.strip() else type(exc).__name__
    return f"{type(exc).__name__}: {first}"


def with_progress(
    err: OutputWrapper, batches: Iterable[Batch], verbosity: int
) -> Iterator[Batch]:
    """Pass ``batches`` on, writing a line to ``err`` every PROGRESS_INTERVAL s.

    Silent at verbosity 0; a last line closes a run that wrote any.
    """
    started = last = time.monotonic()
    counts, label = dict.fromkeys(STATUSES, 0), ""

    def line() -> str:
        done = ", ".join(f"{counts[s]:,} {s}" for s in STATUSES[1:])
        found, seconds = sum(counts.values()), time.monotonic() - started
        return f"frisian_mcp_cleanup: {label}: {found:,} found, {done}, {seconds:.1f}s"

    for plan, rows, status in batches:
        counts[status] += len(rows)  # each row comes once: found, or its outcome
        label = plan.label
        if verbosity and time.monotonic() - last >= PROGRESS_INTERVAL:
            last = time.monotonic()
            err.write(line(), style_func=str)
        yield plan, rows, status
    if verbosity and last != started:
        err.write(line() + " done", style_func=str)


def write_table(
    out: OutputWrapper,
    batches: Iterable[Batch],
    run: CleanupRun,
    verbosity: int = 1,
    *,
    outcome: bool = True,
) -> None:
    """Write a fixed-width line per row as batches come, then the outcome.

    The outcome (left out with ``outcome=False``) is each plan's rules at
    verbosity 2, what the run did and the ``--id`` values that matched nothing.
    """
    width = max([len("MODEL"), *(len(p.label) for p in run.plans)])
    line = f"{{:<{width}}}  {{:<36}}  {{:<25}}  {{:<9}}  {{}}".format
    header = [line("MODEL", "PK", "CREATED", "STATUS", "WHY")]
    for plan, rows, status in batches:
        cells = [(str(c.pk), _iso(c.created, "seconds") or "-") for c in rows]
        lines = [line(plan.label, pk, when, status, plan.reason) for pk, when in cells]
        out.write("\n".join(header + lines))
        header = []
    if not outcome:
        return
    for plan in run.plans if verbosity >= 2 else ():
        out.write(_describe(plan, run.skipped.get(plan.label)))
    found = run.total(CANDIDATE)
    if not found:
        out.write(f"No orphaned empty rows found in database {run.using!r}.")
    elif not run.delete:
        models_ = f"{run.models_found} model(s)"
        out.write(
            f"{found} orphaned empty row(s) in {models_}; dry run, nothing deleted (--delete deletes them)."
        )
    else:
        out.write(
            f"Deleted {run.total(DELETED)} of {found} orphaned empty row(s); "
            f"kept {run.total(KEPT)} that changed since the scan; {run.total(FAILED)} failed."
        )
    for value in run.unmatched_ids:
        out.write(f"--id {value} matched no orphaned empty row.")


def write_json(out: OutputWrapper, batches: Iterable[Batch], run: CleanupRun) -> None:
    """Write one JSON document, streamed: ``rows`` as they come, counts last."""
    head = {"database": run.using, "mode": "delete" if run.delete else "dry-run"}
    out.write(json.dumps(head)[:-1] + ', "rows": [', ending="")
    lead = "\n  "
    for plan, rows, status in batches:
        items = (
            {
                "model": plan.label,
                "pk": c.pk if isinstance(c.pk, int) else str(c.pk),
                "created": _iso(c.created),
                "status": status,
                "reason": plan.reason,
            }
            for c in rows
        )
        out.write(lead + ",\n  ".join(map(json.dumps, items)), ending="")
        lead = ",\n  "
    counts = {"candidates": run.total(CANDIDATE), DELETED: run.total(DELETED)}
    counts |= {KEPT: run.total(KEPT), FAILED: run.total(FAILED)}
    plans = [
        {
            "model": p.label,
            "skipped": run.skipped.get(p.label),
            "counts": run.counts.get(p.label, {}),
            "fields": {c.name: c.description for c in p.checks},
            "ignored": dict(p.ignored),
            "references": p.reference_labels,
            "created_field": p.created_field,
            "notes": list(p.notes),
        }
        for p in run.plans
    ]
    tail: dict[str, Any] = {"counts": counts | {"remaining": run.remaining}}
    tail |= {"models": plans, "errors": run.errors, "unmatched_ids": run.unmatched_ids}
    out.write("\n]," + json.dumps(tail, indent=1)[1:])


def _describe(plan: ModelPlan, skipped: str | None) -> str:
    if skipped:
        return f"{plan.label}: skipped, {skipped}."
    fields = "; ".join(f"{c.name} = {c.description}" for c in plan.checks)
    ignored = "; ".join(f"{name} ({why})" for name, why in plan.ignored) or "none"
    refs = ", ".join(plan.reference_labels) or "none"
    return f"{plan.label}: empty when {fields}. Not content: {ignored}. References checked: {refs}."


def _iso(moment: dt.date | None, timespec: str = "auto") -> str | None:
    if isinstance(moment, dt.datetime):
        return moment.isoformat(timespec=timespec)
    return None if moment is None else moment.isoformat()
