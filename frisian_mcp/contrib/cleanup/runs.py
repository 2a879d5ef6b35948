"""Runs: scan by the plans in batches; delete each batch in one transaction
(docs/cleanup.md: the guarantees and the audit log)."""

from __future__ import annotations

import contextlib
import datetime as dt
import itertools
import logging
import re
import uuid
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass, field
from functools import reduce
from operator import or_
from typing import Any, NamedTuple, TypeAlias

from django.apps import apps
from django.core.exceptions import ValidationError
from django.db import DatabaseError, connections, models, router, transaction
from django.db.models.deletion import ProtectedError, RestrictedError

from frisian_mcp.contrib.cleanup.plans import ModelPlan
from frisian_mcp.exceptions import FrisianMCPError

__all__ = ["STATUSES", "Batch", "Candidate", "CleanupError", "CleanupRun", "Scope"]
__all__ += ["delete_batch", "id_lookup", "id_matches", "skip_reason"]

logger = logging.getLogger("frisian_mcp.cleanup")


class CleanupError(FrisianMCPError):
    """A cleanup batch would delete more than asked; it is rolled back."""


STATUSES = CANDIDATE, DELETED, KEPT, FAILED = ("candidate", "deleted", "kept", "failed")
FETCH_ROWS = 2000  # rows per round trip of the scan's cursor, at least a batch
# A batch that fails with one of these is rolled back and reported; the run goes on.
_BATCH_ERRORS = (CleanupError, DatabaseError, ProtectedError, RestrictedError)


class Candidate(NamedTuple):
    """One orphaned empty row: its key and creation time."""

    pk: Any
    created: dt.date | None = None


#: One handled batch: its plan, its rows and their status.
Batch: TypeAlias = tuple[ModelPlan, list[Candidate], str]


@dataclass(frozen=True)
class Scope:
    """Which rows to look at: ``--id`` values, ``[created_after, created_before)``."""

    ids: tuple[str, ...] = ()
    created_after: dt.datetime | None = None
    created_before: dt.datetime | None = None


def id_lookup(model: type[models.Model], value: str) -> tuple[bool, Any] | None:
    """(exact, key) for ``--id value``, or None when it fits no key of ``model``."""
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


def skip_reason(plan: ModelPlan, scope: Scope, using: str) -> str | None:
    """Why ``plan`` is not scanned on ``using`` for ``scope``, if it is not."""
    meta = plan.model._meta
    if plan.skip:
        return plan.skip
    if not router.allow_migrate(using, meta.app_label, model_name=meta.model_name):
        return f"not stored on database {using!r} (database routers)"
    if (scope.created_after or scope.created_before) and not plan.created_field:
        return "no creation timestamp for --created-after/--created-before"
    if scope.ids and all(id_lookup(plan.model, v) is None for v in scope.ids):
        return "no --id value fits its primary key"
    return None


def id_matches(model: type[models.Model], pk: Any, value: str) -> bool:
    """Whether ``--id value`` selects the row ``pk`` of ``model``."""
    lookup = id_lookup(model, value)
    if lookup is None:
        return False
    exact, key = lookup
    return str(pk) == str(key) if exact else str(pk).startswith(key)


@dataclass
class CleanupRun:
    """One pass over ``plans``: iterate it for the batches, then read its counts."""

    plans: Sequence[ModelPlan]
    scope: Scope
    using: str
    delete: bool = False
    batch_size: int = 500
    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    unmatched_ids: list[str] = field(default_factory=list)  # --id values unseen

    def __iter__(self) -> Iterator[Batch]:
        """Scan (and delete) plan by plan, yielding each batch as it is handled."""
        self.unmatched_ids = list(self.scope.ids)
        for plan in self.plans:
            if plan.skip:
                continue
            counts = self.counts[plan.label] = dict.fromkeys(STATUSES, 0)
            for batch in self._scan(plan):
                counts[CANDIDATE] += len(batch)
                self.unmatched_ids = [
                    v
                    for v in self.unmatched_ids
                    if not any(id_matches(plan.model, c.pk, v) for c in batch)
                ]
                outcome = [(batch, CANDIDATE)]
                if self.delete:
                    outcome = self._delete(plan, batch)
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

    def _delete(
        self, plan: ModelPlan, batch: list[Candidate]
    ) -> list[tuple[list[Candidate], str]]:
        try:
            deleted, kept = delete_batch(plan, batch, using=self.using)
        except _BATCH_ERRORS as exc:
            # The type and first line: later lines may quote row values, and
            # ProtectedError and RestrictedError hold the rows in args[1].
            text = exc.args[0] if exc.args and isinstance(exc.args[0], str) else ""
            first = next(iter(text.strip().splitlines()), type(exc).__name__)
            why = f"{type(exc).__name__}: {first}"
            self.errors.append(f"{plan.label}: {len(batch)} rows not deleted: {why}")
            return [(batch, FAILED)]
        return [(deleted, DELETED), (kept, KEPT)]

    def _scan(self, plan: ModelPlan) -> Iterator[list[Candidate]]:
        """The plan's candidates in scope, in batches: keys and creation times."""
        rows, created, scope = plan.queryset(self.using), plan.created_field, self.scope
        lookups = filter(None, (id_lookup(plan.model, v) for v in scope.ids))
        ids = [models.Q(pk=k) if x else models.Q(pk__startswith=k) for x, k in lookups]
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

    kinds = [m._meta for m in apps.get_models() if m._meta.concrete_model in plan.chain]
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
        fits = [v for v in forms if not isinstance(v, int) or v.bit_length() < 64]
        rows = rows.filter(**{f"{ref.ct_field}__in": types, f"{column}__in": fits})
        found.update(
            forms[v] for v in rows.values_list(column, flat=True) if v in forms
        )
    return found


def delete_batch(
    plan: ModelPlan, batch: Sequence[Candidate], *, using: str
) -> tuple[list[Candidate], list[Candidate]]:
    """Lock, re-check, delete what still qualifies: (deleted, kept); or roll back."""
    keys, rows = [c.pk for c in batch], plan.model._base_manager.using(using)
    with transaction.atomic(using=using):
        if connections[using].features.has_select_for_update:
            locked = rows.filter(pk__in=keys).select_for_update().order_by("pk")
            list(locked.values_list("pk"))
        still = plan.queryset(using).filter(pk__in=keys)
        gone = set(still.values_list("pk", flat=True))
        gone -= _generic_hits(plan, gone, using)
        _, counts = rows.filter(pk__in=gone).delete()
        own = {m._meta.label for m in plan.chain}
        stray = sorted(label for label, n in counts.items() if n and label not in own)
        if stray or counts.get(plan.label, 0) != len(gone):
            why = f"would also remove rows of {', '.join(stray) or plan.label}"
            raise CleanupError(f"deleting {why}; rolled back")
    deleted = [c for c in batch if c.pk in gone]
    for candidate in deleted:
        logger.info("frisian_mcp_cleanup deleted %s pk=%s", plan.label, candidate.pk)
    return deleted, [c for c in batch if c.pk not in gone]
