"""``manage.py frisian_mcp_cleanup``: report, or delete, orphaned empty rows.

A thin CLI over :mod:`frisian_mcp.cleanup`: it parses the options, streams
the report (a table, or one JSON document) to stdout, prints progress to
stderr, asks before deleting, and maps the outcome to an exit code: 0 done
(with or without candidates), 1 an error, 2 candidates left undeleted under
``--fail-if-found``. docs/cleanup.md has examples.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import DEFAULT_DB_ALIAS, connections
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime

from frisian_mcp.cleanup import (
    CANDIDATE,
    DELETED,
    CleanupError,
    CleanupSummary,
    Scope,
    build_plans,
    check_scope,
    log_summary,
    run_cleanup,
)
from frisian_mcp.cleanup.reports import (
    JSONReport,
    Progress,
    Report,
    TableReport,
    both,
    plain,
)

__all__ = ["Command"]

MAX_BATCH_SIZE = 10_000


class Command(BaseCommand):
    """Find orphaned empty rows of exposed models; delete them on request."""

    help = (
        "Find rows of models exposed through frisian_mcp whose every writable field "
        "is empty or default and that nothing references (left behind by REST-style "
        "wrapper calls, ADR 0002). Dry run by default; --delete deletes them."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        """Declare the options (docs/cleanup.md describes each)."""
        parser.add_argument(
            "--model",
            action="append",
            default=[],
            metavar="APP_LABEL.MODEL",
            help="Only this exposed model (repeatable). Default: every exposed model.",
        )
        parser.add_argument(
            "--id",
            action="append",
            default=[],
            dest="ids",
            metavar="ID",
            help="Only rows with this id, or whose UUID/text id starts with it "
            "(repeatable), e.g. --id 6b7e67eb.",
        )
        parser.add_argument(
            "--created-after",
            metavar="WHEN",
            help="Only rows created at or after WHEN (ISO date or date-time; "
            "models without a creation timestamp are skipped).",
        )
        parser.add_argument(
            "--created-before",
            metavar="WHEN",
            help="Only rows created before WHEN (ISO date or date-time).",
        )
        parser.add_argument(
            "--delete",
            action="store_true",
            help="Delete the candidates (after confirmation unless --yes).",
        )
        parser.add_argument(
            "--yes",
            "--no-input",
            "--noinput",
            action="store_false",
            dest="interactive",
            help="Do not ask for confirmation before deleting.",
        )
        parser.add_argument(
            "--batch-size",
            type=int,
            default=500,
            help="Rows deleted per transaction (default 500, at most 10000).",
        )
        parser.add_argument(
            "--format",
            choices=("table", "json"),
            default="table",
            help="table (default) for people, json (one document) for scripts.",
        )
        parser.add_argument(
            "--fail-if-found",
            action="store_true",
            help="Exit with status 2 when candidates remain undeleted (monitoring).",
        )
        parser.add_argument(
            "--database",
            default=DEFAULT_DB_ALIAS,
            help='The database alias to clean (default "default").',
        )

    def handle(self, *args: Any, **options: Any) -> None:
        """Scan, report, and delete when asked; raise for exit codes 1 and 2."""
        using = options["database"]
        if using not in connections.settings:
            raise CommandError(f"Unknown database alias {using!r}.")
        batch_size = options["batch_size"]
        if not 0 < batch_size <= MAX_BATCH_SIZE:
            raise CommandError(f"--batch-size must be between 1 and {MAX_BATCH_SIZE}.")
        delete, interactive = options["delete"], options["interactive"]
        as_json = options["format"] == "json"
        if as_json and delete and interactive:
            raise CommandError(
                "--format json is for scripts and cannot ask for confirmation: add "
                "--yes to delete, or leave out --delete for a dry run."
            )
        scope = Scope(
            ids=tuple(options["ids"]),
            created_after=_moment(options["created_after"], "--created-after"),
            created_before=_moment(options["created_before"], "--created-before"),
        )
        if (
            scope.created_after
            and scope.created_before
            and scope.created_after >= scope.created_before
        ):
            raise CommandError("--created-after must be earlier than --created-before.")
        try:
            plans = build_plans(options["model"])
            check_scope(plans, scope, named=bool(options["model"]))
        except CleanupError as exc:
            raise CommandError(str(exc)) from exc

        verbosity = options["verbosity"]
        report: Report = (
            JSONReport(self.stdout)
            if as_json
            else TableReport(self.stdout, plans)
            if verbosity
            else Report()
        )
        progress = Progress(self.stderr, verbosity)
        run = {"using": using, "scope": scope, "batch_size": batch_size}
        if delete and interactive:
            # Show what would go, ask, then scan again and delete: rows are
            # re-checked either way, and nothing is held in memory meanwhile.
            preview = run_cleanup(
                plans, **run, on_rows=both(report, progress), audit=False
            )
            progress.done()
            found = preview.total(CANDIDATE)
            if not found or not self._confirm(preview):
                log_summary(preview)
                report.finish(preview, plans, verbosity)
                if found:
                    self.stdout.write("Cancelled; nothing was deleted.")
                self._exit(preview, options["fail_if_found"])
                return
            if not as_json and verbosity:
                report = TableReport(self.stdout, plans, hide=DELETED)
            progress = Progress(self.stderr, verbosity)
        report.start(using, delete)
        summary = run_cleanup(
            plans, **run, delete=delete, on_rows=both(report, progress)
        )
        progress.done()
        report.finish(summary, plans, verbosity)
        self._exit(summary, options["fail_if_found"])

    def _confirm(self, preview: CleanupSummary) -> bool:
        count, models = preview.total(CANDIDATE), preview.models_found
        self.stderr.write(
            f"Delete {count} orphaned empty row(s) of {models} model(s) from database "
            f"{preview.using!r}? This cannot be undone.\n"
            "Type 'yes' to continue, or 'no' to cancel: ",
            style_func=plain,
            ending="",
        )
        self.stderr.flush()
        try:
            answer = input()
        except EOFError:
            raise CommandError(
                "No answer on standard input; pass --yes to delete without asking."
            ) from None
        return answer.strip().lower() in ("y", "yes")

    def _exit(self, summary: CleanupSummary, fail_if_found: bool) -> None:
        for error in summary.errors:
            self.stderr.write(f"error: {error}")
        if summary.errors:
            raise CommandError(
                f"{len(summary.errors)} batch(es) could not be deleted.", returncode=1
            )
        if fail_if_found and summary.remaining:
            raise CommandError(
                f"{summary.remaining} orphaned empty row(s) found and not deleted.",
                returncode=2,
            )


def _moment(value: str | None, option: str) -> dt.datetime | None:
    """Parse an ISO date or date-time; naive values are in TIME_ZONE."""
    if value is None:
        return None
    try:
        moment = parse_datetime(value)
        if moment is None:
            day = parse_date(value)
            moment = dt.datetime.combine(day, dt.time()) if day is not None else None
    except ValueError:
        moment = None
    if moment is None:
        raise CommandError(
            f"{option} wants an ISO date or date-time, e.g. 2026-01-31 or 2026-01-31T12:00:00Z."
        )
    if settings.USE_TZ and timezone.is_naive(moment):
        moment = timezone.make_aware(moment)
    return moment
