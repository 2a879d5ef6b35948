"""The confirmation hook: a destructive call runs only once a person said yes.

A call to a tool ``CONFIRM`` names first answers ``confirmation_required``
with a summary and a token; the same call with ``"confirm": token`` runs.
Where the request carries the client's ``elicitation`` capability (a
2026-07-28 request, or a stdio session) the question goes to the person
instead, as an ``input_required`` result whose ``requestState`` is the
token (MRTR). A token is signed by the core's signer and bound to the
caller, the tool, the arguments and the row's stored state, expires after
``CONFIRM_MAX_AGE`` and is burnt in the shared cache where there is one
(docs/safety.md says why both).
"""

from __future__ import annotations

import dataclasses
import fnmatch
import hashlib
import json
import logging
import secrets
from collections.abc import Mapping
from typing import Any

from django.core.cache import caches

from frisian_mcp import arguments
from frisian_mcp.conf import extra_settings as mcp_settings
from frisian_mcp.contrib.confirm.summary import record_of, state_of, summarise
from frisian_mcp.exceptions import InputRequired, ToolExecutionError, ToolInputError
from frisian_mcp.hooks import BaseCallHook
from frisian_mcp.schema import ToolSchema
from frisian_mcp.tools import Tool
from frisian_mcp.types import Call, CallContext, ErrorCode, JSONObject

__all__ = ["CONFIRM", "ConfirmationHook", "needs_confirmation"]

logger = logging.getLogger("frisian_mcp")
_PURPOSE = "confirm"
#: The key of the elicitation in an ``input_required`` result.
_KEY = "confirm"
NOTICE = (
    "Needs a person's confirmation: the first call writes nothing and answers "
    "confirmation_required with a summary and a token; show the summary to the "
    "user and, once they agree, send the same arguments again with confirm set "
    "to the token."
)
#: ``confirm``, the extra's own protocol argument; registered by its app.
CONFIRM = arguments.ProtocolArgument(
    "confirm",
    {"type": "string", "minLength": 1},
    "The token of a confirmation_required answer, once the user agreed: runs "
    "this same call.",
    "The token of a confirmation_required answer: send it with the same "
    "arguments, once the user agreed, to run the call. A token is good once, "
    "for this caller, tool, arguments and row, within CONFIRM_MAX_AGE seconds.",
)


def needs_confirmation(tool: Tool) -> bool:
    """Whether ``CONFIRM`` names the tool, its kind or action, or "destructive".

    A kind or action names its bulk form too: "destroy" covers "bulk_destroy".
    """
    names = {tool.kind.value, tool.endpoint.action}
    names |= {name.removeprefix("bulk_") for name in names}
    for entry in mcp_settings.CONFIRM:
        if entry in names or fnmatch.fnmatchcase(tool.name, entry):
            return True
        if entry == "destructive" and tool.annotations.get("destructiveHint"):
            return True
    return False


class ConfirmationHook(BaseCallHook):
    """Asks for a person's yes before the tools ``CONFIRM`` names run."""

    settings = ("CONFIRM", "CONFIRM_MAX_AGE")

    def map_schema(self, tool: Tool, schema: ToolSchema) -> ToolSchema:
        """Add ``confirm`` (and ``mode``) and say so in the description."""
        if not needs_confirmation(tool):
            return schema
        properties = dict(schema.input_schema.get("properties", {}))
        rows = (CONFIRM, arguments.ARGUMENTS["mode"])  # mode: the core's row
        added = {r.name: r.declared() for r in rows if r.name not in properties}
        return dataclasses.replace(
            schema,
            input_schema={**schema.input_schema, "properties": properties | added},
            protocol_arguments=(*schema.protocol_arguments, *added),
            description="\n\n".join(filter(None, (schema.description, NOTICE))),
        )

    def check_call(
        self, tool: Tool, call: Call, view: Any, context: CallContext
    ) -> None:
        """Let a confirmed call through; answer any other with a question."""
        if not needs_confirmation(tool):
            return
        record = record_of(view, call)
        summary = summarise(tool, record, call)
        if call.validate_only:
            call.notes["confirmation"] = {"required": True, "summary": summary}
            return
        binding = {
            "t": tool.name,
            "u": context.caller,
            "a": _digest(call.arguments),
            "s": state_of(record),
        }
        token = call.arguments.get("confirm")
        if token is not None:
            _redeem(tool.name, token, binding, "confirm")
            return
        if context.request_state is not None:  # a retry with the answer
            _redeem(tool.name, context.request_state, binding, "requestState")
            answer = (context.input_responses or {}).get(_KEY)
            if _accepted(answer):
                return
            if isinstance(answer, Mapping):
                raise _declined(tool.name, summary)
        fresh = arguments.sign(_PURPOSE, {**binding, "n": secrets.token_hex(8)})
        if _can_ask(context):
            raise InputRequired({_KEY: _question(summary, context)}, fresh)
        raise ToolExecutionError(
            f"{summary['message']} This needs the user's confirmation; nothing "
            "was written.",
            code=ErrorCode.CONFIRMATION_REQUIRED,
            tool=tool.name,
            recoverable=True,
            hint="Show the summary to the user. If they agree, send the same "
            "call again with confirm set to the token; the token is good for "
            f"{mcp_settings.CONFIRM_MAX_AGE} seconds and once.",
            extra={"confirm": fresh, "summary": summary},
        )


