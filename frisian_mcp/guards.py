"""Argument guards: no call shape may write an empty or partial row (ADR 0002).

:func:`check` is the one entry: JSON-string coercion (seed 003), value-free
schema validation, the nested-wrapper and unknown-key guards, bulk bodies,
the empty-write and query-length guards. No message repeats a caller value.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from jsonschema import Draft202012Validator

from frisian_mcp import arguments, query, references
from frisian_mcp.examples import schema_types
from frisian_mcp.exceptions import LIST_LIMIT, ToolInputError, few, plain_name
from frisian_mcp.schema import ToolSchema
from frisian_mcp.tools import Tool
from frisian_mcp.types import KINDS, Call, ErrorCode, FieldError, Kind
from frisian_mcp.validation import as_object, coerce, suggest
from frisian_mcp.validation import problems as schema_problems

__all__ = ["BULK_BODY_KEYS", "check"]

#: Keys under which a list of objects is a bulk create (DESIGN.md §3).
BULK_BODY_KEYS = frozenset({"objects", "data", "items", "_items", "body"})
#: Problems an error lists at most (bulk bodies: per item, up to 500).
_MAX_ENTRIES = 50


def check(
    tool: Tool,
    args: Mapping[str, Any],
    caller: str,
    live: query.LiveFilters | None = None,
) -> Call:
    """The call ``args`` make, or one carrying the argument error in ``error``.

    The URL variables are filled in whenever they are plain values, so the
    view's access checks can run before the error is reported. ``live``
    gives the filters a filter set adds per instance, if the schema's are
    open to them.
    """
    name, kind, schema = tool.name, tool.kind, tool.schema
    if schema is None:  # the registry calls only tools with a schema
        raise ValueError(f"{name} has no schema")
    call = Call(_path_kwargs(schema, args), arguments=args)
    call.input_schema = schema.input_schema
    args = arguments.without_client_keys(schema.declared, args)
    args = _path_ids(schema, coerce(schema.input_schema, args, BULK_BODY_KEYS))
    args = query.singletons(schema, args)  # a one-item list for one value
    try:
        found = _validate(schema, args)
        options, rest = arguments.split(schema.protocol_arguments, args)
        call.validate_only = options.get("mode") == "validate"
        items = _bulk_items(name, kind, schema, rest)
        if items is not None:
            # The items are checked one by one; here only the other arguments.
            others = {*options, *schema.path_arguments}
            found = [p for p in found if references.field_root(p["field"]) in others]
            _check_undeclared(name, schema, {}, found)
            call.body = _checked_items(name, schema.items or schema, items)
            call.bulk = True
            return call
        if kind == Kind.UPDATE:  # a record sent back: its read-only fields
            echoed = [k for k in rest if k not in schema.declared]
            call.echoed = {k: rest.pop(k) for k in echoed if k in schema.record_fields}
        to_query, to_body = _unchecked(schema, rest, call)
        _check_undeclared(name, schema, rest, found)
        call.listing = listing = arguments.list_state(
            name, options, caller, call.path_kwargs
        )
        call.paged = "page" in schema.protocol_arguments
        if listing.filters or schema.query_arguments or to_query:
            growing, joined = query.growing_filters(
                schema, listing.filters, live, call.path_kwargs
            )
            _check_undeclared(name, schema, {}, growing)
            call.query = query.pairs(name, schema, rest, listing, joined, to_query)
        if schema.body_argument is not None:
            call.body = rest.get(schema.body_argument)
        elif schema.body_fields or to_body:
            call.body = {**_body(schema, rest), **to_body}
            if kind == Kind.CREATE:
                _check_not_empty(name, schema, call.body)
    except ToolInputError as exc:
        call.error = exc
    return call


def _unchecked(
    schema: ToolSchema, args: dict[str, Any], call: Call
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Take from ``args`` what a tool whose schema is a guess passes to the
    view unchecked (ADR 0030): ``(to the query, to the body)``. Never an
    object (a wrapper) nor a protocol argument of another kind of tool."""
    where, passed = schema.unchecked_to, {}
    if where is not None:
        rule = Draft202012Validator(
            schema.input_schema.get("additionalProperties", True)
        )
        passed = {
            key: args.pop(key)
            for key, value in list(args.items())
            if key not in schema.declared
            and key not in arguments.NAMES
            and rule.is_valid(value)
            and not isinstance(as_object(value), Mapping)
        }
    call.unchecked = [plain_name(key) or "<key>" for key in passed]
    return (passed, {}) if where == "query" else ({}, passed)


