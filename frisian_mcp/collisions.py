"""Collisions: which rule of the database a write broke, and where.

:func:`violation` reads an ``IntegrityError``'s cause (a unique value, a
missing NOT NULL value, a foreign key, a check constraint) and the model
whose table refused the row from the driver's error: PostgreSQL's SQLSTATE
and diagnostics, SQLite's result code and message, never a value (issue 25,
item 13). After a unique violation (and its rollback) :func:`find` checks
the rows of a create against each other and against the stored rows on the
model's unique fields, ``unique_together`` and unconditional
``UniqueConstraint``\\ s, so the ``conflict`` names the item index and the
field, never the value (issue 13, item 5).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.apps import apps
from django.core.exceptions import FieldDoesNotExist, ValidationError
from django.db import DatabaseError, connection, models
from django.db.models import Q

from frisian_mcp.exceptions import few, plain_name
from frisian_mcp.types import FieldError, JSONObject

__all__ = ["Violation", "find", "unique_sets", "violation"]

logger = logging.getLogger("frisian_mcp")

#: Rows compared with the stored ones per query.
_CHUNK = 100
#: Entries reported at most; the message says how many items collided.
_MAX_ENTRIES = 50
#: The rule a write broke, by PostgreSQL SQLSTATE and SQLite extended code.
_RULES: dict[object, str] = {
    **{"23505": "unique", "23502": "not_null", "23503": "foreign_key"},
    **{"23514": "check", 2067: "unique", 1555: "unique", 1299: "not_null"},
    **{787: "foreign_key", 275: "check"},
}
#: SQLite's "NOT NULL constraint failed: table.column" (UNIQUE alike) and
#: "CHECK constraint failed: name": names of the schema, never a value.
_SQLITE_SUBJECT = re.compile(r"constraint failed: (?:(\w+)\.)?(\w+)")
_NOT_STORED = {
    "not_null": (
        "The database refused to store {row} without a value for {field} (NOT NULL).",
        "Send a value for {field} if this tool takes it; if it does not, the "
        "API fails to fill it in itself, as the same request over REST does.",
    ),
    "foreign_key": (
        "The database refused the change: {row} would refer to a row that "
        "does not exist (a foreign key), one it names or one being deleted.",
        "Check that each related row exists (the list tools find them), or "
        "delete the rows that refer to this one first.",
    ),
    "check": (
        "The database refused to store {row} that breaks its check constraint {field}.",
        "Change the values the constraint checks and call again.",
    ),
}


@dataclass(frozen=True)
class Violation:
    """The rule of the database a write broke, and the model that refused it.

    ``rule``: ``unique``, ``not_null``, ``foreign_key``, ``check``, or ``""``
    (another); ``field`` names the NOT NULL field or the check constraint.
    """

    rule: str = ""
    model: type[models.Model] | None = None
    field: str | None = None

    def unique_in(self, model: type[models.Model]) -> bool:
        """Whether a unique value of ``model`` may be why (not another
        table's row, such as one the view wrote itself)."""
        if self.rule not in ("unique", ""):
            return False
        return self.model is None or issubclass(model, self.model)

    def explain(
        self,
        message: str,
        hint: str | None,
        noun: str,
        conflicts: list[FieldError] | None = None,
    ) -> tuple[str, str | None, JSONObject]:
        """Message, hint and payload members of the conflict.

        ``message`` and ``hint`` are a conflict's, for a unique value or an
        unknown rule; ``noun`` names the tool's model, unless the model of
        the table that refused the row is known; ``conflicts``: the items
        and unique fields that collided (:func:`find`).
        """
        found: JSONObject = {"cause": self.rule} if self.rule else {}
        if self.model is not None:
            noun = found["model"] = str(self.model._meta.verbose_name)
        if conflicts:
            return (*_collided(message.format(noun=noun), conflicts), found)
        if self.rule not in _NOT_STORED:
            return message.format(noun=noun), hint, found
        row = f"a {noun} row" if self.model is not None else "a row"
        field = self.field or "one of its fields"
        message, hint = (
            text.format(row=row, field=field) for text in _NOT_STORED[self.rule]
        )
        return message, hint, found


def violation(exc: BaseException) -> Violation:
    """What an ``IntegrityError`` says, read from the driver's error (its
    ``__cause__``): PostgreSQL's SQLSTATE and diagnostics (table, column,
    constraint), or SQLite's extended result code and message."""
    cause = exc.__cause__
    state = getattr(cause, "sqlstate", None) or getattr(cause, "pgcode", None)
    if isinstance(state, str):
        rule = _RULES.get(state, "")
        diag = getattr(cause, "diag", None)
        names = ("table_name", "column_name", "constraint_name")
        table, column, constraint = (getattr(diag, name, None) for name in names)
    else:
        rule = _RULES.get(getattr(cause, "sqlite_errorcode", None), "")
        found = _SQLITE_SUBJECT.search(str(cause)) if rule else None
        table, column = (found[1], found[2]) if found else (None, None)
        constraint = column if rule == "check" else None
    model = _model_of(table, constraint)
    fields = model._meta.concrete_fields if model is not None else ()
    field = next((f.name for f in fields if f.column == column), None)
    if rule == "check":
        field = field or plain_name(constraint)
    return Violation(rule, model, field)


def _collided(message: str, conflicts: list[FieldError]) -> tuple[str, str]:
    """The conflict message and hint, naming colliding items and fields."""
    names = few(dict.fromkeys(f["field"] for f in conflicts))
    indexes = sorted({f["index"] for f in conflicts if "index" in f})
    if indexes:
        plural = "s" if len(indexes) > 1 else ""
        shown = few(indexes, 10)
        where = f"Item{plural} {shown} of the bulk body collide{'' if plural else 's'}"
    else:
        where = "The value collides"
    message = f"{message} {where} on a unique field ({names})."
    return message, (
        "Give each listed item values of its own for the listed fields (no two "
        "items alike, none already stored), then send the call again."
    )


def _model_of(table: str | None, check: str | None) -> type[models.Model] | None:
    """The model whose table is ``table``; or, without a table, the one model
    with the check constraint ``check`` (SQLite names a column's own check by
    the column)."""
    found = []
    for model in apps.get_models(include_auto_created=True):
        opts = model._meta
        if opts.proxy:
            continue
        if opts.db_table == table:
            return model
        if check is not None and (
            check in {c.name for c in opts.constraints}
            or any(f.column == check and f.db_check(connection) for f in opts.fields)
        ):
            found.append(model)
    return found[0] if len(found) == 1 else None


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
