"""Cleanup: find, and on request delete, orphaned empty rows of exposed models.

Before the nested-wrapper guard (ADR 0002), a REST-style ``{"data": {...}}``
call created rows holding nothing the caller sent. A row is an *orphaned
empty record* when

* a create tool of the registry writes its model (never any other model);
* every model field the create serializer writes holds no content: NULL,
  ``""`` or the field's default (:func:`field_check` has the rules for
  callable defaults); primary keys, auto fields, automatic timestamps and
  generated values are not content; and
* no row refers to it: reverse foreign keys and one-to-ones, many-to-many
  rows on either side, and generic foreign keys.

``manage.py frisian_mcp_cleanup`` is a thin CLI over this package;
docs/cleanup.md describes it.

Files:

* ``plans.py``  ``build_plans``: each exposed model as a ``ModelPlan`` whose
  SQL filters say "empty" and "orphaned".
* ``scope.py``  ``Scope``: ``--id`` prefixes and the creation-time window.
* ``runner.py`` ``iter_candidates`` (streamed scan), ``delete_batch`` (one
  transaction per batch, both conditions re-checked), ``run_cleanup`` and
  the audit log (logger ``frisian_mcp.cleanup``).
* ``reports.py`` the table, the JSON document and the progress lines the
  command writes while a run streams.

Invalid options and refused deletes raise
:class:`frisian_mcp.exceptions.CleanupError`, re-exported here.
"""

from __future__ import annotations

from frisian_mcp.cleanup.plans import (
    FieldCheck,
    GenericReference,
    ModelPlan,
    Reference,
    build_plan,
    build_plans,
    field_check,
)
from frisian_mcp.cleanup.runner import (
    CANDIDATE,
    DELETED,
    FAILED,
    KEPT,
    Candidate,
    CleanupSummary,
    RowsCallback,
    delete_batch,
    generically_referenced,
    iter_candidates,
    log_summary,
    run_cleanup,
)
from frisian_mcp.cleanup.scope import (
    Scope,
    check_scope,
    id_matches,
    scoped_rows,
    skip_reason,
)
from frisian_mcp.exceptions import CleanupError

__all__ = [
    "CANDIDATE",
    "DELETED",
    "FAILED",
    "KEPT",
    "Candidate",
    "CleanupError",
    "CleanupSummary",
    "FieldCheck",
    "GenericReference",
    "ModelPlan",
    "Reference",
    "RowsCallback",
    "Scope",
    "build_plan",
    "build_plans",
    "check_scope",
    "delete_batch",
    "field_check",
    "generically_referenced",
    "id_matches",
    "iter_candidates",
    "log_summary",
    "run_cleanup",
    "scoped_rows",
    "skip_reason",
]
