"""``manage.py frisian_mcp_cleanup``: report, or delete, orphaned empty rows.

Exit codes: 0 done (found or not), 1 an error, 2 rows found and not deleted
under ``--fail-if-found``. docs/cleanup.md describes every option.
"""

from __future__ import annotations

import collections
import datetime as dt
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import DEFAULT_DB_ALIAS, connections
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from frisian_mcp.cleanup import (
    CANDIDATE,
    DELETED,
    CleanupRun,
    Scope,
    build_plans,
    with_progress,
    write_json,
    write_table,
)
from frisian_mcp.exceptions import CleanupError

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
        for flags, spec in _OPTIONS:
            parser.add_argument(*flags, **spec)

    def handle(self, *args: Any, **options: Any) -> None:
        """Scan, report, and delete when asked; raise for exit codes 1 and 2."""
        using, batch_size = options["database"], options["batch_size"]
        delete, as_json = options["delete"], options["format"] == "json"
        ask = delete and options["interactive"]
        if using not in connections.settings:
            raise CommandError(f"Unknown database alias {using!r}.")
        if not 0 < batch_size <= MAX_BATCH_SIZE:
            raise CommandError(f"--batch-size must be between 1 and {MAX_BATCH_SIZE}.")
        if as_json and ask:
            raise CommandError(
                "--format json is for scripts and cannot ask for confirmation: add "
                "--yes to delete, or leave out --delete for a dry run."
            )
        after = _moment(options["created_after"], "--created-after")
        before = _moment(options["created_before"], "--created-before")
        if after and before and after >= before:
            raise CommandError("--created-after must be earlier than --created-before.")
        scope = Scope(tuple(options["ids"]), after, before)
        try:
            plans = build_plans(options["model"], scope)
        except CleanupError as exc:
            raise CommandError(str(exc)) from exc
        verbosity = options["verbosity"]

        def report(run: CleanupRun, outcome: bool = True, hide: str = "") -> None:
            batches = with_progress(self.stderr, run, verbosity)
            if as_json:
                write_json(self.stdout, batches, run)
            elif verbosity:
                shown = (batch for batch in batches if batch[2] != hide)
                write_table(self.stdout, shown, run, verbosity, outcome=outcome)
            else:
                collections.deque(batches, maxlen=0)  # run it, show nothing

        if ask:
            # List, ask, then scan again and delete: rows are re-checked
            # either way, and nothing is held in memory meanwhile.
            preview = CleanupRun(plans, scope, using, batch_size=batch_size)
            report(preview, outcome=False)
            if not preview.total(CANDIDATE) or not self._confirm(preview):
                preview.log()
                if verbosity:
                    write_table(self.stdout, (), preview, verbosity)
                if preview.total(CANDIDATE):
                    self.stdout.write("Cancelled; nothing was deleted.")
                return self._exit(preview, options["fail_if_found"])
        run = CleanupRun(plans, scope, using, delete, batch_size)
        report(run, hide=DELETED if ask else "")
        run.log()
        self._exit(run, options["fail_if_found"])

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

    def _exit(self, run: CleanupRun, fail_if_found: bool) -> None:
        for error in run.errors:
            self.stderr.write(f"error: {error}")
        if run.errors:
            raise CommandError(f"{len(run.errors)} batch(es) could not be deleted.")
        if fail_if_found and run.remaining:
            raise CommandError(
                f"{run.remaining} orphaned empty row(s) found and not deleted.",
                returncode=2,
            )


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


#: The command's options: flags and ``add_argument`` keywords.
_OPTIONS: tuple[tuple[tuple[str, ...], dict[str, Any]], ...] = (
    (
        ("--model",),
        {
            "action": "append",
            "default": [],
            "metavar": "APP_LABEL.MODEL",
            "help": "Only this exposed model (repeatable). Default: every exposed model.",
        },
    ),
    (
        ("--id",),
        {
            "action": "append",
            "default": [],
            "dest": "ids",
            "metavar": "ID",
            "help": "Only rows with this id, or whose UUID/text id starts with it "
            "(repeatable), e.g. --id 6b7e67eb.",
        },
    ),
    (
        ("--created-after",),
        {
            "metavar": "WHEN",
            "help": "Only rows created at or after WHEN (ISO date or date-time; "
            "models without a creation timestamp are skipped).",
        },
    ),
    (
        ("--created-before",),
        {
            "metavar": "WHEN",
            "help": "Only rows created before WHEN (ISO date or date-time).",
        },
    ),
    (
        ("--delete",),
        {
            "action": "store_true",
            "help": "Delete the candidates (after confirmation unless --yes).",
        },
    ),
    (
        ("--yes", "--no-input", "--noinput"),
        {
            "action": "store_false",
            "dest": "interactive",
            "help": "Do not ask for confirmation before deleting.",
        },
    ),
    (
        ("--batch-size",),
        {
            "type": int,
            "default": 500,
            "help": "Rows deleted per transaction (default 500, at most 10000).",
        },
    ),
    (
        ("--format",),
        {
            "choices": ("table", "json"),
            "default": "table",
            "help": "table (default) for people, json (one document) for scripts.",
        },
    ),
    (
        ("--fail-if-found",),
        {
            "action": "store_true",
            "help": "Exit with status 2 when candidates remain undeleted (monitoring).",
        },
    ),
    (
        ("--database",),
        {
            "default": DEFAULT_DB_ALIAS,
            "help": 'The database alias to clean (default "default").',
        },
    ),
)
