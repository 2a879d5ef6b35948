"""Protocol arguments: the one table, and what each one does.

A protocol argument steers a call and never reaches the serializer: ``help``,
``mode`` (``validate`` writes nothing), ``filters``, ``page``, ``page_size``,
``continuation_token`` and ``filter_keys``. Schemas declare exactly these
(so they can be strict) and :func:`split` strips exactly these. Tokens, for
list pages and for ``tools/list`` cursors, come from the one signer here.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from frisian_mcp.conf import mcp_settings
from frisian_mcp.exceptions import ToolInputError
from frisian_mcp.tokens import FOREIGN, BadToken, sign, unsign
from frisian_mcp.types import KINDS, Call, ErrorCode, JSONObject, Kind, ListState

__all__ = [
    "CLIENT_KEYS",
    "NAMES",
    "BadToken",
    "declared_for",
    "explanation",
    "finish",
    "list_state",
    "sign",
    "split",
    "unsign",
    "without_client_keys",
]


#: Names of every protocol argument (which kinds take each: types.KINDS).
NAMES = frozenset(name for row in KINDS.values() for name in row.arguments)
#: Keys some MCP clients add inside ``arguments`` on every call: dropped
#: unless the tool declares the name (docs/index.md, "Keys clients add").
CLIENT_KEYS = frozenset({"_meta", "toolCallId"})
#: The arguments of every tool that pages.
_PAGING = ("page", "page_size", "continuation_token")


#: Each protocol argument's one-sentence description in the listing, and
#: its full explanation in ``help`` (docs/listing.md).
_DOCS = {
    "help": (
        "true: only document this tool.",
        "true: return this tool's documentation (arguments, lookups, filters, "
        "an example call) instead of running it.",
    ),
    "mode": (
        "validate: check, write nothing.",
        '"validate": run every check and the API\'s own validation and report '
        'what would be written, writing nothing; "execute" (default) writes.',
    ),
    "filters": (
        "Filters, by key.",
        "Filter, search and ordering parameters, applied by the API's own filter "
        "backends. Only the keys listed under 'filters' are accepted.",
    ),
    "page": ("Page number.", "Page number to return, starting at 1 (default 1)."),
    "page_size": ("Rows per page.", "Rows per page (default {size}, at most {top})."),
    "continuation_token": (
        "A result's next_token: its next page.",
        "The next_token of a previous result: returns the next page with the "
        "same filters, page size and filter_keys.",
    ),
    "filter_keys": (
        "Return only these record fields.",
        "Return only these fields of each record, to keep responses small.",
    ),
}
_GROWING = (
    "Filters, by key; help lists those added per instance.",
    " Filter sets of this API add filters per instance (such as one per "
    "custom field): 'filters' lists those that exist now, and any of them is "
    "accepted.",
)
#: The value of a filter key the schema cannot name in advance.
_ANY_FILTER = {
    "type": ["string", "number", "boolean", "array"],
    "items": {"type": ["string", "number", "boolean"]},
}


def declared_for(
    kind: Kind,
    filters: Mapping[str, Any],
    record_fields: tuple[str, ...],
    *,
    growing: bool = False,
    paged: bool = False,
) -> dict[str, JSONObject]:
    """``{name: schema}`` of the protocol arguments a tool of ``kind`` takes.

    ``growing``: the view's filter sets add filters per instance, so the
    ``filters`` object takes keys beyond ``filters``, checked per call.
    ``paged``: a tool of another kind pages too (a GET action REST pages).
    """
    filtering: JSONObject | None = None
    if filters or growing:
        filtering = {
            "type": "object",
            "properties": {name: filters[name] for name in sorted(filters)},
            "additionalProperties": copy.deepcopy(_ANY_FILTER) if growing else False,
        }
    schemas: dict[str, JSONObject | None] = {
        "help": {"type": "boolean"},
        "mode": {
            "type": "string",
            "enum": ["execute", "validate"],
            "default": "execute",
        },
        "filters": filtering,
        "page": {"type": "integer", "minimum": 1, "default": 1},
        "page_size": {
            "type": "integer",
            "minimum": 1,
            "maximum": mcp_settings.MAX_PAGE_SIZE,
            "default": mcp_settings.PAGE_SIZE,
        },
        "continuation_token": {"type": "string", "minLength": 1},
        "filter_keys": {
            "type": "array",
            "items": {"type": "string", "enum": list(record_fields)},
            "minItems": 1,
            "uniqueItems": True,
        }
        if record_fields
        else None,
    }
    declared = {}
    for name, schema in schemas.items():
        takes = name in KINDS[kind].arguments or (paged and name in _PAGING)
        if schema is not None and takes:
            short = _GROWING[0] if growing and name == "filters" else _DOCS[name][0]
            declared[name] = {**schema, "description": short}
    return declared


def explanation(name: str, *, growing: bool = False) -> str:
    """The full explanation of protocol argument ``name``, for ``help``."""
    text = _DOCS[name][1].format(
        size=mcp_settings.PAGE_SIZE, top=mcp_settings.MAX_PAGE_SIZE
    )
    return text + _GROWING[1] if growing and name == "filters" else text


def split(
    declared: tuple[str, ...], args: Mapping[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(options, rest)``: the tool's protocol arguments and everything else."""
    options = {k: v for k, v in args.items() if k in declared}
    return options, {k: v for k, v in args.items() if k not in options}


