"""Runner: stream the candidates of each plan, delete them batch by batch.

:func:`iter_candidates` reads the rows a plan matches with one streamed query;
:func:`delete_batch` deletes one batch in its own transaction after locking
the rows and checking both conditions again; :func:`run_cleanup` ties them
together, counts, and writes the audit log (logger ``frisian_mcp.cleanup``:
one line per run with the counts, one per deleted row with model and key,
never a field value).
"""

from __future__ import annotations

import datetime as dt
import logging
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import reduce
from operator import or_
from typing import Any

from django.apps import apps
from django.core.exceptions import EmptyResultSet, FullResultSet, ValidationError
from django.db import DatabaseError, IntegrityError, connections, models, transaction
from django.db.models import signals
from django.db.models.deletion import ProtectedError, RestrictedError
from django.db.models.sql.subqueries import DeleteQuery

from frisian_mcp.cleanup.plans import ModelPlan
from frisian_mcp.cleanup.scope import Scope, id_matches, scoped_rows, skip_reason
from frisian_mcp.exceptions import CleanupError

__all__ = [
    "CANDIDATE",
    "DELETED",
    "FAILED",
    "KEPT",
    "Candidate",
    "CleanupSummary",
    "RowsCallback",
    "delete_batch",
    "generically_referenced",
    "iter_candidates",
    "log_summary",
    "run_cleanup",
]

logger = logging.getLogger("frisian_mcp.cleanup")

#: Rows fetched from the scan's cursor per round trip (at least a batch):
#: a few hundred kilobytes of keys, whatever the table size.
FETCH_ROWS = 2000

#: Row statuses in a cleanup report.
CANDIDATE, DELETED, KEPT, FAILED = "candidate", "deleted", "kept", "failed"


@dataclass(frozen=True)
class Candidate:
    """One orphaned empty row: its model label, key and creation time."""

    label: str
    pk: Any
    created: dt.datetime | dt.date | None = None


def iter_candidates(
    plan: ModelPlan,
    *,
    using: str,
    scope: Scope,
    batch_size: int,
    types: Sequence[Any] | None = None,
) -> Iterator[list[Candidate]]:
    """Stream the plan's candidates in batches of at most ``batch_size``.

    One SQL query selecting only the key (and creation time), read with
    ``iterator()`` (:data:`FETCH_ROWS` rows per round trip): a server-side
    cursor on PostgreSQL, chunked reads on SQLite, so memory holds a chunk
    and one batch whatever the table size. Rows come in
    storage order: an ``ORDER BY`` would make PostgreSQL plan the cursor for
    a fast start, walking the key index and fetching the table in random
    order (ten times slower than a sequential scan on a million rows).
    Deleting rows already read while the query is open is safe: the cursor
    has passed them, and each delete re-checks its rows. Rows a generic
    foreign key points at are dropped batch by batch; ``types`` are the
    plan's content type ids (``_content_types``), looked up once here
    when not given.
    """
    rows = None if plan.skip else scoped_rows(plan, using, scope)
    if rows is None:
        return
    if types is None:
        types = _content_types(plan, using)
    columns = ["pk", plan.created_field] if plan.created_field else ["pk"]
    label = plan.label
    batch: list[Candidate] = []
    fetch = max(batch_size, FETCH_ROWS)
    for row in rows.order_by().values_list(*columns).iterator(chunk_size=fetch):
        batch.append(Candidate(label, *row))
        if len(batch) >= batch_size:
            yield from _unreferenced(plan, batch, using, types)
            batch = []
    if batch:
        yield from _unreferenced(plan, batch, using, types)


def _unreferenced(
    plan: ModelPlan, batch: list[Candidate], using: str, types: Sequence[Any]
) -> Iterator[list[Candidate]]:
    referenced = generically_referenced(plan, [c.pk for c in batch], using, types)
    kept = [c for c in batch if c.pk not in referenced]
    if kept:
        yield kept


