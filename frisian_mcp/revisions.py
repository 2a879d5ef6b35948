"""Protocol revisions: what each changes on the wire, and which one a request speaks.

Both eras share one URL and are chosen per request (ADR 0009); what differs
per revision is one row of :data:`REVISIONS`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from frisian_mcp.exceptions import (
    HeaderMismatch,
    InvalidParams,
    UnsupportedProtocolVersion,
)
from frisian_mcp.parsers import header_value
from frisian_mcp.types import JSONObject

__all__ = [
    "ASSUMED_VERSION",
    "LOG_LEVELS",
    "LOG_LEVEL_META",
    "MODERN_VERSIONS",
    "REVISIONS",
    "SUPPORTED_VERSIONS",
    "Revision",
    "check_modern",
    "select",
    "unsupported",
]

MODERN_VERSION_META = "io.modelcontextprotocol/protocolVersion"
CLIENT_CAPABILITIES_META = "io.modelcontextprotocol/clientCapabilities"
SERVER_INFO_META = "io.modelcontextprotocol/serverInfo"
LOG_LEVEL_META = "io.modelcontextprotocol/logLevel"
#: RFC 5424's severities, most verbose first (``LoggingLevel``).
LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")  # fmt: skip
#: Resources, prompts, completion and logging are answered when their
#: capability is served (:mod:`~frisian_mcp.methods`).
_FEATURES = frozenset(
    {"resources/list", "resources/templates/list", "resources/read"}
    | {"prompts/list", "prompts/get", "completion/complete"}
)
_HANDSHAKE = frozenset({"initialize", "ping", "tools/list", "tools/call"}) | _FEATURES
#: 2026-07-28 takes the log level from each request's ``_meta`` instead.
_LOGGING = _HANDSHAKE | {"logging/setLevel"}


@dataclass(frozen=True)
class Revision:
    """What one protocol revision changes on the wire.

    ``batches``: JSON-RPC batches (2025-03-26 only); ``structured``: tool
    titles, ``outputSchema`` and ``structuredContent`` (from 2025-06-18);
    ``stateless``: per-request ``_meta`` and mirrored headers, results with
    ``resultType`` and caching hints (2026-07-28).
    """

    methods: frozenset[str]
    batches: bool = False
    structured: bool = True
    stateless: bool = False


REVISIONS: dict[str, Revision] = {
    "2025-03-26": Revision(_LOGGING, batches=True, structured=False),
    "2025-06-18": Revision(_LOGGING),
    "2025-11-25": Revision(_LOGGING),
    "2026-07-28": Revision(
        frozenset({"server/discover", "tools/list", "tools/call"}) | _FEATURES,
        stateless=True,
    ),
}
#: Handshake-era versions, oldest first; the last is offered by default.
SUPPORTED_VERSIONS = tuple(v for v, r in REVISIONS.items() if not r.stateless)
#: Per-request (stateless) versions.
MODERN_VERSIONS = tuple(v for v, r in REVISIONS.items() if r.stateless)
#: Assumed without an MCP-Protocol-Version header (2025-11-25 basic/transports).
ASSUMED_VERSION = "2025-03-26"


def select(message: Any, header_version: str | None) -> str:
    """The revision a request speaks (2026-07-28 basic/versioning "Dual-era").

    A modern ``MCP-Protocol-Version`` header, ``_meta`` with a version or the
    modern-only ``server/discover`` select the stateless revision; anything
    else is the handshake era, 2025-03-26 without a header.
    """
    params = message.get("params") if isinstance(message, dict) else None
    meta = params.get("_meta") if isinstance(params, dict) else None
    if (
        header_version in MODERN_VERSIONS
        or (isinstance(message, dict) and message.get("method") == "server/discover")
        or (isinstance(meta, dict) and MODERN_VERSION_META in meta)
    ):
        return MODERN_VERSIONS[-1]
    if header_version is None:
        return ASSUMED_VERSION
    if header_version not in SUPPORTED_VERSIONS:
        raise unsupported(header_version)
    return header_version


def unsupported(requested: str) -> UnsupportedProtocolVersion:
    shown = requested if len(requested) <= 32 and requested.isprintable() else None
    return UnsupportedProtocolVersion(
        "Unsupported protocol version; this server speaks "
        + ", ".join(REVISIONS)
        + " (initialize first for the versions before 2026-07-28).",
        data={"supported": list(REVISIONS), "requested": shown},
    )


def check_modern(
    method: str, params: JSONObject, headers: Mapping[str, str] | None
) -> None:
    """Refuse a 2026-07-28 request whose ``_meta``, headers or version fail.

    ``headers`` ``None``: a transport without headers (stdio).
    """
    meta = params.get("_meta")
    meta = meta if isinstance(meta, dict) else {}
    version = meta.get(MODERN_VERSION_META)
    if not isinstance(version, str) or not isinstance(
        meta.get(CLIENT_CAPABILITIES_META), dict
    ):
        raise InvalidParams(
            "Invalid params: a 2026-07-28 request needs _meta with "
            f"{MODERN_VERSION_META} (a string) and {CLIENT_CAPABILITIES_META} "
            "(an object); clients of earlier versions send initialize first.",
            http_status=400,
        )
    mirrored: list[tuple[str, object]] = [
        ("MCP-Protocol-Version", version),
        ("Mcp-Method", method),
    ]
    if method in ("tools/call", "prompts/get"):
        mirrored.append(("Mcp-Name", params.get("name")))
    elif method == "resources/read":
        mirrored.append(("Mcp-Name", params.get("uri")))
    for header, expected in mirrored:
        if headers is not None and header_value(headers.get(header)) != expected:
            raise HeaderMismatch(
                f"Header mismatch: the {header} header must be present and "
                "equal the request body's value (Base64-encoded as "
                "=?base64?...?= when it is not plain ASCII)."
            )
    if version not in MODERN_VERSIONS:
        raise unsupported(version)
    if meta.get(LOG_LEVEL_META, "debug") not in LOG_LEVELS:
        # 2026-07-28 server/utilities/logging "Error Handling".
        raise InvalidParams(
            f"Invalid params: _meta {LOG_LEVEL_META} must be one of "
            f"{', '.join(LOG_LEVELS)}.",
            http_status=400,
        )
