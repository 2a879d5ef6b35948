"""Turn what the view answered into a tool result or a typed error.

2xx becomes the structured result (always a JSON object; lists and scalars
are wrapped). 400 becomes a :class:`ToolInputError` with one entry per field
and DRF error code; DRF messages that quote the submitted value are replaced
or redacted, never passed through (seed 002). Other statuses become
:class:`ToolExecutionError`\\ s with a code from the closed enum.
"""

from __future__ import annotations

import logging
import re
import uuid
from collections.abc import Iterable, Mapping
from typing import Any

from django.db import DatabaseError
from django.db.models import Manager, Model, QuerySet

from frisian_mcp.conf import mcp_settings
from frisian_mcp.exceptions import ToolExecutionError, ToolInputError
from frisian_mcp.invocation import InvocationResult, plain_json
from frisian_mcp.registry.tools import Tool
from frisian_mcp.registry.validation import FieldError, is_plain_identifier
from frisian_mcp.schema import ToolSchema
from frisian_mcp.schema.openapi import json_safe
from frisian_mcp.types import ErrorCode, JSONObject

__all__ = [
    "bulk_item_error",
    "bulk_result",
    "drf_field_errors",
    "raise_for_status",
    "reference_problems",
    "structured_result",
    "validation_report",
]

# DRF error codes whose stock messages quote the submitted value.
_REPLACED_MESSAGES = {
    "invalid_choice": "is not one of the allowed choices",
    "does_not_exist": "refers to an object that does not exist or is not visible to you",
    "incorrect_type": "has the wrong type for a reference (send an id or a lookup object)",
    "no_match": "is not a link to an object of the right kind",
    "incorrect_match": "is not a link to an object of the right kind",
    "not_a_list": "must be a list",
    "not_a_dict": "must be an object",
}
_REDACTED = "<value>"

logger = logging.getLogger("frisian_mcp")


def structured_result(data: Any) -> JSONObject:
    """The ``structuredContent`` of a successful call: always an object."""
    if data is None:
        return {}
    plain = plain_json(data)
    return plain if isinstance(plain, dict) else {"result": plain}


def raise_for_status(
    tool_object: Tool, result: InvocationResult, sent: Any, *, bulk: bool = False
) -> None:
    """Raise the error matching a non-2xx status; return on success.

    With ``bulk``, field errors carry the index of their item and the
    message says that nothing was written.
    """
    status = result.status
    if status < 400:
        return
    tool = tool_object.name
    model = tool_object.model
    noun = str(model._meta.verbose_name) if model is not None else "object"
    if status == 400 and isinstance(result.exception, DatabaseError):
        _refused_query(tool, result.exception)
    if status == 400 and bulk:
        fields = _indexed(
            drf_field_errors(
                result.data, sent if result.index is None else sent[result.index]
            ),
            result.index,
        )
        indexes = sorted({f["index"] for f in fields if "index" in f})
        raise ToolInputError(
            f"{tool} rejected {len(indexes) or 'some'} item{'s' if len(indexes) != 1 else ''} of the "
            f"bulk body (index {', '.join(map(str, indexes[:10])) or '?'}); nothing was written. "
            "Fix the listed fields and send the whole list again.",
            error_code=ErrorCode.VALIDATION_FAILED,
            tool=tool,
            fields=fields,
            hint="Each entry of 'fields' names the item index, the field and what is wrong.",
        )
    if status == 400:
        fields = drf_field_errors(result.data, sent)
        names = ", ".join(dict.fromkeys(f["field"] for f in fields)) or "the data"
        raise ToolInputError(
            f"{tool} rejected the data: fix {names} and call again.",
            error_code=ErrorCode.VALIDATION_FAILED,
            tool=tool,
            fields=fields,
            hint="Each entry of 'fields' names a field, a DRF error code and what is wrong.",
        )
    if status == 401:
        raise ToolExecutionError(
            "Authentication is required for this tool.",
            error_code=ErrorCode.NOT_AUTHENTICATED,
            tool=tool,
            status=status,
            hint="Send credentials the server accepts (see its documentation) and call again.",
        )
    if status == 403:
        raise ToolExecutionError(
            "You do not have permission to perform this action.",
            error_code=ErrorCode.PERMISSION_DENIED,
            tool=tool,
            status=status,
        )
    if status == 404:
        raise ToolExecutionError(
            f"No {noun} matches the given lookup, or it is not visible to you.",
            error_code=ErrorCode.NOT_FOUND,
            tool=tool,
            recoverable=True,
            status=status,
            hint="Check the id, or use the list tool to find the object.",
        )
    if status == 409:
        raise ToolExecutionError(
            f"The change conflicts with existing data ({noun}); nothing was written.",
            error_code=ErrorCode.CONFLICT,
            tool=tool,
            recoverable=True,
            status=status,
            hint="A unique value may already be taken, or other rows still refer to this one.",
        )
    if status == 429:
        retry_after = _retry_after(result)
        raise ToolExecutionError(
            "Too many calls; wait before calling again.",
            error_code=ErrorCode.THROTTLED,
            tool=tool,
            recoverable=True,
            status=status,
            retry_after=retry_after,
            hint=f"Retry after {retry_after:g} seconds."
            if retry_after is not None
            else None,
        )
    if status < 500:
        raise ToolExecutionError(
            f"The API refused the request (HTTP {status}).",
            error_code=ErrorCode.REQUEST_REJECTED,
            tool=tool,
            status=status,
        )
    raise ToolExecutionError(
        f"The API failed to handle the request (HTTP {status}).",
        error_code=ErrorCode.INTERNAL_ERROR,
        tool=tool,
        status=status,
    )