def _content_types(plan: ModelPlan, using: str) -> list[Any]:
    """Ids of the content types a generic foreign key to a plan's row may name.

    The types of the model, its proxies and its multi-table-inheritance
    parents (and their proxies); empty when the plan has no generic foreign
    key to check, or no such content type exists yet.
    """
    if not plan.generic:
        return []
    from django.contrib.contenttypes.models import ContentType

    concrete = {plan.model, *plan.model._meta.get_parent_list()}
    names = [
        (m._meta.app_label, m._meta.model_name)
        for m in apps.get_models()
        if m._meta.concrete_model in concrete
    ]
    where = reduce(or_, (models.Q(app_label=a, model=n) for a, n in names))
    return list(
        ContentType.objects.db_manager(using).filter(where).values_list("pk", flat=True)
    )


def generically_referenced(
    plan: ModelPlan,
    pks: Iterable[Any],
    using: str,
    types: Sequence[Any] | None = None,
) -> set[Any]:
    """The keys among ``pks`` that a generic foreign key points at.

    An object id column may hold a key in any textual form (a UUID with or
    without hyphens), which SQL cannot compare portably with the key column,
    so the forms are computed here and looked up with one ``IN`` query per
    generic foreign key. ``types`` are the plan's content type ids
    (``_content_types``); when ``None`` or empty they are looked up again
    (a content type created since, by the first generic reference to the
    model, must not be missed).
    """
    pks = list(pks)
    if not plan.generic or not pks:
        return set()
    if not types:
        types = _content_types(plan, using)
    found: set[Any] = set()
    for ref in plan.generic:
        keys: dict[Any, Any] = {}
        for pk in pks:
            for form in (pk, pk.hex) if isinstance(pk, uuid.UUID) else (pk,):
                try:
                    keys.setdefault(ref.object_id.to_python(form), pk)
                except (TypeError, ValueError, ValidationError):
                    continue
        if keys and types:
            rows = ref.model._base_manager.using(using).filter(
                **{
                    f"{ref.ct_attname}__in": types,
                    f"{ref.object_id.attname}__in": list(keys),
                }
            )
            found.update(
                keys[k]
                for k in rows.values_list(ref.object_id.attname, flat=True)
                if k in keys
            )
    return found


def delete_batch(
    plan: ModelPlan,
    batch: Sequence[Candidate],
    *,
    using: str,
    types: Sequence[Any] | None = None,
) -> tuple[list[Candidate], list[Candidate]]:
    """Delete the rows of ``batch`` that still qualify, in one transaction.

    Both conditions are checked again inside the transaction, so a row that
    gained content or a reference since the scan is kept. Two ways:

    * **One statement**: ``DELETE ... WHERE <key in batch> AND <empty> AND
      NOT EXISTS <reference> ... RETURNING <key>``. This is what
      ``QuerySet.delete()`` itself runs when there is nothing to collect, and
      it is used under the same conditions (no delete signal receivers, no
      multi-table inheritance, no generic relation), when every reference is
      enforced by the database, on PostgreSQL and SQLite. A row updated
      while the statement waited for its lock is checked again on its new
      version; a reference committed meanwhile makes the foreign key check
      fail the transaction, and the batch is then done the second way.
    * **Lock, check, delete**: lock the rows (``SELECT ... FOR UPDATE`` where
      the database has it), then check them in a new statement (under READ
      COMMITTED it sees what committed while the locks were awaited; a
      reference inserted later waits for this transaction and then fails),
      then ``QuerySet.delete()`` with its signals and cascades, rolled back
      if it would remove any row but the candidates and their
      multi-table-inheritance parents.

    Generic foreign keys have no database constraint, so for them the
    re-check is only as recent as the statement that makes it: a generic
    reference committed after that check and before the ``DELETE`` does not
    stop it (the foreign-key guarantees above do not apply). ``types`` are
    the plan's content type ids (``_content_types``), looked up when not
    given.

    Returns:
        The deleted candidates and the kept ones.

    Raises:
        CleanupError: the delete would have cascaded (rolled back).
        django.db.DatabaseError, ProtectedError, RestrictedError: likewise.
    """
    keys = [c.pk for c in batch]
    if types is None:
        types = _content_types(plan, using)
    gone: set[Any] | None = None
    if _plain_delete(plan, using):
        try:
            with transaction.atomic(using=using):
                gone = _delete_returning(plan, keys, using, types=types)
        except IntegrityError:
            gone = None
    if gone is None:
        with transaction.atomic(using=using):
            gone = _lock_check_delete(plan, keys, using, types)
    deleted = [c for c in batch if c.pk in gone]
    for candidate in deleted:
        logger.info("frisian_mcp_cleanup deleted %s pk=%s", plan.label, candidate.pk)
    return deleted, [c for c in batch if c.pk not in gone]