def _validate(schema: ToolSchema, args: Mapping[str, Any]) -> list[FieldError]:
    return references.restate(schema, schema_problems(schema.validator, args))


def _check_undeclared(
    tool: str, schema: ToolSchema, args: Mapping[str, Any], found: list[FieldError]
) -> None:
    """Refuse undeclared arguments, reported together with ``found``."""
    undeclared = [key for key in args if key not in schema.declared]
    wrappers = [k for k in undeclared if isinstance(as_object(args[k]), Mapping)]
    if wrappers:
        raise _wrapper_error(tool, schema, args, wrappers, undeclared, found)
    if undeclared:
        raise _unknown_error(tool, schema, undeclared, found)
    if found:
        summary = "; ".join(f"{p['field']} {p['message']}" for p in found[:5])
        summary += f"; and {len(found) - 5} more" if len(found) > 5 else ""
        refs = all(p["code"] == "invalid_reference" for p in found)
        raise ToolInputError(
            f"Invalid {'references' if refs else 'arguments'} for {tool}: {summary}.",
            code=ErrorCode.INVALID_REFERENCE if refs else ErrorCode.INVALID_ARGUMENT,
            tool=tool,
            fields=found[:_MAX_ENTRIES],
            hint="Fix the listed fields and call again; the tool's inputSchema "
            "has the rules.",
        )


def _declared(names: list[str]) -> dict[str, Any]:
    """``declared_fields`` (a few) and, when there are more, how many."""
    many = {"declared_count": len(names)} if len(names) > LIST_LIMIT else {}
    return {"declared_fields": names[:LIST_LIMIT], **many}


def _body_fields(schema: ToolSchema) -> list[str]:
    return sorted(f for f in schema.body_fields if f in schema.declared)


def _wrapper_error(
    tool: str,
    schema: ToolSchema,
    args: Mapping[str, Any],
    wrappers: list[str],
    undeclared: list[str],
    found: list[FieldError],
) -> ToolInputError:
    key, fields = wrappers[0], _body_fields(schema)
    wrapped = [name for name in as_object(args[key]) if name in schema.declared]
    shown = _show_key(key)
    advice = (
        f"Unwrap {shown}: send {few(wrapped)} directly as top-level "
        f"arguments, not inside {shown}."
        if wrapped
        else f"Send the fields of {tool} as top-level arguments instead."
    )
    entries = _undeclared(undeclared[:LIST_LIMIT], wrappers)
    # Required fields the agent did send, only wrapped, are not missing.
    entries.extend(
        p for p in found if not (p["code"] == "required" and p["field"] in wrapped)
    )
    return ToolInputError(
        f"Argument {shown} is not a field of {tool} and its value is an object: "
        f"this looks like a REST-style wrapper. {advice} "
        f"Fields of {tool}: {few(fields) or '(none)'}.",
        code=ErrorCode.NESTED_WRAPPER,
        tool=tool,
        field=plain_name(key) or "<key>",
        fields=entries,
        hint="Send the fields flat at the top level of the arguments object.",
        extra={"wrapped_fields": wrapped[:LIST_LIMIT], **_declared(fields)},
    )


