"""Outcomes: what the view answered, as a tool result or a :class:`ToolError`.

2xx becomes ``structuredContent`` (always an object, in the shapes of
:mod:`~frisian_mcp.results`). 400 becomes a
:class:`ToolInputError` naming fields and DRF codes, with messages that quote
the submitted value replaced or redacted (seed 002, through
:mod:`frisian_mcp.redaction`). Other statuses become
:class:`ToolExecutionError`\\ s through :data:`STATUSES`.
"""

from __future__ import annotations

import logging
import re
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rest_framework import exceptions
from rest_framework.settings import api_settings

from frisian_mcp import results
from frisian_mcp.collisions import Violation
from frisian_mcp.exceptions import ToolExecutionError, ToolInputError, few, plain_name
from frisian_mcp.pagination import answer as paged
from frisian_mcp.query import filter_error
from frisian_mcp.redaction import Redact, Redactor, field_errors, host_detail
from frisian_mcp.references import field_root
from frisian_mcp.tools import Tool
from frisian_mcp.types import Call, ErrorCode, FieldError, JSONObject

__all__ = [
    "BUSY_RETRY_AFTER",
    "STATUSES",
    "Answer",
    "ToolRefused",
    "busy",
    "refused_query",
    "result",
    "unavailable",
]

logger = logging.getLogger("frisian_mcp")


@dataclass
class Answer:
    """What the view answered: status, unrendered data and headers.

    ``entered``: the action's handler ran (the view did not refuse the caller
    at the door); ``index``: the bulk item being handled when it failed;
    ``conflicts``: the items and unique fields a refused create collided on;
    ``violation``: the rule of the database a refused write broke;
    ``view``: the view that answered.
    """

    status: int
    data: Any
    headers: Mapping[str, str]
    entered: bool = True
    index: int | None = None
    conflicts: list[FieldError] | None = None
    violation: Violation | None = None
    view: Any = None


class ToolRefused(ToolExecutionError):
    """The view refused the caller before the action began (401/403)."""


#: status -> (code, message, hint); ``{noun}`` is the model's name.
STATUSES: dict[int, tuple[ErrorCode, str, str | None]] = {
    401: (
        ErrorCode.NOT_AUTHENTICATED,
        "Authentication is required for this tool.",
        "Send credentials the server accepts (see its documentation) and call again.",
    ),
    403: (
        ErrorCode.PERMISSION_DENIED,
        "You do not have permission to perform this action.",
        None,
    ),
    404: (
        ErrorCode.NOT_FOUND,
        "No {noun} matches the given lookup, or it is not visible to you.",
        "Check the id, or use the list tool to find the object.",
    ),
    409: (
        ErrorCode.CONFLICT,
        "The change conflicts with existing data ({noun}); nothing was written.",
        "A unique value may already be taken, or other rows still refer to this one.",
    ),
    429: (ErrorCode.THROTTLED, "Too many calls; wait before calling again.", None),
}
#: Seconds a ``busy`` caller is told to wait before calling again.
BUSY_RETRY_AFTER = 1.0
_RECOVERABLE = frozenset({404, 409, 429})
#: DRF's own refusal texts, which say nothing the table's message does not.
_STOCK_DETAILS = frozenset(
    str(cls.default_detail)
    for cls in vars(exceptions).values()
    if isinstance(cls, type) and issubclass(cls, exceptions.APIException)
)
_STOCK_NOT_FOUND = re.compile(r"^No \w+ matches the given query\.$")
_ITEM = re.compile(r"^\[(\d+)\]\.?(.*)$")


def result(tool: Tool, call: Call, answer: Answer) -> JSONObject:
    """The structured result of a call, or the error its status stands for."""
    if answer.status >= 400:
        raise _error(tool, call, answer)
    data, row = answer.data, tool.endpoint.row
    if call.validate_only:
        count = len(call.body) if call.bulk else None
        return results.validation(data, count, call.notes)
    if call.bulk and row.bulk:
        return results.bulk(data, tool.subject()[1])
    if row.result == "deleted" and data is None:
        return results.deleted()
    if data is not None:
        data = paged(tool.name, tool.kind, call, data)
    return results.record(data)


def refused_query(tool: str, exc: Exception) -> ToolExecutionError:
    """A query the database refused, reported without quoting the database."""
    correlation = uuid.uuid4().hex[:16]
    logger.warning(
        "The database refused a query of %s (correlation id %s)",
        tool,
        correlation,
        exc_info=exc,
    )
    return ToolExecutionError(
        "The database could not run this call as given: a value does not fit "
        "its column, or the query is too long or too complex for the database "
        "(long search terms, many filter values). Nothing was written.",
        code=ErrorCode.REQUEST_REJECTED,
        tool=tool,
        recoverable=True,
        hint="Use fewer or shorter filter values, or values that fit the field.",
        extra={"correlation_id": correlation},
    )


def unavailable(tool: str | None) -> ToolExecutionError:
    """A call whose database connection was lost; worth sending again."""
    logger.warning("The database connection was lost during %s", tool or "a request")
    return _again(
        tool,
        ErrorCode.UNAVAILABLE,
        "The connection to the database was lost, so this call did not "
        "complete; the database rolled back what it had begun in a transaction.",
    )


def busy(tool: str, exc: Exception) -> ToolExecutionError:
    """A write that lost a lock or serialization race; worth retrying as is."""
    logger.info("The database was busy during %s: %s", tool, type(exc).__name__)
    return _again(
        tool,
        ErrorCode.BUSY,
        "The database is busy with other writes and this call could not get "
        "its turn in time. Nothing was written.",
    )