def _plain_delete(plan: ModelPlan, using: str) -> bool:
    """Whether one ``DELETE ... RETURNING`` may delete the plan's rows."""
    model, connection = plan.model, connections[using]
    return (
        connection.vendor in ("postgresql", "sqlite")
        and connection.features.can_return_columns_from_insert
        and not model._meta.parents
        and not signals.pre_delete.has_listeners(model)
        and not signals.post_delete.has_listeners(model)
        and not any(
            hasattr(f, "bulk_related_objects") for f in model._meta.private_fields
        )
        and all(ref.enforced for ref in plan.references)
    )


def _delete_returning(
    plan: ModelPlan, keys: list[Any], using: str, *, types: Sequence[Any]
) -> set[Any] | None:
    """Run the one-statement delete; ``None`` if it cannot be one plain DELETE."""
    referenced = generically_referenced(plan, keys, using, types)
    keys = [k for k in keys if k not in referenced]
    pk = plan.model._meta.pk
    if not keys or pk is None or pk.column is None:
        return set() if not keys else None
    connection = connections[using]
    # On PostgreSQL the keys go as one array parameter: psycopg binds it in C
    # and the statement text is the same for every batch, where 500 ``IN``
    # placeholders are parsed and quoted one by one in Python.
    array = connection.vendor == "postgresql"
    rows = plan.queryset(using) if array else plan.queryset(using).filter(pk__in=keys)
    query = rows.query.chain(DeleteQuery)
    compiler = query.get_compiler(using)
    if not compiler.single_alias:  # a join: would need DELETE ... IN (SELECT ...)
        return None
    try:
        where, where_params = compiler.compile(query.where)
    except (EmptyResultSet, FullResultSet):
        return None
    quote = connection.ops.quote_name
    table, column = quote(plan.model._meta.db_table), quote(pk.column)
    params = list(where_params)
    if array:
        where = f"({where}) AND {table}.{column} = ANY(%s)"
        params.append([pk.get_db_prep_value(k, connection) for k in keys])
    with connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {table} WHERE {where} RETURNING {column}", params)
        return {pk.to_python(row[0]) for row in cursor.fetchall()}


def _lock_check_delete(
    plan: ModelPlan, keys: list[Any], using: str, types: Sequence[Any]
) -> set[Any]:
    """The careful delete, inside the caller's transaction; return the keys deleted."""
    rows = plan.model._base_manager.using(using)
    if connections[using].features.has_select_for_update:
        locked = rows.filter(pk__in=keys).order_by("pk").select_for_update()
        list(locked.values_list("pk", flat=True))
    still = set(plan.queryset(using).filter(pk__in=keys).values_list("pk", flat=True))
    still -= generically_referenced(plan, still, using, types)
    if not still:
        return still
    _, counts = rows.filter(pk__in=still).delete()
    allowed = {m._meta.label for m in (plan.model, *plan.model._meta.get_parent_list())}
    stray = sorted(label for label, n in counts.items() if n and label not in allowed)
    if stray or counts.get(plan.label, 0) != len(still):
        raise CleanupError(
            f"deleting would also remove rows of {', '.join(stray) or plan.label}; "
            "rolled back"
        )
    return still