def _unknown_error(
    tool: str, schema: ToolSchema, undeclared: list[str], found: list[FieldError]
) -> ToolInputError:
    """Name a few unknown arguments, each with a "did you mean", and count all."""
    candidates = sorted(schema.declared)
    suggestions: dict[str, str] = {}
    entries = _undeclared(undeclared[:LIST_LIMIT], [])
    missing = {p["field"] for p in found if p["code"] == "required"}
    spare = [a for a in schema.path_arguments if a in missing]
    meant = suggest(undeclared[:LIST_LIMIT], candidates, spare)
    for key, entry in zip(undeclared, entries, strict=False):
        if key in meant:
            entry["did_you_mean"] = meant[key]
            entry["message"] += f"; did you mean {meant[key]!r}?"
            if plain_name(key):
                suggestions[key] = meant[key]
    hints = [repr(e["did_you_mean"]) for e in entries if "did_you_mean" in e]
    count = len(undeclared)
    names = few(map(_show_key, undeclared))
    message = f"Unknown argument{'s' if count > 1 else ''} {names} for {tool}."
    if hints:
        message += f" Did you mean {', '.join(hints)}?"
    message += f" Arguments of {tool}: {few(candidates) or '(none)'}."
    if any(k in arguments.NAMES for k in undeclared):
        message += " (Some protocol arguments apply to other kinds of tools only.)"
    if files := [k for k in undeclared if k in schema.file_fields]:
        message += (
            f" {few(files)}: file fields, which this server does not carry through "
            "tools; send the file over the REST API, or ask the server's operator "
            "to install the files extra (docs/files.md)."
        )
    return ToolInputError(
        message,
        code=ErrorCode.UNKNOWN_ARGUMENT,
        tool=tool,
        fields=entries + found[:_MAX_ENTRIES],
        hint="Remove or rename the unknown arguments; the server would ignore "
        "them and lose their data. help: true lists every argument.",
        extra={"suggestions": suggestions, **_declared(_body_fields(schema))},
    )


def _undeclared(keys: list[str], wrappers: list[str]) -> list[FieldError]:
    """One entry per undeclared argument; its name only if plain."""
    return [
        {"field": plain_name(k) or "<key>", "message": "is not a declared argument"}
        | {"code": "nested_wrapper" if k in wrappers else "unknown_argument"}
        for k in keys
    ]


def _bulk_items(
    tool: str, kind: Kind, schema: ToolSchema, args: Mapping[str, Any]
) -> list[Any] | None:
    """A bulk body's items: a bulk tool's list alone (ids as ``{"id": ...}``,
    ADR 0033), or one undeclared bulk key holding a list (a bulk create)."""
    keys = [k for k in args if k in BULK_BODY_KEYS and k not in schema.declared]
    if schema.items is not None:  # else its schema errors say what is wrong
        alone = set(args) - set(schema.path_arguments) == {schema.body_argument}
        keys = [str(schema.body_argument)] if alone else []
    if len(keys) != 1 or not isinstance(args[keys[0]], list):
        return None
    key, items = keys[0], args[keys[0]]
    refuse = functools.partial(
        ToolInputError, code=ErrorCode.INVALID_BULK_BODY, tool=tool, field=key
    )
    if schema.items is not None:
        ids = not schema.items.body_fields
        items = [{"id": i} if ids and not isinstance(i, Mapping) else i for i in items]
    elif len(args) != 1:
        if KINDS[kind].bulk and all(isinstance(i, Mapping) for i in items):
            raise refuse(
                f"A bulk body must be the only argument: send {{{key!r}: [...]}} "
                "alone, or the fields of one object flat."
            )
        return None
    elif schema.unchecked_to is not None and not KINDS[kind].bulk:
        return None  # the view's own body, sent unchecked (ADR 0030)
    elif not KINDS[kind].bulk or schema.path_arguments:
        raise refuse(
            f"{tool} does not take a list of objects; bulk bodies work with create "
            "tools only. Send one call per object, with its fields as top-level "
            "arguments."
        )
    if not items:
        raise refuse(f"The bulk body {key!r} is empty: send at least one object.")
    bad = [i for i, item in enumerate(items) if not isinstance(item, Mapping)]
    if bad:
        raise refuse(
            f"Every item of the bulk body {key!r} must be an object of fields; "
            f"items {few(bad, 10)} are not.",
            fields=[
                {"index": i, "field": key, "code": "not_an_object"}
                | {"message": "must be an object"}
                for i in bad[:50]
            ],
        )
    return list(items)