def _digest(sent: Mapping[str, Any]) -> str:
    """The call's arguments, but ``confirm`` and the keys clients add."""
    kept = {
        k: v
        for k, v in sent.items()
        if k != "confirm" and k not in arguments.CLIENT_KEYS
    }
    text = json.dumps(kept, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _redeem(tool: str, token: object, binding: JSONObject, field: str) -> None:
    """Accept ``token`` for this very call, once; else an ``invalid_token``."""
    max_age = mcp_settings.CONFIRM_MAX_AGE
    try:
        payload = arguments.unsign(_PURPOSE, token, max_age)
    except arguments.BadToken:
        try:
            arguments.unsign(_PURPOSE, token)
            reason = "has expired"
        except arguments.BadToken:
            reason = "is not a confirmation token this server issued"
        raise _refused(tool, field, reason) from None
    for key, reason in (
        ("t", "was issued for another tool"),
        ("u", "was issued to another caller"),
        ("a", "was issued for other arguments"),
        ("s", "was issued before the record changed (or was removed)"),
    ):
        if payload.get(key) != binding[key]:
            raise _refused(tool, field, reason)
    if not _first_use(str(payload.get("n")), max_age):
        raise _refused(tool, field, "was used already")


def _first_use(nonce: str, max_age: int) -> bool:
    """Burn the token's nonce in the shared cache; ``True`` if it was fresh.

    Without a cache, or with one that fails, the state binding alone keeps a
    token from running twice where the first run changed the row.
    """
    alias = mcp_settings.CACHE
    if alias is None:
        return True
    try:
        return bool(caches[alias].add(f"frisian_mcp:confirm:{nonce}", 1, max_age))
    except Exception as exc:  # the cache is advisory: the state binding holds
        logger.warning(
            "Confirmation: the cache %r failed (%s)", alias, type(exc).__name__
        )
        return True


def _refused(tool: str, field: str, reason: str) -> ToolInputError:
    return ToolInputError(
        f"The confirmation token {reason}; nothing was written.",
        code=ErrorCode.INVALID_TOKEN,
        tool=tool,
        field=field,
        hint="Send the call again without confirm for a new summary and token, "
        "and ask the user again.",
    )


def _declined(tool: str, summary: JSONObject) -> ToolExecutionError:
    return ToolExecutionError(
        "The user did not confirm; nothing was written.",
        code=ErrorCode.CONFIRMATION_DECLINED,
        tool=tool,
        recoverable=False,
        hint="Do not repeat the call unless the user asks for it.",
        extra={"summary": summary},
    )


def _accepted(answer: object) -> bool:
    if not isinstance(answer, Mapping) or answer.get("action") != "accept":
        return False
    content = answer.get("content")
    return isinstance(content, Mapping) and content.get(_KEY) is True


def _can_ask(context: CallContext) -> bool:
    """Whether the request says the client shows forms (elicitation)."""
    capabilities = context.client.get("capabilities") or {}
    elicitation = capabilities.get("elicitation")
    if not isinstance(elicitation, Mapping):
        return False
    # 2025-11-25 client/elicitation: {} means form mode.
    return not elicitation or "form" in elicitation


def _question(summary: JSONObject, context: CallContext) -> JSONObject:
    """An ``elicitation/create`` request: one yes-or-no field."""
    params: JSONObject = {
        "message": summary["message"],
        "requestedSchema": {
            "type": "object",
            "properties": {
                _KEY: {
                    "type": "boolean",
                    "title": f"Yes, {summary['action']}",
                    "default": False,
                }
            },
            "required": [_KEY],
        },
    }
    if context.protocol_version >= "2025-11-25":
        params = {"mode": "form", **params}
    return {"method": "elicitation/create", "params": params}
