"""Reports: how a cleanup run is shown while it runs.

:class:`TableReport` (fixed-width lines for people) and :class:`JSONReport`
(one JSON document for scripts, streamed: rows first, counts last) write to
stdout; :class:`Progress` writes throttled progress lines to stderr. Each
sees the rows batch by batch through :func:`both`, so a report of a million
rows never holds them all.
"""

from __future__ import annotations

import datetime as dt
import json
import time
import uuid
from collections.abc import Sequence
from typing import Any

from django.core.management.base import OutputWrapper

from frisian_mcp.cleanup.plans import ModelPlan
from frisian_mcp.cleanup.runner import (
    CANDIDATE,
    DELETED,
    FAILED,
    KEPT,
    Candidate,
    CleanupSummary,
    RowsCallback,
)

__all__ = ["JSONReport", "Progress", "Report", "TableReport", "both", "plain"]

#: Seconds between progress lines; the first comes after one interval, so
#: short runs print none.
PROGRESS_INTERVAL = 2.0


class Report:
    """Where rows and the summary go; subclasses render them."""

    def start(self, using: str, delete: bool) -> None:
        """The run begins."""

    def rows(self, plan: ModelPlan, rows: Sequence[Candidate], status: str) -> None:
        """One batch of rows with their status."""

    def finish(
        self, summary: CleanupSummary, plans: Sequence[ModelPlan], verbosity: int
    ) -> None:
        """The run is over."""


class TableReport(Report):
    """A fixed-width table, written as rows arrive, then a summary sentence."""

    def __init__(
        self, out: OutputWrapper, plans: Sequence[ModelPlan], hide: str | None = None
    ) -> None:
        self.out = out
        self.hide = hide
        self.width = max([len("MODEL"), *(len(p.label) for p in plans)])
        self.header = False

    def rows(self, plan: ModelPlan, rows: Sequence[Candidate], status: str) -> None:
        """Write one line per row (the header before the first)."""
        if status == self.hide:
            return
        lines = []
        if not self.header:
            self.header = True
            lines.append(self._line("MODEL", "PK", "CREATED", "STATUS", "WHY"))
        label, reason = plan.label, plan.reason
        for row in rows:
            created = "-" if row.created is None else _short_time(row.created)
            lines.append(self._line(label, str(row.pk), created, status, reason))
        self.out.write("\n".join(lines))

    def finish(
        self, summary: CleanupSummary, plans: Sequence[ModelPlan], verbosity: int
    ) -> None:
        """Write the counts, unmatched ids and, at -v 2, each model's rules."""
        if verbosity >= 2:
            for plan in plans:
                self.out.write(_describe_plan(plan, summary.skipped.get(plan.label)))
        found, models = summary.total(CANDIDATE), summary.models_found
        if not found:
            self.out.write(
                f"No orphaned empty rows found in database {summary.using!r}."
            )
        elif not summary.delete:
            self.out.write(
                f"{found} orphaned empty row(s) in {models} model(s); dry run, nothing "
                "deleted (--delete deletes them)."
            )
        else:
            self.out.write(
                f"Deleted {summary.total(DELETED)} of {found} orphaned empty row(s); "
                f"kept {summary.total(KEPT)} that changed since the scan; "
                f"{summary.total(FAILED)} failed."
            )
        for value in summary.unmatched_ids:
            self.out.write(f"--id {value} matched no orphaned empty row.")

    def _line(self, model: str, pk: str, created: str, status: str, why: str) -> str:
        return f"{model:<{self.width}}  {pk:<36}  {created:<25}  {status:<9}  {why}"


