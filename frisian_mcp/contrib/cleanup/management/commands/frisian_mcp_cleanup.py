"""``manage.py frisian_mcp_cleanup``: report, or delete, orphaned empty rows.

Exit codes: 0 done, 1 an error, 2 rows found and not deleted under
``--fail-if-found``. docs/cleanup.md describes the options and the reports.
"""

from __future__ import annotations

import collections
import datetime as dt
import json
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from typing import Any

from django.apps import apps
from django.conf import settings
from django.core.management.base import (
    BaseCommand,
    CommandError,
    CommandParser,
    OutputWrapper,
)
from django.db import DEFAULT_DB_ALIAS, connections, models
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from frisian_mcp.contrib.cleanup.plans import ModelPlan, build_plan, exposed_models
from frisian_mcp.contrib.cleanup.runs import (
    STATUSES,
    Batch,
    CleanupRun,
    Scope,
    id_lookup,
    skip_reason,
)

__all__ = ["Command", "write_json", "write_table"]

CANDIDATE, DELETED, KEPT, FAILED = STATUSES
MAX_BATCH_SIZE = 10_000
PROGRESS_INTERVAL = 2.0  # seconds between progress lines; short runs print none


class Command(BaseCommand):
    """Find orphaned empty rows of exposed models; delete them on request."""

    help = (
        "Find rows of models exposed through frisian_mcp whose every writable field "
        "is empty or default and that nothing references (left behind by REST-style "
        "wrapper calls, ADR 0002). Dry run by default; --delete deletes them."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        """Declare the options (docs/cleanup.md describes each)."""
        add = parser.add_argument
        # fmt: off
        add("--model", action="append", default=[], metavar="APP_LABEL.MODEL",
            help="Only this exposed model (repeatable). Default: every exposed model.")
        add("--id", action="append", default=[], dest="ids", metavar="ID",
            help="Only rows with this id, or whose UUID/text id starts with it "
            "(repeatable), e.g. --id 6b7e67eb.")
        add("--created-after", metavar="WHEN",
            help="Only rows created at or after WHEN (ISO date or date-time; "
            "models without a creation timestamp are skipped).")
        add("--created-before", metavar="WHEN",
            help="Only rows created before WHEN (ISO date or date-time).")
        add("--delete", action="store_true",
            help="Delete the candidates (after confirmation unless --yes).")
        add("--yes", "--no-input", "--noinput", action="store_false", dest="interactive",
            help="Do not ask for confirmation before deleting.")
        add("--batch-size", type=int, default=500,
            help="Rows deleted per transaction (default 500, at most 10000).")
        add("--format", choices=("table", "json"), default="table",
            help="table (default) for people, json (one document) for scripts.")
        add("--fail-if-found", action="store_true",
            help="Exit with status 2 when candidates remain undeleted (monitoring).")
        add("--database", default=DEFAULT_DB_ALIAS,
            help='The database alias to clean (default "default").')
        # fmt: on

    def handle(self, *args: Any, **options: Any) -> None:
        """Scan, report, and delete when asked; raise for exit codes 1 and 2."""
        self.verbosity, self.as_json = options["verbosity"], options["format"] == "json"
        using, size = options["database"], options["batch_size"]
        delete, ask = options["delete"], options["delete"] and options["interactive"]
        if using not in connections.settings:
            raise CommandError(f"Unknown database alias {using!r}.")
        if not 0 < size <= MAX_BATCH_SIZE:
            raise CommandError(f"--batch-size must be between 1 and {MAX_BATCH_SIZE}.")
        if self.as_json and ask:
            raise CommandError(
                "--format json is for scripts and cannot ask for confirmation: add "
                "--yes to delete, or leave out --delete for a dry run."
            )
        after = _moment(options["created_after"], "--created-after")
        before = _moment(options["created_before"], "--created-before")
        if after and before and after >= before:
            raise CommandError("--created-after must be earlier than --created-before.")
        scope = Scope(tuple(options["ids"]), after, before)
        plans = _plans(options["model"], scope, using)
        self.fail_if_found = options["fail_if_found"]
        if ask:
            # List, ask, then scan again and delete: rows are re-checked
            # either way, and nothing is held in memory meanwhile.
            preview = CleanupRun(plans, scope, using, batch_size=size)
            self._report(preview, outcome=False)
            if not preview.total(CANDIDATE) or not self._confirm(preview):
                preview.log()
                if self.verbosity:
                    write_table(self.stdout, (), preview)
                if preview.total(CANDIDATE):
                    self.stdout.write("Cancelled; nothing was deleted.")
                return self._exit(preview)
        run = CleanupRun(plans, scope, using, delete, size)
        self._report(run, hide=DELETED if ask else "")
        run.log()
        self._exit(run)

    def _report(self, run: CleanupRun, outcome: bool = True, hide: str = "") -> None:
        batches = _progress(self.stderr, run) if self.verbosity else iter(run)
        if self.as_json:
            write_json(self.stdout, batches, run)
        elif self.verbosity:
            shown = (batch for batch in batches if batch[2] != hide)
            write_table(self.stdout, shown, run, outcome)
        else:
            collections.deque(batches, maxlen=0)  # run it, show nothing

    def _confirm(self, preview: CleanupRun) -> bool:
        self.stderr.write(
            f"Delete {preview.total(CANDIDATE)} orphaned empty row(s) of "
            f"{preview.models_found} model(s) from database {preview.using!r}? This "
            "cannot be undone.\nType 'yes' to continue, or 'no' to cancel: ",
            style_func=str,
            ending="",
        )
        self.stderr.flush()
        try:
            return input().strip().lower() in ("y", "yes")
        except EOFError:
            raise CommandError(
                "No answer on standard input; pass --yes to delete without asking."
            ) from None

    def _exit(self, run: CleanupRun) -> None:
        for error in run.errors:
            self.stderr.write(f"error: {error}")
        if run.errors:
            raise CommandError(f"{len(run.errors)} batch(es) could not be deleted.")
        if self.fail_if_found and run.remaining:
            message = f"{run.remaining} orphaned empty row(s) found and not deleted."
            raise CommandError(message, returncode=2)


def _moment(value: str | None, option: str) -> dt.datetime | None:
    """Parse an ISO date or date-time; naive values are in TIME_ZONE."""
    if value is None:
        return None
    try:
        moment = parse_datetime(value)  # a date alone is its midnight
    except ValueError:
        moment = None
    if moment is None:
        raise CommandError(
            f"{option} wants an ISO date or date-time, e.g. 2026-01-31 or "
            "2026-01-31T12:00:00Z."
        )
    if settings.USE_TZ and timezone.is_naive(moment):
        moment = timezone.make_aware(moment)
    return moment


def _plans(labels: Sequence[str], scope: Scope, using: str) -> list[ModelPlan]:
    """The plans for ``--model`` (default: every exposed model), scope checked."""
    exposed = exposed_models()
    names = ", ".join(m._meta.label for m in exposed) or "none"
    chosen: list[type[models.Model]] = []
    for label in labels:
        try:
            model = apps.get_model(label)._meta.concrete_model
        except (LookupError, ValueError):
            raise CommandError(
                f"Unknown model {label!r}; use app_label.ModelName. Exposed: {names}."
            ) from None
        if model not in exposed:
            raise CommandError(
                f"{model._meta.label} is not exposed through frisian_mcp. Exposed: {names}."
            )
        if model not in chosen:
            chosen.append(model)
    plans = [build_plan(model, exposed[model]) for model in chosen or exposed]
    for position, value in enumerate(scope.ids, 1):
        if all(id_lookup(plan.model, value) is None for plan in plans):
            # The value is the caller's input: it is not echoed.
            raise CommandError(
                f"--id number {position} is not an id or id prefix of any model scanned."
            )
    undated = [p.label for p in plans if p.created_field is None]
    if labels and undated and (scope.created_after or scope.created_before):
        raise CommandError(
            f"{', '.join(undated)} has no creation timestamp (an auto_now_add field or "
            "one named created/created_at), so --created-after/--created-before cannot apply."
        )
    return [replace(p, skip=skip_reason(p, scope, using)) for p in plans]


def _progress(err: OutputWrapper, run: CleanupRun) -> Iterator[Batch]:
    """``run``'s batches, and a line to ``err`` every PROGRESS_INTERVAL seconds."""
    started = last = time.monotonic()

    def line(label: str) -> str:
        done = ", ".join(f"{run.total(s):,} {s}" for s in STATUSES[1:])
        found, seconds = run.total(CANDIDATE), time.monotonic() - started
        return f"frisian_mcp_cleanup: {label}: {found:,} found, {done}, {seconds:.1f}s"

    label = ""
    for batch in run:
        label = batch[0].label
        if time.monotonic() - last >= PROGRESS_INTERVAL:
            last = time.monotonic()
            err.write(line(label), style_func=str)
        yield batch
    if last != started:  # a last line closes a run that wrote any
        err.write(line(label) + " done", style_func=str)


def write_table(
    out: OutputWrapper, batches: Iterable[Batch], run: CleanupRun, outcome: bool = True
) -> None:
    """Write a fixed-width line per row as batches come, then the outcome."""
    width = max([len("MODEL"), *(len(p.label) for p in run.plans)])
    line = f"{{:<{width}}}  {{:<36}}  {{:<25}}  {{:<9}}  {{}}".format
    header = [line("MODEL", "PK", "CREATED", "STATUS", "WHY")]
    for plan, rows, status in batches:
        cells = [(str(c.pk), _iso(c.created, "seconds") or "-") for c in rows]
        lines = [line(plan.label, *cell, status, _why(plan)) for cell in cells]
        out.write("\n".join(header + lines))
        header = []
    if not outcome:
        return
    found = run.total(CANDIDATE)
    if not found:
        out.write(f"No orphaned empty rows found in database {run.using!r}.")
    elif not run.delete:
        out.write(
            f"{found} orphaned empty row(s) in {run.models_found} model(s); dry run, "
            "nothing deleted (--delete deletes them)."
        )
    else:
        out.write(
            f"Deleted {run.total(DELETED)} of {found} orphaned empty row(s); "
            f"kept {run.total(KEPT)} that changed since the scan; {run.total(FAILED)} failed."
        )
    for value in run.unmatched_ids:
        out.write(f"--id {value} matched no orphaned empty row.")


def write_json(out: OutputWrapper, batches: Iterable[Batch], run: CleanupRun) -> None:
    """Write one JSON document, streamed: ``rows`` as they come, counts last."""
    head = {"database": run.using, "mode": "delete" if run.delete else "dry-run"}
    out.write(json.dumps(head)[:-1] + ', "rows": [', ending="")
    lead = "\n  "
    for plan, rows, status in batches:
        pks = (c.pk if isinstance(c.pk, int) else str(c.pk) for c in rows)
        items = (
            {"model": plan.label, "pk": pk, "created": _iso(c.created)}
            | {"status": status, "reason": _why(plan)}
            for pk, c in zip(pks, rows, strict=True)
        )
        out.write(lead + ",\n  ".join(map(json.dumps, items)), ending="")
        lead = ",\n  "
    counts = {"candidates": run.total(CANDIDATE)}
    counts |= {s: run.total(s) for s in STATUSES[1:]} | {"remaining": run.remaining}
    plans = [
        {"model": p.label, "skipped": p.skip}
        | {"counts": run.counts.get(p.label, {})}
        | p.facts()
        for p in run.plans
    ]
    tail: dict[str, Any] = {"counts": counts}
    tail |= {"models": plans, "errors": run.errors, "unmatched_ids": run.unmatched_ids}
    out.write("\n]," + json.dumps(tail, indent=1)[1:])


def _iso(moment: dt.date | None, timespec: str = "auto") -> str | None:
    if isinstance(moment, dt.datetime):
        return moment.isoformat(timespec=timespec)
    return None if moment is None else moment.isoformat()


def _why(plan: ModelPlan) -> str:
    """Why a row of plan's model qualifies, in one line."""
    n, fields = len(plan.reference_labels), ", ".join(c.name for c in plan.checks)
    return f"no content in {fields}; not referenced ({n} relation{'' if n == 1 else 's'} checked)"
