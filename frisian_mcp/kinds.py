"""The kinds table and the stock action table (ADR 0029).

:data:`KINDS` says, once, what each kind of tool implies: its annotations,
protocol arguments, OAuth scope, result shape and bulk body. :data:`ACTIONS`
maps each stock DRF action (and the bulk actions hosts map onto list routes,
ADR 0033) to its kind, method, mixin and wording. Data only; it imports no
other frisian_mcp module.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any, Literal, TypedDict

from rest_framework import mixins

__all__ = [
    "ACTIONS", "KINDS", "SAFE_METHODS", "Action", "Kind", "KindRow", "ToolAnnotations"
]  # fmt: skip


class ToolAnnotations(TypedDict, total=False):
    """Behaviour hints (MCP 2025-11-25 ``ToolAnnotations``)."""

    title: str
    readOnlyHint: bool
    destructiveHint: bool
    idempotentHint: bool
    openWorldHint: bool


class Kind(enum.StrEnum):
    """What a tool does; its row of :data:`KINDS` says what that implies."""

    LIST = "list"
    READ = "read"
    CREATE = "create"
    UPDATE = "update"
    DELETE = "delete"
    ACTION = "action"
    BULK_UPDATE = "bulk_update"
    BULK_DELETE = "bulk_delete"


@dataclass(frozen=True)
class KindRow:
    """Every fact one kind of tool implies (ADR 0029): its ToolAnnotations
    (but the title), the protocol arguments it takes (by their names in
    ``frisian_mcp.arguments.ARGUMENTS``, ADR 0042), the OAuth scope that
    unlocks it by default, the shape of its stock result (``None``: the
    view's own) and whether a list under an undeclared bulk key is a bulk
    body (a create's ``{"objects": [...]}``)."""

    kind: Kind
    annotations: ToolAnnotations
    arguments: tuple[str, ...]
    scope: Literal["read", "write"]
    result: Literal["page", "record", "deleted"] | None
    bulk: bool = False


def _hints(read_only: bool, destructive: bool, idempotent: bool) -> ToolAnnotations:
    if read_only:  # destructiveHint is meaningless on a read-only tool
        hints: ToolAnnotations = {"readOnlyHint": True}
        hints.update({"idempotentHint": True} if idempotent else {})
    else:
        hints = {"readOnlyHint": False, "destructiveHint": destructive}
        hints["idempotentHint"] = idempotent
    hints["openWorldHint"] = False  # a tool reaches only its own API
    return hints


_READS = _hints(read_only=True, destructive=False, idempotent=False)
_CHANGES = _hints(read_only=False, destructive=True, idempotent=True)
_LISTING = ("help", "filters", "page", "page_size", "continuation_token", "filter_keys")
#: The one kinds table, by category: a kind, or ``safe_action`` for an action
#: of a safe method (GET, HEAD, OPTIONS). OAuth ``SCOPES`` name these keys.
KINDS: dict[str, KindRow] = {
    "list": KindRow(Kind.LIST, _READS, _LISTING, "read", "page"),
    "read": KindRow(
        Kind.READ,
        _hints(read_only=True, destructive=False, idempotent=True),
        ("help", "filter_keys"),
        "read",
        "record",
    ),
    "safe_action": KindRow(Kind.ACTION, _READS, ("help",), "read", None),
    "create": KindRow(
        Kind.CREATE,
        _hints(read_only=False, destructive=False, idempotent=False),
        ("help", "mode"),
        "write",
        "record",
        bulk=True,
    ),
    "update": KindRow(Kind.UPDATE, _CHANGES, ("help", "mode"), "write", "record"),
    "delete": KindRow(Kind.DELETE, _CHANGES, ("help",), "write", "deleted"),
    "action": KindRow(
        Kind.ACTION,
        _hints(read_only=False, destructive=True, idempotent=False),
        ("help",),
        "write",
        None,
    ),
    # A list of rows by id (ADR 0033); the view's own answer.
    "bulk_update": KindRow(Kind.BULK_UPDATE, _CHANGES, ("help", "mode"), "write", None),
    "bulk_delete": KindRow(
        Kind.BULK_DELETE, _CHANGES, ("help", "mode"), "write", "deleted"
    ),
}
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


@dataclass(frozen=True)
class Action:
    """One stock DRF action: its kind, HTTP method, mixin and wording.

    ``title`` and ``lead`` are templates over ``noun``, ``plural`` and
    ``lookup`` (the path arguments). A host's own action (a bulk one) has
    no ``mixin``: its answer is the view's.
    """

    kind: Kind
    method: str
    mixin: type[Any] | None
    title: str
    lead: str


#: The one action table: every stock action a router or generic view maps.
ACTIONS: dict[str, Action] = {
    "list": Action(
        Kind.LIST,
        "GET",
        mixins.ListModelMixin,
        "List {plural}",
        "List {plural}, a page at a time; narrow them with filters.",
    ),
    "retrieve": Action(
        Kind.READ,
        "GET",
        mixins.RetrieveModelMixin,
        "Get {noun}",
        "Get one {noun} by {lookup}.",
    ),
    "create": Action(
        Kind.CREATE,
        "POST",
        mixins.CreateModelMixin,
        "Create {noun}",
        "Create a {noun}. Send its fields flat, as top-level arguments.",
    ),
    "update": Action(
        Kind.UPDATE,
        "PUT",
        mixins.UpdateModelMixin,
        "Update {noun}",
        "Replace a {noun} found by {lookup}: send every required field, flat, "
        "as top-level arguments.",
    ),
    "partial_update": Action(
        Kind.UPDATE,
        "PATCH",
        mixins.UpdateModelMixin,
        "Partially update {noun}",
        "Change some fields of a {noun} found by {lookup}; the rest stay as they are.",
    ),
    "destroy": Action(
        Kind.DELETE,
        "DELETE",
        mixins.DestroyModelMixin,
        "Delete {noun}",
        "Delete a {noun} found by {lookup}.",
    ),
    # Bulk actions a host's router maps onto its list route (ADR 0033).
    "bulk_update": Action(
        Kind.BULK_UPDATE,
        "PUT",
        None,
        "Update {plural} in bulk",
        "Replace several {plural} in one call: objects lists them, each with "
        "the id of a {noun} and every required field. An id that names no "
        "{noun} you can see refuses the whole call.",
    ),
    "bulk_partial_update": Action(
        Kind.BULK_UPDATE,
        "PATCH",
        None,
        "Partially update {plural} in bulk",
        "Change fields of several {plural} in one call: objects lists them, "
        "each with the id of a {noun} and only the fields to change. An id "
        "that names no {noun} you can see refuses the whole call.",
    ),
    "bulk_destroy": Action(
        Kind.BULK_DELETE,
        "DELETE",
        None,
        "Delete {plural} in bulk",
        "Delete several {plural} in one call, by their ids. An id that names "
        "no {noun} you can see refuses the whole call.",
    ),
}
