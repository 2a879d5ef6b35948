"""What a confirmed call would do: the record, and what its delete takes along.

The dependents are found as the Django admin's delete page finds them: a
:class:`~django.db.models.deletion.Collector` walks the row's relations by
their ``on_delete`` (cascades, SET_NULL updates, PROTECT and RESTRICT) and
nothing is deleted. No summary quotes a caller's value: the record's text
goes through the core's :class:`~frisian_mcp.redaction.Redactor`.
"""

from __future__ import annotations

import hashlib
import logging
from collections import Counter
from collections.abc import Iterable
from typing import Any

from django.db import models, router
from django.db.models.deletion import Collector, ProtectedError, RestrictedError

from frisian_mcp.exceptions import HostError, host_call
from frisian_mcp.redaction import Redactor
from frisian_mcp.tools import Tool
from frisian_mcp.types import Call, JSONObject, Kind

__all__ = ["record_of", "state_of", "summarise"]

logger = logging.getLogger("frisian_mcp")
#: Kinds whose summary names the action with a verb of its own.
_VERBS = {Kind.DELETE: "delete", Kind.UPDATE: "update", Kind.CREATE: "create"}
_VERBS |= {Kind.BULK_DELETE: "delete", Kind.BULK_UPDATE: "update"}


def record_of(view: Any, call: Call) -> models.Model | None:
    """The row the call names, found as the view finds it (404 and object
    permissions as over REST); ``None`` for a call that names no row."""
    if not call.path_kwargs or not hasattr(view, "get_object"):
        return None
    found = view.get_object()
    return found if isinstance(found, models.Model) else None


def state_of(record: models.Model | None) -> str | None:
    """A digest of the row's stored values: a token is good for this state only."""
    if record is None:
        return None
    values = (
        f"{f.attname}={f.value_from_object(record)!r}"
        for f in record._meta.concrete_fields
    )
    return hashlib.sha256("\x00".join(values).encode()).hexdigest()[:32]


def summarise(tool: Tool, record: models.Model | None, call: Call) -> JSONObject:
    """What the call would do, for the person who confirms it."""
    noun, plural = tool.nouns()
    summary: JSONObject = {"action": _VERBS.get(tool.kind, tool.endpoint.action)}
    summary["tool"], summary["model"] = tool.name, noun
    if call.bulk and isinstance(call.body, list):  # a bulk body: how many rows
        summary["model"], summary["count"] = plural, len(call.body)
    if record is not None:
        redact = Redactor([call.arguments, call.path_kwargs], call.input_schema)
        text = _host_text(tool, lambda: str(record))
        summary["record"] = redact(text) if text is not None else None
    if record is not None and tool.kind == Kind.DELETE:
        summary.update(_dependents(tool, record))
    summary["message"] = _sentence(summary)
    return summary


def _dependents(tool: Tool, record: models.Model) -> JSONObject:
    """The rows the delete would take along, update, or be blocked by."""
    using = router.db_for_write(type(record), instance=record)
    collector = Collector(using=using, origin=record)
    try:
        host_call(collector.collect, [record])
    except HostError as exc:
        if isinstance(exc.error, ProtectedError | RestrictedError):
            blocked: Iterable[Any] = getattr(exc.error, "protected_objects", ())
            blocked = blocked or getattr(exc.error, "restricted_objects", ())
            return {"blocked_by": _counted((type(o), 1) for o in blocked)}
        _warn(tool, exc)
        return {"dependents": None}
    deleted: Counter[type[models.Model]] = Counter()
    for model, rows in collector.data.items():
        deleted[model] += len(rows)
    deleted[type(record)] -= 1  # the record itself
    for query in collector.fast_deletes:
        deleted[query.model] += query.count()
    updated: Counter[type[models.Model]] = Counter()
    for (field, _value), queries in collector.field_updates.items():
        updated[field.model] += sum(_size(q) for q in queries)
    found: JSONObject = {"deleted_with": _counted(deleted.items())}
    if updated:
        found["unlinked"] = _counted(updated.items())
    return found


def _size(rows: Any) -> int:
    return rows.count() if isinstance(rows, models.QuerySet) else len(rows)


def _counted(pairs: Iterable[tuple[type[models.Model], int]]) -> list[JSONObject]:
    totals: Counter[str] = Counter()
    for model, count in pairs:
        totals[str(model._meta.verbose_name_plural)] += count
    return [{"model": m, "count": n} for m, n in sorted(totals.items()) if n > 0]


def _sentence(summary: JSONObject) -> str:
    """One sentence a person can answer yes or no to."""
    verb, record = str(summary["action"]), summary.get("record")
    target = f"{summary['model']} «{record}»" if record else str(summary["model"])
    if "count" in summary:
        target = f"{summary['count']} {summary['model']}"
    text = f"{verb.capitalize()} {target}"
    parts = [f"{d['count']} {d['model']}" for d in summary.get("deleted_with", ())]
    if parts:
        text += ", and with it " + ", ".join(parts)
    unlinked = [f"{d['count']} {d['model']}" for d in summary.get("unlinked", ())]
    if unlinked:
        text += " (unlinking " + ", ".join(unlinked) + ")"
    blocked = [f"{d['count']} {d['model']}" for d in summary.get("blocked_by", ())]
    if blocked:
        text += "; the database will refuse it while " + ", ".join(blocked)
        text += " refer to it"
    return text + "?"


def _host_text(tool: Tool, text: Any) -> str | None:
    try:
        return str(host_call(text))[:200]
    except HostError as exc:
        _warn(tool, exc)
        return None


def _warn(tool: Tool, exc: HostError) -> None:
    view = tool.endpoint.view_class
    logger.warning(
        "Confirmation of %s: %s.%s raised %s while it was summarised",
        tool.name,
        view.__module__,
        view.__qualname__,
        type(exc.error).__name__,
    )
