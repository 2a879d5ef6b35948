"""Bulk tools: the rows a list names, checked before the view; bulk creates.

A bulk tool's entries name rows by ``id`` (ADR 0033). Before the view's own
bulk action runs, every id must name one row of the view's queryset (REST
would skip an unknown id without a word) and, for an update, every entry
must pass the view's serializer for its row, so that an error names the
entry's index and field. ``mode: "validate"`` stops there, writing nothing. A bulk create runs as
the view's own create of a list, or item by item through a view's own
``create``; both report their progress per row (ADR 0044), as does a bulk
delete whose action deletes each row through the view's ``perform_destroy``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import mixins
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response

from frisian_mcp.exceptions import ToolExecutionError, ToolInputError, few
from frisian_mcp.jsonschema import plain
from frisian_mcp.notices import counted, report
from frisian_mcp.tools import Tool
from frisian_mcp.types import Call, ErrorCode, FieldError, Kind

__all__ = ["KINDS", "check", "create"]

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
        errors, total = [], len(entries)
        for entry, key in zip(entries, keys, strict=True):
            data = {name: value for name, value in entry.items() if name != "id"}
            serializer = view.get_serializer(rows[key], data=data, partial=partial)
            errors.append({} if serializer.is_valid() else serializer.errors)
            report(len(errors), total, "checked")
        if any(errors):
            raise ValidationError(errors)
    action = "update" if tool.kind == Kind.BULK_UPDATE else "delete"
    ids = [entry["id"] for entry in entries]
    call.notes.update(action=action, ids=ids, written=False)
    if tool.kind == Kind.BULK_DELETE and callable(
        getattr(view, "perform_destroy", None)
    ):
        # A bulk action that deletes row by row as a destroy would (drf-bulk's).
        view.perform_destroy = counted(view.perform_destroy, len(ids), "deleted")


def create(
    handler: Any,
    validate: Callable[[Any, str, Any], Any],
    request: Any,
    args: Any,
    kwargs: Any,
) -> Any:
    """Create ``handler.call.body``'s items: the view's own create of a list
    (a stock ``create``), else its ``create`` once per item, in one
    transaction; ``validate`` checks one item of a ``mode: "validate"`` call.
    """
    view, call = handler.view, handler.call
    items, total = call.body, len(call.body)
    if getattr(type(view), "create", None) is mixins.CreateModelMixin.create:
        serializer = view.get_serializer(data=items, many=True)
        serializer.is_valid(raise_exception=True)
        if call.validate_only:
            return Response({"count": total})
        handler.rows = serializer.validated_data
        fields = serializer.child.fields.items()
        handler.labels = {field.source: name for name, field in fields}
        serializer.child.create = counted(serializer.child.create, total, "created")
        view.perform_create(serializer)
        report(total, total, "created")  # a list serializer's own create
        return Response(serializer.data, status=201)
    created = []
    for index, item in enumerate(items):
        handler.index = index
        if call.validate_only:
            validate(view, request.method, item)
            continue
        request._full_data = item
        response = handler.original(request, *args, **kwargs)
        if response.status_code >= 400:
            return response
        created.append(response.data)
        report(index + 1, total, "created")
    handler.index = None
    return Response(created, status=200 if call.validate_only else 201)


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
