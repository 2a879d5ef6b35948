"""Bulk updates and deletes: the rows a list names, checked before the view.

A bulk tool's entries name rows by ``id`` (ADR 0033). Before the view's own
bulk action runs, every id must name one row of the view's queryset (REST
would skip an unknown id without a word) and, for an update, every entry
must pass the view's serializer for its row, so that an error names the
entry's index and field. ``mode: "validate"`` stops there, writing nothing.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework.exceptions import ValidationError

from frisian_mcp.exceptions import ToolExecutionError, ToolInputError, few
from frisian_mcp.jsonschema import plain
from frisian_mcp.tools import Tool
from frisian_mcp.types import Call, ErrorCode, FieldError, Kind

__all__ = ["KINDS", "check"]

#: The kinds whose entries name rows by id.
KINDS = frozenset({Kind.BULK_UPDATE, Kind.BULK_DELETE})


def check(tool: Tool, view: Any, call: Call) -> None:
    """Check that every entry of ``call`` names a row it may change.

    Each entry's id becomes the row's key as JSON (``"12"`` becomes ``12``),
    as the view's bulk action compares ids with its rows' keys. The action
    and the ids join a ``mode: "validate"`` report (``call.notes``).

    Raises:
        ToolExecutionError: ``not_found``, naming each entry whose id names
            no row of the view's queryset.
        ToolInputError: ``invalid_bulk_body``, two entries name one row.
        ValidationError: the view's serializer refused entries; by index,
            as a list serializer reports them.
    """
    if not callable(getattr(view, "get_queryset", None)):
        return  # a view without a queryset decides alone
    entries: list[dict[str, Any]] = call.body
    queryset = view.get_queryset()
    keys = [_key(queryset.model, entry["id"]) for entry in entries]
    rows = {
        row.pk: row
        for row in queryset.filter(pk__in=[k for k in keys if k is not None])
    }
    missing = [index for index, key in enumerate(keys) if key not in rows]
    if missing:
        raise _not_found(tool, missing)
    counts = Counter(keys)
    twice = [index for index, key in enumerate(keys) if counts[key] > 1]
    if twice:
        raise ToolInputError(
            f"Entries {few(twice, 10)} name the same row; nothing was written.",
            code=ErrorCode.INVALID_BULK_BODY,
            tool=tool.name,
            fields=[
                _entry(i, "duplicate", "names a row another entry names") for i in twice
            ],
            hint="Send each row once, with every field to set for it.",
        )
    for entry, key in zip(entries, keys, strict=True):
        entry["id"] = plain(key)
    if tool.kind == Kind.BULK_UPDATE:
        partial = view.request.method == "PATCH"
        errors = []
        for entry, key in zip(entries, keys, strict=True):
            data = {name: value for name, value in entry.items() if name != "id"}
            serializer = view.get_serializer(rows[key], data=data, partial=partial)
            errors.append({} if serializer.is_valid() else serializer.errors)
        if any(errors):
            raise ValidationError(errors)
    action = "update" if tool.kind == Kind.BULK_UPDATE else "delete"
    ids = [entry["id"] for entry in entries]
    call.notes.update(action=action, ids=ids, written=False)


def _key(model: Any, value: Any) -> Any:
    """``value`` as the model's primary key, or ``None`` if it cannot be one."""
    try:
        return model._meta.pk.to_python(value)
    except (DjangoValidationError, TypeError, ValueError):
        return None


def _not_found(tool: Tool, missing: list[int]) -> ToolExecutionError:
    noun, _ = tool.nouns()
    which = "Entries {} name" if len(missing) > 1 else "Entry {} names"
    return ToolExecutionError(
        f"{which.format(few(missing, 10))} no {noun} that you may change "
        "(no such row, or not visible to you); nothing was written.",
        code=ErrorCode.NOT_FOUND,
        tool=tool.name,
        fields=[_entry(i, "not_found", f"names no {noun}") for i in missing],
        hint="Check the ids with the list tool, or leave those entries out.",
        recoverable=True,
    )


def _entry(index: int, code: str, message: str) -> FieldError:
    return {"index": index, "field": "id", "code": code, "message": message}
