"""Scope: which rows of a plan a run looks at (``--id``, creation window).

An ``--id`` value is an exact key or the start of one: integer keys match
exactly (a prefix of a number means nothing), UUID and text keys by prefix.
A creation-time window needs a creation timestamp (an ``auto_now_add``
field, or a date field named ``created``, ``created_at``...).
"""

from __future__ import annotations

import datetime as dt
import itertools
import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from functools import reduce
from operator import or_
from typing import Any

from django.db import models, router

from frisian_mcp.cleanup.plans import ModelPlan
from frisian_mcp.exceptions import CleanupError

__all__ = [
    "Scope",
    "check_scope",
    "id_matches",
    "scoped_rows",
    "skip_reason",
]

_HEX = re.compile(r"[0-9a-f]+")
#: Where the hyphens of a canonical UUID go, as offsets into its 32 digits.
_UUID_CUTS = (0, 8, 12, 16, 20, 32)


@dataclass(frozen=True)
class Scope:
    """Which rows to look at: id prefixes and a creation-time window.

    ``created_after`` is inclusive, ``created_before`` exclusive, so
    consecutive windows never overlap.
    """

    ids: tuple[str, ...] = ()
    created_after: dt.datetime | None = None
    created_before: dt.datetime | None = None

    @property
    def dated(self) -> bool:
        """Whether a creation-time window was asked for."""
        return self.created_after is not None or self.created_before is not None


def scoped_rows(
    plan: ModelPlan, using: str, scope: Scope
) -> models.QuerySet[Any] | None:
    """The plan's rows within ``scope``; ``None`` when none can be."""
    rows = plan.queryset(using)
    if scope.ids:
        matches = [q for q in (_id_filter(plan.model, v) for v in scope.ids) if q]
        if not matches:
            return None
        rows = rows.filter(reduce(or_, matches))
    if scope.dated:
        if plan.created_field is None:
            return None
        if scope.created_after is not None:
            rows = rows.filter(**{f"{plan.created_field}__gte": scope.created_after})
        if scope.created_before is not None:
            rows = rows.filter(**{f"{plan.created_field}__lt": scope.created_before})
    return rows


def _key_field(model: type[models.Model]) -> models.Field[Any, Any]:
    pk: Any = model._meta.pk
    while pk.is_relation:  # a multi-table-inheritance child's link to its parent
        pk = pk.target_field
    return pk  # type: ignore[no-any-return]


def _id_lookup(model: type[models.Model], value: str) -> tuple[str, Any] | None:
    """``("exact", key)`` or ``("prefix", text)`` for ``--id value``.

    A UUID prefix is accepted with or without hyphens, in any case, and
    compared in the canonical hyphenated form (Django strips the hyphens
    again where UUIDs are stored as 32 hex digits). ``None`` when ``value``
    cannot be (the start of) a key of ``model``.
    """
    key = _key_field(model)
    value = value.strip()
    if isinstance(key, models.UUIDField):
        digits = value.replace("-", "").lower()
        if not 0 < len(digits) <= 32 or not _HEX.fullmatch(digits):
            return None
        if len(digits) == 32:
            return "exact", uuid.UUID(digits)
        pieces = (digits[a:b] for a, b in itertools.pairwise(_UUID_CUTS))
        return "prefix", "-".join(p for p in pieces if p)
    if isinstance(key, models.IntegerField):
        return ("exact", int(value)) if re.fullmatch(r"-?\d+", value) else None
    return ("prefix", value) if value else None


def _id_filter(model: type[models.Model], value: str) -> models.Q | None:
    lookup = _id_lookup(model, value)
    if lookup is None:
        return None
    kind, key = lookup
    return models.Q(pk=key) if kind == "exact" else models.Q(pk__startswith=key)


def id_matches(model: type[models.Model], pk: Any, value: str) -> bool:
    """Whether ``--id value`` selects the row ``pk`` of ``model``."""
    lookup = _id_lookup(model, value)
    if lookup is None:
        return False
    kind, key = lookup
    return bool(pk == key) if kind == "exact" else str(pk).startswith(key)


def check_scope(plans: Sequence[ModelPlan], scope: Scope, *, named: bool) -> None:
    """Raise :class:`CleanupError` for a scope that cannot apply as asked.

    An ``--id`` must fit the key of some model; a creation-time window needs
    a creation timestamp on every model the caller ``named``.
    """
    for position, value in enumerate(scope.ids, 1):
        if not any(_id_lookup(plan.model, value) is not None for plan in plans):
            # The value itself is not echoed: it is the caller's input.
            raise CleanupError(
                f"--id number {position} is not an id or id prefix of any model scanned."
            )
    undated = [p.label for p in plans if p.created_field is None]
    if scope.dated and named and undated:
        raise CleanupError(
            f"{', '.join(undated)} has no creation timestamp (an auto_now_add field or "
            "one named created/created_at), so --created-after/--created-before cannot apply."
        )


def skip_reason(plan: ModelPlan, using: str, scope: Scope) -> str | None:
    """Why the run does not scan ``plan``'s model, or ``None``."""
    meta = plan.model._meta
    if plan.skip:
        return plan.skip
    if not router.allow_migrate(using, meta.app_label, model_name=meta.model_name):
        return f"not stored on database {using!r} (database routers)"
    if scope.dated and plan.created_field is None:
        return "no creation timestamp for --created-after/--created-before"
    if scope.ids and all(_id_lookup(plan.model, v) is None for v in scope.ids):
        return "no --id value fits its primary key"
    return None
