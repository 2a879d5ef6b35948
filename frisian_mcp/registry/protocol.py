"""What the protocol arguments do: help, continuation tokens, projection.

``help: true`` answers with the tool's documentation and one example call
built from (and valid against) its inputSchema. ``continuation_token`` is
opaque, signed with Django's signing framework and bound to the tool, the
caller, the filters (ordering included) and the page size; it expires after
``CONTINUATION_TOKEN_MAX_AGE`` seconds and needs no server-side state, so any
worker accepts a token any other issued. ``filter_keys`` projects records
onto fewer fields.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from django.core import signing
from jsonschema import Draft202012Validator

from frisian_mcp import arguments
from frisian_mcp.conf import mcp_settings
from frisian_mcp.exceptions import ToolInputError
from frisian_mcp.invocation import CallContext
from frisian_mcp.registry.tools import Tool
from frisian_mcp.types import ErrorCode, JSONObject

__all__ = ["example_value", "help_document", "issue_token", "project", "read_token"]

_TOKEN_SALT = "frisian_mcp.continuation_token"
_EXAMPLE_STRINGS = {
    "email": "user@example.com",
    "uuid": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
    "date": "2026-01-31",
    "date-time": "2026-01-31T12:00:00Z",
    "time": "12:00:00",
    "uri": "https://example.com/",
    "ipv4": "192.0.2.1",
    "ipv6": "2001:db8::1",
    "decimal": "1.00",
    "duration": "1 00:00:00",
    "hostname": "example.com",
}


def help_document(tool: Tool) -> JSONObject:
    """The ``help`` result of ``tool``: what it does and how to call it."""
    schema = tool.require_schema()
    properties: Mapping[str, Any] = schema.input_schema.get("properties", {})
    required = set(schema.input_schema.get("required", ()))
    documented = []
    for name, prop in properties.items():
        if name in schema.protocol_arguments:
            continue
        where = (
            "path"
            if name in schema.path_arguments
            else "query"
            if name in schema.query_arguments
            else "body"
        )
        entry: JSONObject = {"name": name, "required": name in required, "in": where}
        entry.update(_summary(prop))
        relation = schema.relations.get(name)
        if relation is not None and relation.managed:
            entry["lookup_keys"] = [list(key) for key in relation.lookup_sets]
        documented.append(entry)
    doc: JSONObject = {
        "tool": tool.name,
        "title": tool.title,
        "kind": tool.kind,
        "description": tool.description,
        "arguments": documented,
        "example": {
            "name": tool.name,
            "arguments": example_arguments(schema.input_schema),
        },
        "protocol_arguments": {
            name: str(properties[name].get("description", ""))
            for name in schema.protocol_arguments
        },
    }
    if schema.filter_parameters:
        doc["filters"] = {
            name: _summary(p) for name, p in sorted(schema.filter_parameters.items())
        }
    if schema.record_fields:
        doc["record_fields"] = list(schema.record_fields)
    if (
        tool.kind == arguments.CREATE
        and schema.body_argument is None
        and not schema.path_arguments
    ):
        doc["bulk"] = (
            'Create many at once: {"objects": [{...}, {...}]} as the only argument; '
            "all are saved or none."
        )
    return {"help": doc}


def example_arguments(input_schema: Mapping[str, Any]) -> JSONObject:
    """Arguments of one call that satisfies ``input_schema``.

    The required arguments, or the first body field when nothing is
    required; the result is checked against the schema and trimmed to the
    required arguments if an optional example does not fit.
    """
    properties: Mapping[str, Any] = input_schema.get("properties", {})
    required = list(input_schema.get("required", ()))
    names = (
        required
        or [n for n in properties if n not in arguments.PROTOCOL_ARGUMENT_NAMES][:1]
    )
    example = {
        name: example_value(properties[name]) for name in names if name in properties
    }
    validator = Draft202012Validator(input_schema)
    if not validator.is_valid(example):
        example = {
            name: example_value(properties[name])
            for name in required
            if name in properties
        }
    return example


def example_value(schema: Any) -> Any:
    """A value ``schema`` accepts, for documentation."""
    if not isinstance(schema, Mapping):
        return None
    for key in ("examples", "enum"):
        values = [v for v in schema.get(key) or () if v is not None]
        if values:
            return copy.deepcopy(values[0])
    if "default" in schema and schema["default"] is not None:
        return copy.deepcopy(schema["default"])
    for key in ("anyOf", "oneOf"):
        options = [
            o
            for o in schema.get(key) or ()
            if isinstance(o, Mapping) and o.get("type") != "null"
        ]
        if options:
            return example_value(options[0])
    type_ = schema.get("type")
    if isinstance(type_, list):
        type_ = next((t for t in type_ if t != "null"), None)
    if type_ == "string":
        return _example_string(schema)
    if type_ == "integer":
        return (
            max(int(schema.get("minimum", 1)), 1)
            if schema.get("maximum", 1) >= 1
            else int(schema["maximum"])
        )
    if type_ == "number":
        return float(schema.get("minimum", 1.5))
    if type_ == "boolean":
        return True
    if type_ == "array":
        return [example_value(schema.get("items", {}))]
    if type_ == "object":
        props = schema.get("properties") or {}
        names = list(schema.get("required") or [])
        for option in schema.get("anyOf") or ():
            names = names or list(option.get("required") or [])
        names = names or list(props)[:1]
        return {name: example_value(props.get(name, {})) for name in names}
    return "value"


def issue_token(
    tool: str,
    context: CallContext,
    *,
    filters: Mapping[str, Any],
    filter_keys: list[str] | None,
    page: int,
    page_size: int,
) -> str:
    """A continuation token for ``page`` of ``tool`` as called by ``context``."""
    payload = {
        "t": tool,
        "u": _caller(context),
        "f": dict(filters),
        "k": filter_keys,
        "p": page,
        "s": page_size,
    }
    return signing.dumps(payload, salt=_TOKEN_SALT, compress=True)


def read_token(token: str, tool: str, context: CallContext) -> dict[str, Any]:
    """Check ``token`` and return its payload (filters, page, page size).

    Raises ``invalid_token`` when it is malformed, tampered with, expired,
    or issued for another tool or caller.
    """
    max_age = int(mcp_settings.CONTINUATION_TOKEN_MAX_AGE)
    try:
        payload = signing.loads(token, salt=_TOKEN_SALT, max_age=max_age)
    except signing.SignatureExpired:
        raise _token_error(
            tool, "has expired; list again from the first page"
        ) from None
    except signing.BadSignature:
        raise _token_error(tool, "is not a token this server issued") from None
    if not isinstance(payload, dict) or payload.get("t") != tool:
        raise _token_error(tool, "belongs to another tool")
    if payload.get("u") != _caller(context):
        raise _token_error(tool, "belongs to another caller")
    return payload


def project(record: Any, keys: list[str]) -> Any:
    """``record`` with only ``keys`` (records that are not objects stay)."""
    if isinstance(record, dict):
        return {key: record[key] for key in keys if key in record}
    return record


def _caller(context: CallContext) -> str:
    user = context.user
    if getattr(user, "is_authenticated", False):
        return f"user:{user.pk}"
    return "anonymous"


def _token_error(tool: str, reason: str) -> ToolInputError:
    return ToolInputError(
        f"The continuation_token {reason}.",
        error_code=ErrorCode.INVALID_TOKEN,
        tool=tool,
        field="continuation_token",
        hint="Pass back next_token exactly as received, to the same tool, within its lifetime.",
    )


def _example_string(schema: Mapping[str, Any]) -> str:
    value = _EXAMPLE_STRINGS.get(str(schema.get("format")), "text")
    if schema.get("pattern") == "^-?[0-9]+$":
        value = "1"
    minimum, maximum = int(schema.get("minLength", 0)), schema.get("maxLength")
    if len(value) < minimum:
        value = value + "x" * (minimum - len(value))
    if maximum is not None and len(value) > int(maximum):
        value = value[: int(maximum)]
    return value


def _summary(schema: Mapping[str, Any]) -> JSONObject:
    """Type, enum, format, bounds and description of one argument."""
    summary: JSONObject = {}
    types = _types(schema)
    if types:
        summary["type"] = types[0] if len(types) == 1 else types
    for key in (
        "enum",
        "format",
        "maxLength",
        "minLength",
        "minimum",
        "maximum",
        "default",
        "description",
    ):
        if key in schema:
            summary[key] = schema[key]
    if "items" in schema and isinstance(schema["items"], Mapping):
        item_types = _types(schema["items"])
        if item_types:
            summary["items"] = item_types[0] if len(item_types) == 1 else item_types
    return summary


def _types(schema: Mapping[str, Any]) -> list[str]:
    type_ = schema.get("type")
    found: list[str] = [type_] if isinstance(type_, str) else list(type_ or [])
    for option in schema.get("anyOf") or ():
        if isinstance(option, Mapping):
            for t in _types(option):
                if t not in found:
                    found.append(t)
    return found