def _refused_query(tool: str, exc: DatabaseError) -> None:
    """Report a query the database refused, without quoting the database.

    Its message may hold the caller's values or the schema, so it goes to
    the log under a correlation id; the caller learns what to change.
    """
    correlation = uuid.uuid4().hex[:16]
    logger.warning(
        "The database refused a query of %s (correlation id %s)",
        tool,
        correlation,
        exc_info=exc,
    )
    raise ToolExecutionError(
        "The database could not run this call as given: a value does not fit "
        "its column, or the query is too long or too complex for the database "
        "(long search terms, many filter values). Nothing was written.",
        error_code=ErrorCode.REQUEST_REJECTED,
        tool=tool,
        recoverable=True,
        status=400,
        hint="Use fewer or shorter filter values, or values that fit the field.",
        extra={"correlation_id": correlation},
    )


def validation_report(tool: Tool, data: Any) -> JSONObject:
    """The result of ``mode: "validate"``: what would be written.

    ``data`` holds the serializer's validated data and, for updates, the
    current object; related objects are shown by primary key.
    """
    validated = data.get("validated") or {}
    instance = data.get("instance")
    report: JSONObject = {
        "valid": True,
        "action": "create" if instance is None else "update",
        "data": _plain(validated),
    }
    if instance is not None:
        report["id"] = _plain(instance.pk)
        report["changed_fields"] = [
            name
            for name, value in validated.items()
            if _plain(getattr(instance, name, None)) != _plain(value)
        ]
    report["written"] = False
    return {"validation": report}


def _plain(value: Any) -> Any:
    """JSON-safe form of validated data: model instances become their pk."""
    if isinstance(value, Model):
        return _plain(value.pk)
    if isinstance(value, Manager | QuerySet):
        return sorted(_plain(v) for v in value.values_list("pk", flat=True))
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set):
        items = [_plain(v) for v in value]
        return sorted(items, key=str) if isinstance(value, set) else items
    return json_safe(value)


def reference_problems(
    schema: ToolSchema, problems: list[FieldError]
) -> list[FieldError]:
    """Restate schema problems of related arguments as reference problems.

    A lookup object on a non-unique field, with an operator such as
    ``name__startswith``, or of the wrong shape fails the schema; the agent
    needs to hear which lookup keys exist, not "does not match any form".
    """
    result = []
    for problem in problems:
        root = re.split(r"[.\[]", problem["field"], maxsplit=1)[0]
        relation = schema.relations.get(root)
        if relation is None or not relation.managed or problem["code"] == "required":
            result.append(problem)
            continue
        lookups = relation.describe_lookups()
        message = "must be an id"
        if lookups:
            message += f" or an object with one of these lookup keys: {lookups}"
        result.append(
            {
                "field": root
                if problem["field"].startswith(root + ".")
                else problem["field"],
                "code": "invalid_reference",
                "message": message,
                "lookup_fields": list(relation.lookup_fields),
            }
        )
    unique: dict[tuple[str, str], FieldError] = {}
    for problem in result:
        unique.setdefault((problem["field"], problem["code"]), problem)
    return list(unique.values())


