"""Argument guards: the checks that stop silent bad writes (ADR 0002).

DRF ignores keys its serializer does not declare. An agent that wraps its
fields REST-style (``{"data": {...}}``) or misspells one (``emial``) therefore
gets a 201 and a row missing the data it meant to write. These guards reject
such calls before anything runs:

* :func:`coerce_json_strings`: a JSON object or array sent as a string
  where the schema wants one is parsed (seed 003); anything else stays an
  error of the schema check;
* :func:`check_undeclared`: an undeclared argument holding an object is a
  nested wrapper, any other undeclared argument an unknown key; both are
  reported with what to send instead, together with any schema problems;
* :func:`detect_bulk_body`: ``{"objects": [{...}, ...]}`` (or ``data``,
  ``items``, ``_items``, ``body``) as the only argument of a create tool is a
  bulk create; other uses of such a body are rejected;
* :func:`check_not_empty`: a create that carries no declared field at all is
  the signature of the wrapper trap and is refused.

No message repeats a caller value; caller-chosen key names appear only when
they are short plain identifiers.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any
from urllib.parse import urlencode

from jsonschema import Draft202012Validator

from frisian_mcp import arguments
from frisian_mcp.exceptions import ToolInputError
from frisian_mcp.registry.validation import FieldError, is_plain_identifier
from frisian_mcp.schema import ToolSchema
from frisian_mcp.types import ErrorCode

__all__ = [
    "BULK_BODY_KEYS",
    "check_not_empty",
    "check_query_length",
    "check_undeclared",
    "coerce_json_strings",
    "detect_bulk_body",
]

#: Keys under which a list of objects is a bulk create (DESIGN.md §3).
BULK_BODY_KEYS = frozenset({"objects", "data", "items", "_items", "body"})


def coerce_json_strings(
    schema: Mapping[str, Any], args: Mapping[str, Any]
) -> dict[str, Any]:
    """Parse JSON text sent where ``schema``'s properties want objects or arrays.

    A string is replaced only when it is not valid as it is, it parses as
    JSON, and the parsed value has a type the property accepts: a numeric
    string for an id stays a string.
    """
    properties = schema.get("properties") or {}
    result = dict(args)
    for name, value in args.items():
        if not isinstance(value, str):
            continue
        prop = properties.get(name)
        if isinstance(prop, Mapping):
            parsed = _parse_json_container(value)
            if (
                parsed is not None
                and _accepts_type(prop, parsed)
                and not _valid(prop, value)
            ):
                result[name] = parsed
        elif name in BULK_BODY_KEYS:
            parsed = _parse_json_container(value)
            if isinstance(parsed, list):
                result[name] = parsed
    return result


def check_undeclared(
    tool: str,
    schema: ToolSchema,
    args: Mapping[str, Any],
    problems: list[FieldError],
) -> None:
    """Reject undeclared arguments; report them with the schema ``problems``.

    Raises a ``nested_wrapper`` error when an undeclared argument holds an
    object (or JSON text of one), an ``unknown_argument`` error for any other
    undeclared argument, and an ``invalid_argument`` error when every
    argument is declared but ``problems`` is not empty.
    """
    declared = schema.declared
    fields = sorted(f for f in schema.body_fields if f in declared)
    undeclared = [key for key in args if key not in declared]
    wrappers = [key for key in undeclared if isinstance(_as_object(args[key]), Mapping)]
    if wrappers:
        raise _wrapper_error(tool, schema, args, wrappers, undeclared, problems, fields)
    if undeclared:
        raise _unknown_error(tool, schema, undeclared, problems, fields)
    if problems:
        raise _schema_error(tool, problems)


def detect_bulk_body(
    tool: str, kind: str, schema: ToolSchema, args: Mapping[str, Any]
) -> list[dict[str, Any]] | None:
    """Return the items of a bulk create body, or ``None`` if there is none.

    A bulk body is exactly one argument, named like a bulk key the tool does
    not declare, holding a list. It must be a non-empty list of objects and
    the tool must be a create tool.
    """
    keys = [key for key in args if key in BULK_BODY_KEYS and key not in schema.declared]
    if len(keys) != 1 or not isinstance(args[keys[0]], list):
        return None
    key = keys[0]
    items = args[key]
    if len(args) != 1:
        if kind == arguments.CREATE and all(isinstance(i, Mapping) for i in items):
            raise ToolInputError(
                f"A bulk body must be the only argument: send {{{key!r}: [...]}} alone, "
                "or the fields of one object flat.",
                error_code=ErrorCode.INVALID_BULK_BODY,
                tool=tool,
                field=key,
            )
        return None
    if kind != arguments.CREATE:
        raise ToolInputError(
            f"{tool} does not take a list of objects; bulk bodies work with create tools "
            "only. Send one call per object, with its fields as top-level arguments.",
            error_code=ErrorCode.INVALID_BULK_BODY,
            tool=tool,
            field=key,
        )
    if not items:
        raise ToolInputError(
            f"The bulk body {key!r} is empty: send at least one object.",
            error_code=ErrorCode.INVALID_BULK_BODY,
            tool=tool,
            field=key,
        )
    bad = [index for index, item in enumerate(items) if not isinstance(item, Mapping)]
    if bad:
        raise ToolInputError(
            f"Every item of the bulk body {key!r} must be an object of fields; "
            f"items {_indexes(bad)} are not.",
            error_code=ErrorCode.INVALID_BULK_BODY,
            tool=tool,
            field=key,
            fields=[
                {
                    "index": i,
                    "field": key,
                    "code": "not_an_object",
                    "message": "must be an object",
                }
                for i in bad[:50]
            ],
        )
    return [dict(item) for item in items]


def check_not_empty(
    tool: str, schema: ToolSchema, body: Mapping[str, Any] | None
) -> None:
    """Refuse a create whose body carries no content in any declared field.

    No field at all is the signature of the wrapper trap; fields that are
    all blank (``null``, empty or whitespace-only strings, empty lists and
    objects) write the same empty row, since DRF trims whitespace.
    """
    if not schema.body_fields or schema.body_argument is not None:
        return
    if body and not all(_blank(value) for value in body.values()):
        return
    fields = ", ".join(schema.body_fields)
    if body:
        message = (
            f"Every field sent to {tool} is empty, so it would create an empty "
            f"record. Send at least one field with a value: {fields}."
        )
    else:
        message = (
            f"{tool} received no fields, so it would create an empty record. "
            f"Send the fields as top-level arguments: {fields}."
        )
    raise ToolInputError(
        message,
        error_code=ErrorCode.EMPTY_WRITE,
        tool=tool,
        hint='A REST-style wrapper such as {"data": {...}} is the usual cause: unwrap it.',
        extra={"declared_fields": list(schema.body_fields)},
    )


def check_query_length(
    tool: str,
    query: Sequence[tuple[str, str]],
    arguments_of: Mapping[str, str],
    limit: int,
) -> None:
    """Refuse a call whose query string would be longer than ``limit``.

    ``arguments_of`` maps a query parameter to the argument it came from
    (``filters.search``, ``query_format``), to name the longest one.

    REST callers cannot send more than their web server's request line
    holds; a tool call's filters could otherwise carry a whole request body
    of search terms, each of which a filter backend makes a condition.
    """
    if not query or len(urlencode(query)) <= limit:
        return
    name, _ = max(query, key=lambda pair: len(urlencode([pair])))
    field = arguments_of.get(name, name)
    raise ToolInputError(
        f"The filters and query arguments of this {tool} call make a query "
        f"string of more than {limit} characters, more than this server accepts; "
        f"the longest value is {field}.",
        error_code=ErrorCode.INVALID_ARGUMENT,
        tool=tool,
        fields=[
            {
                "field": field,
                "code": "max_length",
                "message": f"makes the query string longer than {limit} characters",
            }
        ],
        hint="Use fewer or shorter values (fewer search terms, shorter lists).",
    )


def _blank(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, str):
        return not value.strip()
    return isinstance(value, list | dict) and not value


def _wrapper_error(
    tool: str,
    schema: ToolSchema,
    args: Mapping[str, Any],
    wrappers: list[str],
    undeclared: list[str],
    problems: list[FieldError],
    fields: list[str],
) -> ToolInputError:
    declared = schema.declared
    key = wrappers[0]
    inner = _as_object(args[key])
    assert isinstance(inner, Mapping)  # selected above
    found = [name for name in inner if name in declared]
    shown_key = _show_key(key)
    if found:
        advice = (
            f"Unwrap {shown_key}: send {', '.join(found)} directly as top-level "
            f"arguments, not inside {shown_key}."
        )
    else:
        advice = f"Send the fields of {tool} as top-level arguments instead."
    message = (
        f"Argument {shown_key} is not a field of {tool} and its value is an object: "
        f"this looks like a REST-style wrapper. {advice} "
        f"Fields of {tool}: {', '.join(fields) if fields else '(none)'}."
    )
    entries: list[FieldError] = [
        {
            "field": _field_name(k),
            "code": "nested_wrapper" if k in wrappers else "unknown_argument",
            "message": "is not a declared argument",
        }
        for k in undeclared
    ]
    # Required fields the agent did send, only wrapped, are not missing.
    entries.extend(
        p for p in problems if not (p["code"] == "required" and p["field"] in found)
    )
    return ToolInputError(
        message,
        error_code=ErrorCode.NESTED_WRAPPER,
        tool=tool,
        field=_field_name(key),
        fields=entries,
        hint="Send the fields flat at the top level of the arguments object.",
        extra={"wrapped_fields": found, "declared_fields": fields},
    )


def _unknown_error(
    tool: str,
    schema: ToolSchema,
    undeclared: list[str],
    problems: list[FieldError],
    fields: list[str],
) -> ToolInputError:
    candidates = sorted(schema.declared)
    suggestions: dict[str, str] = {}
    entries: list[FieldError] = []
    for key in undeclared:
        entry: FieldError = {
            "field": _field_name(key),
            "code": "unknown_argument",
            "message": "is not a declared argument",
        }
        if isinstance(key, str):
            close = difflib.get_close_matches(key, candidates, n=1, cutoff=0.6)
            if close:
                entry["did_you_mean"] = close[0]
                entry["message"] += f"; did you mean {close[0]!r}?"
                if is_plain_identifier(key):
                    suggestions[key] = close[0]
        entries.append(entry)
    entries.extend(problems)
    shown = ", ".join(_show_key(k) for k in undeclared)
    message = (
        f"Unknown argument{'s' if len(undeclared) > 1 else ''} {shown} for {tool}."
    )
    hints = [e["did_you_mean"] for e in entries if "did_you_mean" in e]
    if hints:
        message += " Did you mean " + ", ".join(repr(h) for h in hints) + "?"
    message += (
        f" Arguments of {tool}: {', '.join(candidates) if candidates else '(none)'}."
    )
    if any(k in arguments.PROTOCOL_ARGUMENT_NAMES for k in undeclared):
        message += " (Some protocol arguments apply to other kinds of tools only.)"
    return ToolInputError(
        message,
        error_code=ErrorCode.UNKNOWN_ARGUMENT,
        tool=tool,
        fields=entries,
        hint="Remove or rename the unknown arguments; the server would ignore them and lose their data.",
        extra={"suggestions": suggestions, "declared_fields": fields},
    )


def _schema_error(tool: str, problems: list[FieldError]) -> ToolInputError:
    summary = "; ".join(f"{p['field']} {p['message']}" for p in problems[:5])
    if len(problems) > 5:
        summary += f"; and {len(problems) - 5} more"
    references = all(p["code"] == "invalid_reference" for p in problems)
    return ToolInputError(
        f"Invalid {'references' if references else 'arguments'} for {tool}: {summary}.",
        error_code=ErrorCode.INVALID_REFERENCE
        if references
        else ErrorCode.INVALID_ARGUMENT,
        tool=tool,
        fields=problems,
        hint="Fix the listed fields and call again; the tool's inputSchema has the rules.",
    )


def _as_object(value: Any) -> Any:
    if isinstance(value, str):
        parsed = _parse_json_container(value)
        return parsed if isinstance(parsed, Mapping) else value
    return value


def _parse_json_container(text: str) -> Any:
    stripped = text.strip()
    if not stripped or stripped[0] not in "[{":
        return None
    try:
        value = json.loads(stripped)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict | list) else None


def _accepts_type(schema: Mapping[str, Any], value: Any) -> bool:
    wanted = "object" if isinstance(value, dict) else "array"
    return wanted in _types(schema)


def _types(schema: Mapping[str, Any]) -> set[str]:
    found: set[str] = set()
    type_ = schema.get("type")
    if isinstance(type_, str):
        found.add(type_)
    elif isinstance(type_, list):
        found.update(t for t in type_ if isinstance(t, str))
    for key in ("anyOf", "oneOf"):
        for option in schema.get(key) or ():
            if isinstance(option, Mapping):
                found |= _types(option)
    return found


def _valid(schema: Mapping[str, Any], value: Any) -> bool:
    return Draft202012Validator(schema).is_valid(value)


def _show_key(key: object) -> str:
    return (
        repr(key) if is_plain_identifier(key) else "(an argument with an unusual name)"
    )


def _field_name(key: object) -> str:
    return str(key) if is_plain_identifier(key) else "<key>"


def _indexes(indexes: Iterable[int]) -> str:
    shown = [str(i) for i in list(indexes)[:10]]
    return ", ".join(shown) + ("..." if len(shown) == 10 else "")