def without_client_keys(declared: frozenset[str], args: Mapping[str, Any]) -> Any:
    """``args`` without the :data:`CLIENT_KEYS` the tool does not declare."""
    if not CLIENT_KEYS.intersection(args):
        return args
    return {k: v for k, v in args.items() if k in declared or k not in CLIENT_KEYS}


# -- list state (tokens: the one signer, frisian_mcp.tokens) --------------
def list_state(
    tool: str, options: Mapping[str, Any], caller: str, path: Mapping[str, str]
) -> ListState:
    """Filters, page, page size and projection, from a token or the call.

    A token holds the call's ``path`` arguments too: a detail action's (or a
    nested list's) next page is that row's, never another's.
    """
    token = options.get("continuation_token")
    if token is None:
        return ListState(
            filters=dict(options.get("filters") or {}),
            page=options.get("page") or 1,
            page_size=options.get("page_size") or mcp_settings.PAGE_SIZE,
            filter_keys=options.get("filter_keys"),
        )
    if "page" in options:
        raise ToolInputError(
            "Send either page or continuation_token, not both: the token already "
            "names the next page.",
            code=ErrorCode.INVALID_ARGUMENT,
            tool=tool,
            field="page",
        )
    try:
        payload = unsign(
            "continuation_token", token, mcp_settings.CONTINUATION_TOKEN_MAX_AGE
        )
        state = _checked_state(payload, tool, caller)
    except BadToken as exc:
        raise _token_error(tool, str(exc)) from None
    if payload.get("a", {}) != path:
        raise _token_error(
            tool,
            "was issued for other path arguments: send it with the ones of the "
            "page it continues, or start again from page 1",
        )
    for option, value in (
        ("filters", state.filters),
        ("page_size", state.page_size),
        ("filter_keys", state.filter_keys),
    ):
        if option in options and options[option] != value:
            raise _token_error(
                tool,
                f"was issued for other {option}: send it without {option}, or "
                "start again from page 1",
            )
    return state


def _checked_state(payload: JSONObject, tool: str, caller: str) -> ListState:
    """The list state a verified token holds, held to the same caps as a call."""
    if payload.get("t") != tool:
        raise BadToken("belongs to another tool")
    if payload.get("u") != caller:
        raise BadToken("belongs to another caller")
    page, size = payload.get("p"), payload.get("s")
    filters, keys = payload.get("f"), payload.get("k")
    if not (
        type(page) is int
        and page >= 1
        and type(size) is int
        and 1 <= size <= mcp_settings.MAX_PAGE_SIZE
        and isinstance(filters, dict)
        and (
            keys is None
            or (isinstance(keys, list) and all(isinstance(k, str) for k in keys))
        )
    ):
        raise BadToken(FOREIGN)
    query = _pairs(payload.get("q", []))
    return ListState(filters, page, size, keys, query)


def _pairs(value: Any) -> tuple[tuple[str, str], ...]:
    """A token's query pairs (a host paginator's next link, ADR 0035)."""
    if not isinstance(value, list) or not all(
        isinstance(p, list) and len(p) == 2 and all(isinstance(x, str) for x in p)
        for p in value
    ):
        raise BadToken(FOREIGN)
    return tuple((name, text) for name, text in value)


def _token_error(tool: str, reason: str) -> ToolInputError:
    return ToolInputError(
        f"The continuation_token {reason}.",
        code=ErrorCode.INVALID_TOKEN,
        tool=tool,
        field="continuation_token",
        hint="Pass back next_token exactly as received, to the same tool, within "
        "its lifetime.",
    )


def finish(
    tool: str, kind: Kind, call: Call, structured: JSONObject, caller: str
) -> JSONObject:
    """Project records onto ``filter_keys``; add a page's ``next_token``,
    and the names of the arguments sent unchecked (ADR 0030)."""
    listing = call.listing
    keys = listing.filter_keys
    rows = structured.get("results") if call.paged else None
    if not isinstance(rows, list):
        structured = _project(structured, keys)
    else:
        if keys:
            structured["results"] = [_project(row, keys) for row in rows]
        if structured.get("has_more") is True:
            page = int(structured.get("page", listing.page)) + 1
            size = int(structured.get("page_size", listing.page_size))
            if call.next_query:  # a host's page: its size is in its link
                size = listing.page_size
            payload: JSONObject = {"t": tool, "u": caller, "f": listing.filters}
            payload.update(k=keys, p=page, s=size)
            if call.next_query:  # the pairs a host's own paginator reads
                payload["q"] = call.next_query
            if call.path_kwargs:  # bound to its parent (issue 25 item 13)
                payload["a"] = call.path_kwargs
            structured["next_token"] = sign("continuation_token", payload)
    if call.unchecked:
        # A view's own "unchecked" key stays its own, under "result".
        if "unchecked" in structured:
            structured = {"result": structured}
        structured["unchecked"] = call.unchecked
    return structured


def _project(record: Any, keys: list[str] | None) -> Any:
    """``record`` with only ``keys`` (anything but an object stays)."""
    if keys and isinstance(record, Mapping):
        return {key: record[key] for key in keys if key in record}
    return record