class JSONReport(Report):
    """One JSON document, streamed: rows first, counts and models last."""

    def __init__(self, out: OutputWrapper) -> None:
        self.out = out
        self.first = True

    def start(self, using: str, delete: bool) -> None:
        """Open the document and its ``rows`` array."""
        head = {"database": using, "mode": "delete" if delete else "dry-run"}
        self.out.write(json.dumps(head)[:-1] + ', "rows": [', ending="")

    def rows(self, plan: ModelPlan, rows: Sequence[Candidate], status: str) -> None:
        """Write each row as one array item on its own line."""
        # The same item as json.dumps() of a dict, with the parts shared by
        # the batch encoded once: a big table's report is mostly this loop.
        head = f'{{"model": {json.dumps(plan.label)}, "pk": '
        tail = (
            f', "status": {json.dumps(status)}, "reason": {json.dumps(plan.reason)}}}'
        )
        items = [
            f'{head}{_json_key(row.pk)}, "created": {_json_time(row.created)}{tail}'
            for row in rows
        ]
        if items:
            lead = "\n  " if self.first else ",\n  "
            self.out.write(lead + ",\n  ".join(items), ending="")
            self.first = False

    def finish(
        self, summary: CleanupSummary, plans: Sequence[ModelPlan], verbosity: int
    ) -> None:
        """Close ``rows`` and write the counts, models, errors and unmatched ids."""
        counts = {
            "candidates": summary.total(CANDIDATE),
            "deleted": summary.total(DELETED),
            "kept": summary.total(KEPT),
            "failed": summary.total(FAILED),
            "remaining": summary.remaining,
        }
        tail = {
            "counts": counts,
            "models": [_plan_document(p, summary) for p in plans],
            "errors": summary.errors,
            "unmatched_ids": summary.unmatched_ids,
        }
        self.out.write("\n]," + json.dumps(tail, indent=1)[1:])


class Progress:
    """Throttled progress lines on stderr; silent at verbosity 0."""

    def __init__(self, err: OutputWrapper, verbosity: int) -> None:
        self.err = err
        self.enabled = verbosity >= 1
        self.started = self.last = time.monotonic()
        self.counts = {CANDIDATE: 0, DELETED: 0, KEPT: 0, FAILED: 0}
        self.found = 0
        self.label = ""

    def rows(self, plan: ModelPlan, rows: Sequence[Candidate], status: str) -> None:
        """Count a batch; print a line when the interval has passed."""
        self.counts[status] += len(rows)
        self.found += len(rows)  # each row comes once: candidate, or its outcome
        self.label = plan.label
        now = time.monotonic()
        if self.enabled and now - self.last >= PROGRESS_INTERVAL:
            self.last = now
            self.err.write(self._line(now), style_func=plain)

    def done(self) -> None:
        """A last line, if any progress was shown."""
        if self.enabled and self.last != self.started:
            self.err.write(self._line(time.monotonic()) + " done", style_func=plain)

    def _line(self, now: float) -> str:
        c = self.counts
        return (
            f"frisian_mcp_cleanup: {self.label}: {self.found:,} found, "
            f"{c[DELETED]:,} deleted, {c[KEPT]:,} kept, {c[FAILED]:,} failed, "
            f"{now - self.started:.1f}s"
        )


def both(report: Report, progress: Progress) -> RowsCallback:
    """One callback feeding a batch to the report and to the progress lines."""

    def on_rows(plan: ModelPlan, rows: Sequence[Candidate], status: str) -> None:
        report.rows(plan, rows, status)
        progress.rows(plan, rows, status)

    return on_rows


def _json_key(pk: Any) -> str:
    if isinstance(pk, int):
        return str(pk)
    if isinstance(pk, uuid.UUID):  # hex digits and hyphens: nothing to escape
        return f'"{pk}"'
    return json.dumps(str(pk))


def _json_time(moment: dt.date | None) -> str:
    return "null" if moment is None else f'"{moment.isoformat()}"'


def _plan_document(plan: ModelPlan, summary: CleanupSummary) -> dict[str, Any]:
    return {
        "model": plan.label,
        "skipped": summary.skipped.get(plan.label),
        "counts": summary.counts.get(plan.label, {}),
        "fields": {c.name: c.description for c in plan.checks},
        "ignored": dict(plan.ignored),
        "references": list(plan.reference_labels),
        "created_field": plan.created_field,
        "notes": list(plan.notes),
    }


def _describe_plan(plan: ModelPlan, skipped: str | None) -> str:
    if skipped:
        return f"{plan.label}: skipped, {skipped}."
    fields = "; ".join(f"{c.name} = {c.description}" for c in plan.checks)
    ignored = "; ".join(f"{name} ({why})" for name, why in plan.ignored) or "none"
    refs = ", ".join(plan.reference_labels)
    return f"{plan.label}: empty when {fields}. Not content: {ignored}. References checked: {refs or 'none'}."


def _short_time(moment: dt.date) -> str:
    if isinstance(moment, dt.datetime):
        return moment.isoformat(timespec="seconds")
    return moment.isoformat()


def plain(text: str) -> str:
    """No styling: progress and prompts are plain text even on a terminal."""
    return text