@dataclass
class CleanupSummary:
    """Counts of one run per model label, models skipped, batch errors."""

    using: str
    delete: bool
    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)
    ids: tuple[str, ...] = ()
    matched_ids: set[str] = field(default_factory=set)

    def total(self, status: str) -> int:
        """Rows with ``status`` over every model (``candidate``: all found)."""
        return sum(c.get(status, 0) for c in self.counts.values())

    @property
    def models_found(self) -> int:
        """How many models had at least one candidate."""
        return sum(1 for c in self.counts.values() if c.get(CANDIDATE, 0))

    @property
    def unmatched_ids(self) -> list[str]:
        """The ``--id`` values that selected no candidate."""
        return [value for value in self.ids if value not in self.matched_ids]

    @property
    def remaining(self) -> int:
        """Candidates found and neither deleted nor cleared by the re-check."""
        return self.total(CANDIDATE) - self.total(DELETED) - self.total(KEPT)


#: Called with the plan, rows of one batch and their status.
RowsCallback = Callable[[ModelPlan, Sequence[Candidate], str], None]


def run_cleanup(
    plans: Sequence[ModelPlan],
    *,
    using: str,
    scope: Scope,
    batch_size: int = 500,
    delete: bool = False,
    on_rows: RowsCallback | None = None,
    audit: bool = True,
) -> CleanupSummary:
    """Scan every plan; with ``delete``, delete batch by batch.

    ``on_rows`` sees every batch as it is handled (status ``candidate`` in a
    dry run; ``deleted``, ``kept`` or ``failed`` with ``delete``), so a
    caller can stream a report. A batch that fails to delete (a database
    error, a protected or cascading relation) is rolled back and reported in
    ``errors``; the run goes on. With ``audit`` the run's counts are logged
    (:func:`log_summary`).
    """
    summary = CleanupSummary(using, delete, ids=scope.ids)
    for plan in plans:
        reason = skip_reason(plan, using, scope)
        if reason is not None:
            summary.skipped[plan.label] = reason
            continue
        counts = summary.counts.setdefault(
            plan.label, {CANDIDATE: 0, DELETED: 0, KEPT: 0, FAILED: 0}
        )
        types = _content_types(plan, using)
        for batch in iter_candidates(
            plan, using=using, scope=scope, batch_size=batch_size, types=types
        ):
            counts[CANDIDATE] += len(batch)
            pending = [v for v in scope.ids if v not in summary.matched_ids]
            summary.matched_ids.update(
                v
                for v in pending
                if any(id_matches(plan.model, c.pk, v) for c in batch)
            )
            outcome: list[tuple[Sequence[Candidate], str]] = [(batch, CANDIDATE)]
            if delete:
                try:
                    deleted, kept = delete_batch(plan, batch, using=using, types=types)
                except (
                    CleanupError,
                    DatabaseError,
                    ProtectedError,
                    RestrictedError,
                ) as exc:
                    summary.errors.append(
                        f"{plan.label}: {len(batch)} rows not deleted: {_describe(exc)}"
                    )
                    outcome = [(batch, FAILED)]
                else:
                    outcome = [(deleted, DELETED), (kept, KEPT)]
            for rows, status in outcome:
                if status != CANDIDATE:
                    counts[status] += len(rows)
                if rows and on_rows is not None:
                    on_rows(plan, rows, status)
    if audit:
        log_summary(summary)
    return summary


def log_summary(summary: CleanupSummary) -> None:
    """Write the run's audit line: database, mode and counts, no values."""
    logger.info(
        "frisian_mcp_cleanup run: database=%s mode=%s models=%d candidates=%d "
        "deleted=%d kept=%d failed=%d",
        summary.using,
        "delete" if summary.delete else "dry-run",
        len(summary.counts),
        summary.total(CANDIDATE),
        summary.total(DELETED),
        summary.total(KEPT),
        summary.total(FAILED),
    )


def _describe(exc: Exception) -> str:
    # ProtectedError and RestrictedError carry the related objects as a second
    # argument; their str() would show field values. A database error's
    # message may too, after its first line (PostgreSQL's "DETAIL:  Key
    # (id)=(...)"): only that first line is kept.
    message = (
        exc.args[0] if exc.args and isinstance(exc.args[0], str) else type(exc).__name__
    )
    first = message.strip().splitlines()[0] if message.strip() else ""
    return f"{type(exc).__name__}: {first or type(exc).__name__}"
