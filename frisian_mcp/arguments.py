"""Protocol arguments: the one table, and what each one does.

A protocol argument steers a call and never reaches the serializer: ``help``,
``mode`` (``validate`` writes nothing), ``filters``, ``page``, ``page_size``,
``continuation_token`` and ``filter_keys``, one :class:`ProtocolArgument`
row each in :data:`ARGUMENTS`; extras add their own rows (ADR 0042).
Schemas declare exactly the rows a kind takes (so they can be strict) and
:func:`split` strips exactly these. List pages carry the one signer's tokens.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from frisian_mcp.conf import mcp_settings
from frisian_mcp.exceptions import ToolInputError
from frisian_mcp.tokens import FOREIGN, BadToken, sign, unsign
from frisian_mcp.types import KINDS, Call, ErrorCode, JSONObject, Kind, ListState

__all__ = [
    "ARGUMENTS",
    "CLIENT_KEYS",
    "NAMES",
    "BadToken",
    "Facts",
    "ProtocolArgument",
    "declared_for",
    "list_state",
    "next_token",
    "register",
    "sign",
    "split",
    "unsign",
    "without_client_keys",
]


class Facts(NamedTuple):
    """What a tool's protocol arguments name: its filters (``growing``: its
    filter sets add more per instance) and its record's fields."""

    filters: Mapping[str, Any] = {}
    record_fields: tuple[str, ...] = ()
    growing: bool = False


@dataclass(frozen=True)
class ProtocolArgument:
    """One protocol argument: its schema (or a function of the tool's
    :class:`Facts` making it; ``None``: nothing to name), its sentence in the
    listing and its explanation in ``help``, which may name ``{size}``,
    ``{top}`` (the page sizes) and ``{growing}`` (docs/listing.md)."""

    name: str
    schema: JSONObject | Callable[[Facts], JSONObject | None]
    listing: str
    help: str

    def declared(self, facts: Facts | None = None) -> JSONObject | None:
        """The argument's property in an inputSchema, with its sentence."""
        made = self.schema
        schema = made(facts or Facts()) if callable(made) else copy.deepcopy(made)
        if schema is not None:
            schema.setdefault("description", self.listing)
        return schema

    def explained(self, *, growing: bool = False) -> str:
        """The argument's explanation, for ``help``."""
        more = _GROWING[1] if growing else ""
        top = mcp_settings.MAX_PAGE_SIZE
        return self.help.format(size=mcp_settings.PAGE_SIZE, top=top, growing=more)


def _filters(facts: Facts) -> JSONObject | None:
    if not (facts.filters or facts.growing):
        return None
    filters = {"type": "object", "properties": dict(sorted(facts.filters.items()))}
    if not facts.growing:
        return {**filters, "additionalProperties": False}
    more = copy.deepcopy(_ANY_FILTER)
    return {**filters, "additionalProperties": more, "description": _GROWING[0]}


def _page_size(facts: Facts) -> JSONObject:
    top, size = mcp_settings.MAX_PAGE_SIZE, mcp_settings.PAGE_SIZE
    return {"type": "integer", "minimum": 1, "maximum": top, "default": size}


def _filter_keys(facts: Facts) -> JSONObject | None:
    if not facts.record_fields:
        return None
    keys = {"type": "string", "enum": list(facts.record_fields)}
    return {"type": "array", "items": keys, "minItems": 1, "uniqueItems": True}


#: The protocol arguments by name; which kinds take each: ``KINDS``.
ARGUMENTS: dict[str, ProtocolArgument] = {
    row.name: row
    for row in (
        ProtocolArgument(
            "help",
            {"type": "boolean"},
            "true: only document this tool.",
            "true: return this tool's documentation (arguments, lookups, "
            "filters, an example call) instead of running it.",
        ),
        ProtocolArgument(
            "mode",
            {"type": "string", "enum": ["execute", "validate"], "default": "execute"},
            "validate: check, write nothing.",
            '"validate": run every check and the API\'s own validation and '
            'report what would be written, writing nothing; "execute" '
            "(default) writes.",
        ),
        ProtocolArgument(
            "filters",
            _filters,
            "Filters, by key.",
            "Filter, search and ordering parameters, applied by the API's own "
            "filter backends. Only the keys listed under 'filters' are "
            "accepted.{growing}",
        ),
        ProtocolArgument(
            "page",
            {"type": "integer", "minimum": 1, "default": 1},
            "Page number.",
            "Page number to return, starting at 1 (default 1).",
        ),
        ProtocolArgument(
            "page_size",
            _page_size,
            "Rows per page.",
            "Rows per page (default {size}, at most {top}).",
        ),
        ProtocolArgument(
            "continuation_token",
            {"type": "string", "minLength": 1},
            "A result's next_token: its next page.",
            "The next_token of a previous result: returns the next page with "
            "the same filters, page size and filter_keys.",
        ),
        ProtocolArgument(
            "filter_keys",
            _filter_keys,
            "Return only these record fields.",
            "Return only these fields of each record, to keep responses small.",
        ),
    )
}
#: Names of the core's protocol arguments (which kinds take each: KINDS).
NAMES = frozenset(name for row in KINDS.values() for name in row.arguments)
#: Keys some MCP clients add inside ``arguments`` on every call: dropped
#: unless the tool declares the name (docs/index.md, "Keys clients add").
CLIENT_KEYS = frozenset({"_meta", "toolCallId"})
#: The arguments of every tool that pages.
_PAGING = ("page", "page_size", "continuation_token")
#: The ``filters`` of a view whose filter sets add filters per instance.
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


def register(*rows: ProtocolArgument) -> None:
    """Add an extra's protocol arguments to :data:`ARGUMENTS` (its
    ``AppConfig.ready()``); a call hook declares them where it adds them."""
    for row in rows:
        ARGUMENTS.setdefault(row.name, row)


def declared_for(
    kind: Kind, facts: Facts, *, paged: bool = False
) -> dict[str, JSONObject]:
    """``{name: property}`` of the protocol arguments a tool of ``kind``
    takes; ``paged``: a tool of another kind pages too (a GET action REST
    pages)."""
    names = KINDS[kind].arguments + (_PAGING if paged else ())
    declared = {name: ARGUMENTS[name].declared(facts) for name in names}
    return {name: schema for name, schema in declared.items() if schema is not None}


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


def next_token(tool: str, call: Call, caller: str, page: int, size: int) -> str:
    """The ``continuation_token`` of page ``page`` of ``size`` rows after
    ``call``'s: what :func:`list_state` reads back."""
    listing = call.listing
    payload: JSONObject = {"t": tool, "u": caller, "f": listing.filters}
    payload.update(k=listing.filter_keys, p=page, s=size)
    if call.next_query:  # the pairs a host's own paginator reads
        payload["q"] = call.next_query
    if call.path_kwargs:  # bound to its parent (issue 25 item 13)
        payload["a"] = call.path_kwargs
    return sign("continuation_token", payload)
