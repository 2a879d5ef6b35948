"""The query string of a call: query arguments and ``filters`` as pairs.

Filter keys beyond the schema's, where a filter set adds filters per
instance, are checked against the filters it has now (docs/listing.md);
a one-item list stands for its item where one value is taken; a query
string longer than ``MAX_QUERY_LENGTH`` is refused.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urlencode

from jsonschema import Draft202012Validator

from frisian_mcp.conf import mcp_settings
from frisian_mcp.examples import schema_types
from frisian_mcp.exceptions import ToolInputError, plain_name
from frisian_mcp.filtersets import FilterSchemas
from frisian_mcp.references import field_root
from frisian_mcp.schema import ToolSchema
from frisian_mcp.types import ErrorCode, FieldError, ListState
from frisian_mcp.validation import problems, unknown_keys

__all__ = ["LiveFilters", "filter_error", "growing_filters", "pairs", "singletons"]

#: ``{name: schema}`` of the filters a filter-set instance adds, now, for
#: a call with these path values.
LiveFilters = Callable[[Mapping[str, str]], FilterSchemas]


def pairs(
    tool: str,
    schema: ToolSchema,
    rest: Mapping[str, Any],
    listing: ListState,
    joined: frozenset[str] = frozenset(),
    unchecked: Mapping[str, Any] | None = None,
) -> list[tuple[str, str]]:
    """The query string's ``(name, value)`` pairs, within the length cap.

    A list is sent as REST sends it to its parameter: comma-joined where the
    schema (or ``joined``, of per-instance filters) says so, else repeated.
    ``unchecked``: parameters nobody declared, sent as they are (ADR 0030).
    """
    query: list[tuple[str, str]] = []
    sources = {}
    joined = joined | schema.comma_separated
    sent = [(a, p, rest[a]) for a, p in schema.query_arguments.items() if a in rest]
    sent += [(plain_name(k) or "<key>", k, v) for k, v in (unchecked or {}).items()]
    for argument, parameter, value in sent:
        query.extend(_pairs(parameter, value, joined))
        sources[parameter] = argument
    for key, value in listing.filters.items():
        query.extend(_pairs(key, value, joined))
        sources[key] = f"filters.{key}"
    _check_length(tool, query, sources)
    return query


def singletons(schema: ToolSchema, args: Mapping[str, Any]) -> Mapping[str, Any]:
    """``args`` with a one-item list given to a query argument or filter
    that takes one value replaced by its item: the query string is the same.
    """
    properties = schema.input_schema.get("properties", {})
    found = [name for name in schema.query_arguments if name in args]
    filters = args.get("filters")
    if not found and not isinstance(filters, Mapping):
        return args
    result = dict(args)
    for name in found:
        result[name] = _one(args[name], properties.get(name))
    if isinstance(filters, Mapping):
        typed = schema.filter_parameters
        result["filters"] = {k: _one(v, typed.get(k)) for k, v in filters.items()}
    return result


def _one(value: Any, schema: Any) -> Any:
    """A one-item list's scalar item, where ``schema`` takes no list."""
    if (
        isinstance(value, list)
        and len(value) == 1
        and not isinstance(value[0], list | dict)
        and isinstance(schema, Mapping)
        and "array" not in schema_types(schema)
    ):
        return value[0]
    return value


def growing_filters(
    schema: ToolSchema,
    filters: Mapping[str, Any],
    live: LiveFilters | None,
    path_kwargs: Mapping[str, str],
) -> tuple[list[FieldError], frozenset[str]]:
    """What is wrong with the keys of ``filters`` the schema does not type,
    and which of them take a list comma-joined.

    Only where the schema's ``filters`` are open to per-instance filters; a
    key no filter set has now is ``unknown_key``, as a closed object's is.
    """
    extra = [key for key in filters if key not in schema.filter_parameters]
    if not schema.growing_filters or not extra:
        return [], frozenset()
    found = live(path_kwargs) if live is not None else FilterSchemas()
    return _growing_problems(schema, filters, extra, found), found.joined


def _growing_problems(
    schema: ToolSchema,
    filters: Mapping[str, Any],
    extra: list[str],
    found: FilterSchemas,
) -> list[FieldError]:
    unknown = [key for key in extra if key not in found]
    if unknown:
        message = unknown_keys(unknown, {*schema.filter_parameters, *found})
        return [{"field": "filters", "code": "unknown_key", "message": message}]
    typed = {key: found[key] for key in extra}
    root = {"properties": {"filters": {"properties": typed}}}
    sent = {key: _one(value, typed.get(key)) for key, value in filters.items()}
    return problems(Draft202012Validator(root), {"filters": sent})


def filter_error(entry: FieldError, filters: Mapping[str, Any]) -> FieldError:
    """A filter backend's error at the documented ``filters.<key>`` path.

    A range filter's error (``price``) is at the one key of its pair sent
    (``price_min``), as its widget names them.
    """
    field, cut = entry["field"], len(entry["field"]) + 1
    pair = [k for k in filters if k[:cut] == f"{field}_" and k[cut:].isalnum()]
    if field_root(field) in filters or pair:
        key = pair[0] if len(pair) == 1 and field not in filters else field
        return {**entry, "field": f"filters.{key}"}
    whole = field in ("non_field_errors", "__all__")
    return {**entry, "field": "filters"} if whole else entry


def _check_length(
    tool: str, query: list[tuple[str, str]], sources: Mapping[str, str]
) -> None:
    """Refuse filters a REST caller's request line could not carry either."""
    limit = mcp_settings.MAX_QUERY_LENGTH
    if not query or len(urlencode(query)) <= limit:
        return
    name, _ = max(query, key=lambda pair: len(urlencode([pair])))
    field = sources.get(name, name)
    raise ToolInputError(
        f"The filters and query arguments of this {tool} call make a query string "
        f"of more than {limit} characters, more than this server accepts; the "
        f"longest value is {field}.",
        code=ErrorCode.INVALID_ARGUMENT,
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


def _pairs(name: str, value: Any, joined: frozenset[str]) -> list[tuple[str, str]]:
    values = value if isinstance(value, list) else [value]
    # Booleans as the filter backends read them ("true"), not as "True".
    items = [
        str(v).lower() if isinstance(v, bool) else str(v)
        for v in values
        if v is not None
    ]
    if isinstance(value, list) and name in joined:
        return [(name, ",".join(items))]
    return [(name, item) for item in items]