def _again(tool: str | None, code: ErrorCode, message: str) -> ToolExecutionError:
    """An error whose call may be sent again, as is, after a second."""
    return ToolExecutionError(
        message,
        code=code,
        tool=tool,
        recoverable=True,
        retry_after=BUSY_RETRY_AFTER,
        hint=f"Send the same call again after {BUSY_RETRY_AFTER:g} second.",
    )


def _error(tool: Tool, call: Call, answer: Answer) -> Exception:
    """The error a status stands for; a 400 names the fields at fault."""
    status = answer.status
    redact = Redactor(
        [call.arguments, call.body, call.path_kwargs, [v for _, v in call.query]],
        call.input_schema,
        answer.view,
    )
    if status == 400:
        return _rejected(tool, call, answer, redact)
    failed = status >= 500
    code, message, hint = STATUSES.get(
        status,
        (
            ErrorCode.INTERNAL_ERROR if failed else ErrorCode.REQUEST_REJECTED,
            f"The API {'failed to handle' if failed else 'refused'} the request "
            f"(HTTP {status}).",
            None,
        ),
    )
    extra: JSONObject = {}
    noun = tool.subject()[0]
    if answer.violation is None:
        message = message.format(noun=noun)
    else:  # the rule the database applied, and the model that refused
        message, hint, extra = answer.violation.explain(
            message, hint, noun, answer.conflicts
        )
    detail = None if failed else host_detail(answer.data, redact)
    if detail is not None:
        # The host's own reason (which dependents block a delete, which
        # setting forbids the change): what REST would show, values redacted.
        extra["detail"] = detail
        if detail not in _STOCK_DETAILS and not _STOCK_NOT_FOUND.match(detail):
            message = f"{message} The API says: {detail}"
    retry_after = _retry_after(answer) if status == 429 else None
    if retry_after is not None:
        hint = f"Retry after {retry_after:g} seconds."
    refused = status in (401, 403) and not answer.entered
    return (ToolRefused if refused else ToolExecutionError)(
        message,
        code=code,
        tool=tool.name,
        hint=hint,
        recoverable=status in _RECOVERABLE,
        retry_after=retry_after,
        field=_only_field(answer.conflicts),
        fields=answer.conflicts,
        extra=extra,
    )


def _only_field(conflicts: list[FieldError] | None) -> str | None:
    names = {f["field"] for f in conflicts or ()}
    return names.pop() if len(names) == 1 else None


def _rejected(tool: Tool, call: Call, answer: Answer, redact: Redact) -> ToolInputError:
    """A 400 as field errors; per item for a bulk body. A field the tool does
    not take (its ``field_names``) is a dead end: its schema is incomplete,
    which the operator can fix and the agent cannot."""
    fields = field_errors(answer.data, redact)
    if call.body is None and call.listing.filters:
        fields = [filter_error(entry, call.listing.filters) for entry in fields]
    if not call.bulk:
        names = few(dict.fromkeys(f["field"] for f in fields)) or "the data"
        message = f"{tool.name} rejected the data:"
        fix = f"fix {names} and call again."
        hint = (
            "Each entry of 'fields' names a field, a DRF error code and what is wrong."
        )
    else:
        fields = [_indexed(entry, answer.index) for entry in fields]
        indexes = sorted({f["index"] for f in fields if "index" in f})
        shown = f" (index {few(indexes, 10)})" if indexes else ""
        # Ids bulk.check passed (call.notes): the view's own action refused.
        undone = "" if "ids" in call.notes else "; nothing was written"
        plural = "s" if len(indexes) != 1 else ""
        message = (
            f"{tool.name} rejected {len(indexes) or 'some'} item{plural} of the bulk "
            f"body{shown}{undone}."
        )
        fix = "Fix the listed fields and send the whole list again."
        hint = "Each entry of 'fields' names an item index, a field and what is wrong."
    schema = tool.schema
    lacking = _lacking(fields, schema.field_names if schema is not None else None)
    if lacking:
        them = "it" if len(lacking) == 1 else "them"
        fix = (
            f"The API asks for {', '.join(lacking)}, which this tool's schema "
            "does not declare: the schema is incomplete, and no call of this "
            f"tool can send {them}."
        )
        hint = (
            "Tell the server's operator: declare what this action reads in "
            "FRISIAN_MCP['VIEWSET_OPTIONS'] ('request_bodies' for the body, "
            "'query_parameters' for the query) or with @extend_schema on the "
            "action (docs/settings.md)."
        )
    return ToolInputError(
        f"{message} {fix}",
        code=ErrorCode.VALIDATION_FAILED,
        tool=tool.name,
        fields=fields,
        hint=hint,
        recoverable=not lacking,
    )


def _lacking(fields: list[FieldError], known: frozenset[str] | None) -> list[str]:
    """The fields a 400 names that are none of the tool's arguments."""
    if known is None:
        return []
    roots = (field_root(f["field"]) for f in fields)
    general = {"", "detail", "filters", "non_field_errors", "__all__"}
    general.add(api_settings.NON_FIELD_ERRORS_KEY)
    lacking = (r for r in roots if r not in known and r not in general)
    return sorted({r for r in lacking if plain_name(r)})


def _indexed(entry: FieldError, index: int | None) -> FieldError:
    """A bulk entry with its item's index: from ``[i].field``, or the one given."""
    match = _ITEM.match(entry["field"])
    if match:
        return {
            **entry,
            "index": int(match[1]),
            "field": match[2] or "non_field_errors",
        }
    return entry if index is None else {"index": index, **entry}


def _retry_after(answer: Answer) -> float | None:
    header = {k.lower(): v for k, v in answer.headers.items()}.get("retry-after", "")
    return float(header) if re.fullmatch(r"\s*\d+(\.\d+)?\s*", header) else None
