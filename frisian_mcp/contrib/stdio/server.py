"""The MCP stdio transport: newline-delimited JSON-RPC on stdin and stdout.

Each line read is one message (MCP 2025-11-25 basic/transports "stdio"),
answered by :func:`frisian_mcp.jsonrpc.handle` as one user, with the same
guards, call hooks and audit record as over HTTP. stdout carries messages
only. A session keeps what ``initialize`` settled (the version, the
client's capabilities, the log level ``logging/setLevel`` set), which
HTTP, being stateless, cannot; so a call hook's question
(``input_required``) is put to the client as a server request
(``elicitation/create``) within the call, and the call is run again with
the answer. A 2026-07-28 client gets the ``input_required`` result itself,
as the revision asks. A call's progress and warnings are written as lines
before its response (ADR 0044).
"""

from __future__ import annotations

import collections
import itertools
import json
from typing import IO, Any

from django.http import HttpRequest

from frisian_mcp import hooks, jsonrpc, notices
from frisian_mcp.revisions import (
    MODERN_VERSION_META,
    MODERN_VERSIONS,
    SUPPORTED_VERSIONS,
)
from frisian_mcp.types import CallContext, JSONObject

__all__ = ["StdioServer"]

#: Rounds of questions one call may ask before it is answered as it stands.
_ROUNDS = 3


class StdioServer:
    """Serves one client on two byte streams, as ``user``."""

    def __init__(
        self, user: Any, stdin: IO[bytes], stdout: IO[bytes], request: HttpRequest
    ) -> None:
        self.user, self.stdin, self.stdout, self.request = user, stdin, stdout, request
        self.version: str | None = None
        self.client: JSONObject = {}
        self.pending: collections.deque[bytes] = collections.deque()
        #: The minimum level of the log messages sent (``logging/setLevel``).
        self.log_level: str | None = None
        self._ids = itertools.count(1)

    def serve(self) -> None:
        """Answer messages until stdin ends."""
        while (line := self._next()) is not None:
            self.handle(line)

    def handle(self, line: bytes) -> None:
        """Answer one message (or a 2025-03-26 batch): one audit record."""
        with hooks.exchange("stdio") as exchange:
            context = CallContext(
                request=self.request,
                user=self.user,
                client=dict(self.client),
                exchange=exchange,
            )
            params = _params(line)
            with notices.opened(self._channel(params)):
                body = self._answer(line, context)
            if exchange.outcome is None and exchange.method == "initialize":
                self.version, self.client = context.protocol_version, context.client
            if exchange.outcome is None and exchange.method == "logging/setLevel":
                self.log_level = params.get("level")
        if body is not None:
            self.write(body)

    def write(self, message: Any) -> None:
        """One message, on one line of stdout."""
        text = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
        self.stdout.write(text.encode("utf-8") + b"\n")
        self.stdout.flush()

    # -- internals -----------------------------------------------------------

    def _channel(self, params: JSONObject) -> notices.Channel:
        """Where this message's notifications go: stdout, at once."""
        meta = params.get("_meta")
        modern = isinstance(meta, dict) and MODERN_VERSION_META in meta
        level = notices.requested_level(params) if modern else self.log_level
        token = notices.progress_token(params)
        return notices.Channel(token=token, level=level, send=self.write)

    def _answer(self, line: bytes, context: CallContext) -> Any:
        version = self.version if self.version in SUPPORTED_VERSIONS else None
        reply = jsonrpc.handle(line, context, headers=None, header_version=version)
        for _ in range(_ROUNDS):
            questions = _questions(reply.body)
            if questions is None or context.protocol_version in MODERN_VERSIONS:
                break
            state, requests = questions
            answers = {
                key: self.ask(str(r.get("method")), r.get("params") or {})
                for key, r in requests.items()
                if isinstance(r, dict)
            }
            message = json.loads(line)
            message["params"] = {
                **message["params"],
                "inputResponses": answers,
                "requestState": state,
            }
            context.exchange.outcome = None
            retry = json.dumps(message).encode()
            reply = jsonrpc.handle(retry, context, headers=None, header_version=version)
        return reply.body

    def ask(self, method: str, params: JSONObject) -> JSONObject:
        """Send the client a request; its result (``cancel`` if it has none).

        Messages that arrive meanwhile are answered after the current one.
        """
        request_id = f"frisian-{next(self._ids)}"
        self.write(
            {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
        )
        while True:
            line = self._read()
            if line is None:
                return {"action": "cancel"}
            try:
                message = json.loads(line)
            except ValueError:
                message = None
            answered = isinstance(message, dict) and message.get("id") == request_id
            if answered and "method" not in message:
                result = message.get("result")
                return result if isinstance(result, dict) else {"action": "cancel"}
            self.pending.append(line)

    def _next(self) -> bytes | None:
        return self.pending.popleft() if self.pending else self._read()

    def _read(self) -> bytes | None:
        """The next non-empty line of stdin; ``None`` at its end."""
        while line := self.stdin.readline():
            if line.strip():
                return line
        return None


def _params(line: bytes) -> JSONObject:
    """The message's ``params`` (``{}`` where it has none, or is no object)."""
    try:
        message = json.loads(line)
    except ValueError:
        return {}
    params = message.get("params") if isinstance(message, dict) else None
    return params if isinstance(params, dict) else {}


def _questions(body: Any) -> tuple[str, JSONObject] | None:
    """``(requestState, inputRequests)`` of an ``input_required`` result."""
    result = body.get("result") if isinstance(body, dict) else None
    if not isinstance(result, dict) or result.get("resultType") != "input_required":
        return None
    state, requests = result.get("requestState"), result.get("inputRequests")
    if isinstance(state, str) and isinstance(requests, dict):
        return state, requests
    return None