def bulk_item_error(
    tool: str, total: int, failures: list[tuple[int, ToolInputError]]
) -> ToolInputError:
    """One error for every item of a bulk body that failed its guards."""
    fields: list[FieldError] = []
    for index, exc in failures:
        entries = exc.fields or [
            {
                "field": exc.field or "arguments",
                "code": exc.error_code.value,
                "message": exc.message,
            }
        ]
        fields.extend({"index": index, **entry} for entry in entries)
    codes = {exc.error_code for _, exc in failures}
    first_index, first = failures[0]
    return ToolInputError(
        f"{len(failures)} of {total} items of the bulk body are invalid; nothing was "
        f"written. Item {first_index}: {first.message}",
        error_code=codes.pop() if len(codes) == 1 else ErrorCode.INVALID_ARGUMENT,
        tool=tool,
        fields=fields[:500],
        hint="Each entry of 'fields' names the item index; fix those items and send the whole list again.",
        extra={"failed_items": [i for i, _ in failures][:500]},
    )


def bulk_result(tool: Tool, data: Any) -> JSONObject:
    """The result of a bulk create: the objects, or their ids when many."""
    rows = structured_result({"rows": data})["rows"] if data is not None else []
    rows = rows if isinstance(rows, list) else []
    if len(rows) <= int(mcp_settings.PAGE_SIZE):
        return {"created": len(rows), "results": rows}
    model = tool.model
    key = (
        model._meta.pk.name
        if model is not None and model._meta.pk is not None
        else "id"
    )
    if rows and isinstance(rows[0], dict) and key not in rows[0]:
        key = "id"
    if not all(isinstance(row, dict) and key in row for row in rows):
        return {"created": len(rows), "results": rows}
    return {"created": len(rows), "ids": [row[key] for row in rows]}


def _indexed(fields: list[FieldError], index: int | None) -> list[FieldError]:
    """Move a leading ``[n]`` of field paths into an ``index`` member."""
    result = []
    for entry in fields:
        match = re.match(r"^\[(\d+)\]\.?(.*)$", entry["field"])
        if match:
            entry = {
                **entry,
                "index": int(match.group(1)),
                "field": match.group(2) or "non_field_errors",
            }
        elif index is not None:
            entry = {"index": index, **entry}
        result.append(entry)
    return result


def drf_field_errors(data: Any, sent: Any, prefix: str = "") -> list[FieldError]:
    """Flatten DRF's error data into ``[{"field", "code", "message"}]``.

    Messages of codes whose stock text quotes the input are replaced; any
    other message has the values sent for that field redacted.
    """
    errors: list[FieldError] = []
    if isinstance(data, Mapping):
        for key, value in data.items():
            if isinstance(key, int):
                # ListSerializer (many=True) errors, keyed by item index.
                child = (
                    sent[key]
                    if isinstance(sent, list) and 0 <= key < len(sent)
                    else None
                )
                errors.extend(drf_field_errors(value, child, f"{prefix}[{key}]"))
                continue
            name = str(key) if is_plain_identifier(key) else "<key>"
            path = f"{prefix}.{name}" if prefix else name
            child_sent = sent.get(key) if isinstance(sent, Mapping) else None
            if key in ("non_field_errors", "detail"):
                child_sent = sent
            errors.extend(drf_field_errors(value, child_sent, path))
    elif isinstance(data, list | tuple):
        if all(isinstance(item, str) for item in data):
            for item in data:
                errors.append(_entry(prefix, item, sent))
        else:
            for index, item in enumerate(data):
                if not item:
                    continue
                child_sent = (
                    sent[index]
                    if isinstance(sent, list) and index < len(sent)
                    else None
                )
                errors.extend(drf_field_errors(item, child_sent, f"{prefix}[{index}]"))
    elif data is not None:
        errors.append(_entry(prefix, data, sent))
    return errors


def _entry(field: str, detail: Any, sent: Any) -> FieldError:
    code = str(getattr(detail, "code", None) or "invalid")
    message = _REPLACED_MESSAGES.get(code) or _redact(str(detail), _values(sent))
    return {"field": field or "non_field_errors", "code": code, "message": message}


def _values(sent: Any) -> set[str]:
    found: set[str] = set()
    if isinstance(sent, Mapping):
        for value in sent.values():
            found |= _values(value)
    elif isinstance(sent, list | tuple):
        for value in sent:
            found |= _values(value)
    elif sent is not None and not isinstance(sent, bool):
        text = str(sent)
        if text:
            found.add(text)
    return found


def _redact(message: str, values: Iterable[str]) -> str:
    for value in sorted(values, key=len, reverse=True):
        if len(value) < 2 and not value.isalnum():
            continue
        pattern = (
            r"(?<![\w])" + re.escape(value) + r"(?![\w])"
            if value[:1].isalnum()
            else re.escape(value)
        )
        message = re.sub(pattern, _REDACTED, message)
    return message


def _retry_after(result: InvocationResult) -> float | None:
    header = {k.lower(): v for k, v in result.headers.items()}.get("retry-after")
    try:
        return float(header) if header is not None else None
    except ValueError:
        return None
