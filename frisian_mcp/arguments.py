"""Protocol arguments: the one table of arguments that are not serializer fields.

A protocol argument steers the call and is stripped before the serializer
sees the data: ``help`` (documentation instead of a call), ``mode``
(``validate`` writes nothing), ``page``/``page_size``/``continuation_token``
(paging), ``filters`` (the viewset's filter backends) and ``filter_keys``
(project records onto fewer fields). Each entry says which kinds of tools it
applies to and what its JSON Schema is. ``schema`` declares exactly these
arguments on exactly those tools, and ``registry`` strips exactly these, so
inputSchemas can be strict (``additionalProperties: false``) and stay in sync
with the runtime by construction.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from frisian_mcp.conf import mcp_settings

__all__ = [
    "PROTOCOL_ARGUMENTS",
    "ProtocolArgument",
    "protocol_arguments_for",
]

#: Tool kinds: what a tool does, derived from its action and HTTP method.
LIST = "list"
READ = "read"
CREATE = "create"
UPDATE = "update"
DELETE = "delete"
ACTION = "action"
ALL_KINDS = frozenset({LIST, READ, CREATE, UPDATE, DELETE, ACTION})


@dataclass(frozen=True)
class ProtocolArgument:
    """One protocol argument: its name, the tool kinds it applies to, its schema.

    ``build_schema`` receives the tool's context (for ``filters``: the filter
    parameters the viewset's backends declare) and returns the property's JSON
    Schema, or ``None`` when the argument does not apply to that tool after all.
    """

    name: str
    kinds: frozenset[str]
    build_schema: Callable[[Mapping[str, Any]], dict[str, Any] | None]


def _help_schema(context: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "type": "boolean",
        "description": (
            "true: return this tool's documentation (arguments, lookups, an "
            "example call) instead of running it."
        ),
    }


def _mode_schema(context: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "type": "string",
        "enum": ["execute", "validate"],
        "default": "execute",
        "description": (
            '"validate": run every check and report what would be written, '
            "writing nothing."
        ),
    }


def _page_schema(context: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "type": "integer",
        "minimum": 1,
        "description": "Page number to return, starting at 1 (default 1).",
    }


def _page_size_schema(context: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "type": "integer",
        "minimum": 1,
        "maximum": int(mcp_settings.MAX_PAGE_SIZE),
        "description": (
            f"Rows per page (default {int(mcp_settings.PAGE_SIZE)}, "
            f"at most {int(mcp_settings.MAX_PAGE_SIZE)})."
        ),
    }


def _token_schema(context: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "type": "string",
        "minLength": 1,
        "description": (
            "The next_token of a previous result: returns the next page with "
            "the same filters."
        ),
    }


def _filters_schema(context: Mapping[str, Any]) -> dict[str, Any] | None:
    parameters: Mapping[str, dict[str, Any]] = context.get("filter_parameters") or {}
    if not parameters:
        return None
    return {
        "type": "object",
        "properties": {name: parameters[name] for name in sorted(parameters)},
        "additionalProperties": False,
        "description": (
            "Filter, search and ordering parameters, applied by the API's own "
            "filter backends. Only the keys listed here are accepted."
        ),
    }


def _filter_keys_schema(context: Mapping[str, Any]) -> dict[str, Any] | None:
    fields: list[str] = list(context.get("record_fields") or ())
    if not fields:
        return None
    return {
        "type": "array",
        "items": {"type": "string", "enum": fields},
        "minItems": 1,
        "uniqueItems": True,
        "description": "Return only these fields of each record (smaller responses).",
    }


#: Every protocol argument, in the order tools declare them.
PROTOCOL_ARGUMENTS: tuple[ProtocolArgument, ...] = (
    ProtocolArgument("help", ALL_KINDS, _help_schema),
    ProtocolArgument("mode", frozenset({CREATE, UPDATE}), _mode_schema),
    ProtocolArgument("filters", frozenset({LIST}), _filters_schema),
    ProtocolArgument("page", frozenset({LIST}), _page_schema),
    ProtocolArgument("page_size", frozenset({LIST}), _page_size_schema),
    ProtocolArgument("continuation_token", frozenset({LIST}), _token_schema),
    ProtocolArgument("filter_keys", frozenset({LIST, READ}), _filter_keys_schema),
)

#: Names of every protocol argument.
PROTOCOL_ARGUMENT_NAMES = frozenset(argument.name for argument in PROTOCOL_ARGUMENTS)


def protocol_arguments_for(
    kind: str, context: Mapping[str, Any]
) -> dict[str, dict[str, Any]]:
    """Return ``{name: schema}`` of the protocol arguments a tool kind takes."""
    declared = {}
    for argument in PROTOCOL_ARGUMENTS:
        if kind in argument.kinds:
            schema = argument.build_schema(context)
            if schema is not None:
                declared[argument.name] = schema
    return declared