def _checked_items(
    tool: str, schema: ToolSchema, items: list[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """Guard every item like a single write; report every failing item."""
    failures: list[tuple[int, ToolInputError]] = []
    bodies = []
    for index, raw in enumerate(items):
        item = arguments.without_client_keys(schema.declared, raw)
        item = coerce(schema.input_schema, item, BULK_BODY_KEYS)
        try:
            _check_undeclared(tool, schema, item, _validate(schema, item))
            bodies.append(_body(schema, item))
            _check_not_empty(tool, schema, bodies[-1])
        except ToolInputError as exc:
            failures.append((index, exc))
    if not failures:
        return bodies
    fields: list[FieldError] = []
    for index, failure in failures:
        entries = failure.fields or [
            {"field": failure.field or "arguments", "code": failure.code.value}
            | {"message": failure.message}
        ]
        fields.extend({"index": index, **entry} for entry in entries)
    codes = {exc.code for _, exc in failures}
    first_index, first = failures[0]
    raise ToolInputError(
        f"{len(failures)} of {len(items)} items of the bulk body are invalid; "
        f"nothing was written. Item {first_index}: {first.message}",
        code=codes.pop() if len(codes) == 1 else ErrorCode.INVALID_ARGUMENT,
        tool=tool,
        fields=fields[:500],
        hint="Each entry of 'fields' names the item index; fix those items and "
        "send the whole list again.",
        extra={"failed_items": [i for i, _ in failures][:500]},
    )


def _check_not_empty(tool: str, schema: ToolSchema, body: Mapping[str, Any]) -> None:
    """Refuse a create with no content in any field, or a bulk update's entry
    with no field at all (its id is none; ADR 0033).

    No field at all is the wrapper trap's signature; all-blank fields write
    the same empty row, since DRF trims whitespace.
    """
    if not schema.body_fields or schema.body_argument is not None:
        return
    sent = [body[f] for f in schema.body_fields.values() if f in body]
    entry = bool(schema.path_filled)  # a bulk update's entry may blank a field
    if sent and (entry or not all(_blank(value) for value in sent)):
        return
    fields = few(schema.body_fields)
    effect = "change nothing" if entry else "create an empty record"
    where = "beside the id" if entry else "as top-level arguments"
    message = (
        f"Every field sent to {tool} is empty, so it would {effect}. Send at "
        f"least one field with a value: {fields}."
        if sent
        else f"{tool} received no fields, so it would {effect}. Send the fields "
        f"{where}: {fields}."
    )
    raise ToolInputError(
        message,
        code=ErrorCode.EMPTY_WRITE,
        tool=tool,
        hint='A REST-style wrapper such as {"data": {...}} is the usual cause: '
        "unwrap it.",
        extra=_declared(list(schema.body_fields)),
    )


def _body(schema: ToolSchema, args: Mapping[str, Any]) -> dict[str, Any]:
    """The body by field name (``body_code`` is ``code``: docs/listing.md)."""
    body = {name: args[name] for name in schema.path_filled if name in args}
    body.update((f, args[a]) for a, f in schema.body_fields.items() if a in args)
    return body


def _path_kwargs(schema: ToolSchema, args: Mapping[str, Any]) -> dict[str, str]:
    """URL variables from the path arguments that are plain strings or ints."""
    return {
        kwarg: str(args[name])
        for name, kwarg in schema.path_arguments.items()
        if isinstance(args.get(name), str | int) and not isinstance(args[name], bool)
    }


def _path_ids(schema: ToolSchema, args: dict[str, Any]) -> dict[str, Any]:
    """Integer ids as (lossless) decimal text where a path argument is text."""
    properties = schema.input_schema.get("properties") or {}
    for name in schema.path_arguments:
        types = set(schema_types(properties.get(name) or {}))
        text_only = "string" in types and not types & {"integer", "number"}
        if type(args.get(name)) is int and text_only:
            args[name] = str(args[name])
    return args


def _blank(value: Any) -> bool:
    return not value.strip() if isinstance(value, str) else value in (None, [], {})


def _show_key(key: object) -> str:
    return repr(plain_name(key) or "") if plain_name(key) else "(an unusual name)"
