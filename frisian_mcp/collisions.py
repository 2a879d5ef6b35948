"""Collisions: which item and field of a create a unique constraint refused.

After an ``IntegrityError`` (and its rollback) the rows of the create are
checked against each other and against the stored rows on the model's
unique fields, ``unique_together`` and unconditional ``UniqueConstraint``\\ s,
so the ``conflict`` names the item index and the field, never the value
(issue 13, item 5).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any

from django.core.exceptions import FieldDoesNotExist, ValidationError
from django.db import DatabaseError, models
from django.db.models import Q

from frisian_mcp.types import FieldError

__all__ = ["find", "unique_sets"]

logger = logging.getLogger("frisian_mcp")

#: Rows compared with the stored ones per query.
_CHUNK = 100
#: Entries reported at most; the message says how many items collided.
_MAX_ENTRIES = 50


def unique_sets(
    model: type[models.Model], usable: Callable[[Any], object] = lambda field: True
) -> list[tuple[str, ...]]:
    """The model's sets of fields whose values must be unique together.

    ``usable`` narrows the single unique fields (a lookup object takes only
    those it can type); unique-together sets and constraints are kept.
    """
    opts = model._meta
    sets: list[tuple[str, ...]] = [
        (f.name,) for f in opts.concrete_fields if f.unique and usable(f)
    ]
    sets += [tuple(fields) for fields in opts.unique_together]
    sets += [tuple(c.fields) for c in opts.total_unique_constraints]
    return list(dict.fromkeys(sets))


def find(
    model: type[models.Model],
    rows: Sequence[Any],
    using: str,
    *,
    indexed: bool,
    labels: Mapping[str, str] | None = None,
) -> list[FieldError]:
    """Field errors naming the items of ``rows`` that collide, and the fields.

    ``rows`` map field names to values (validated data or the items sent);
    ``indexed`` adds each item's index; ``labels`` maps a model field to its
    argument name where the two differ. Empty when no collision is found:
    the conflict came from elsewhere (a foreign key, a check, the host).
    """
    found: list[FieldError] = []
    try:
        for fields in unique_sets(model):
            keys = [_key(model, row, fields) for row in rows]
            hits = _within(keys)
            hits.update(_stored(model, using, fields, keys, set(hits)))
            for index, other in sorted(hits.items()):
                names = tuple((labels or {}).get(f, f) for f in fields)
                found += _entries(names, index if indexed else None, other)
    except (DatabaseError, ValidationError, ValueError, TypeError) as exc:
        # The diagnosis is a courtesy: without it the conflict still stands.
        logger.info("Could not name the colliding field: %s", type(exc).__name__)
    return found[:_MAX_ENTRIES]


def _key(
    model: type[models.Model], row: Any, fields: tuple[str, ...]
) -> tuple[Hashable, ...] | None:
    """The row's values of ``fields`` as the database compares them, or None."""
    if not isinstance(row, Mapping) or not all(name in row for name in fields):
        return None
    values = []
    for name in fields:
        try:
            field = model._meta.get_field(name)
        except FieldDoesNotExist:
            return None
        value = row[name]
        if isinstance(value, models.Model):
            value = value.pk
        elif isinstance(field, models.ForeignKey):
            value = field.target_field.to_python(value)
        elif isinstance(field, models.Field):
            value = field.to_python(value)
        if value is None or not isinstance(value, Hashable):
            return None  # NULLs never collide; lists are no column values
        values.append(value)
    return tuple(values)


def _within(keys: list[tuple[Hashable, ...] | None]) -> dict[int, int | None]:
    """Index of each item equal to an earlier one -> that earlier index."""
    first: dict[tuple[Hashable, ...], int] = {}
    hits: dict[int, int | None] = {}
    for index, key in enumerate(keys):
        if key is None:
            continue
        if key in first:
            hits[index] = first[key]
        else:
            first[key] = index
    return hits


def _stored(
    model: type[models.Model],
    using: str,
    fields: tuple[str, ...],
    keys: list[tuple[Hashable, ...] | None],
    skip: set[int],
) -> dict[int, int | None]:
    """Index of each item whose values a stored row holds already -> None."""
    todo = [(i, key) for i, key in enumerate(keys) if key is not None and i not in skip]
    taken: set[tuple[Any, ...]] = set()
    manager = model._base_manager.using(using)
    for start in range(0, len(todo), _CHUNK):
        chunk = [key for _, key in todo[start : start + _CHUNK]]
        match = Q()
        for key in chunk:
            match |= Q(**dict(zip(fields, key, strict=True)))
        taken.update(manager.filter(match).values_list(*fields))
    return {i: None for i, key in todo if key in taken}


def _entries(
    fields: tuple[str, ...], index: int | None, other: int | None
) -> list[FieldError]:
    """One entry per field of the set, for one colliding item."""
    if other is None:
        clash = "is already taken by a stored row"
    else:
        clash = f"has the same value as item {other} of this bulk body"
    entries: list[FieldError] = []
    for name in fields:
        rest = ", ".join(f for f in fields if f != name)
        together = f"together with {rest}, " if rest else ""
        entry: FieldError = {
            "field": name,
            "code": "unique",
            "message": f"{together}{clash}; it must be unique",
        }
        entries.append(entry if index is None else {"index": index, **entry})
    return entries
