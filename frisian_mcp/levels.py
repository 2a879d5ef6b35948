"""What a handshake-era caller asks of its later requests, kept per caller.

No session holds it (ADR 0005): ``logging/setLevel``'s level and a
``notifications/cancelled`` mark are kept in the ``CACHE`` under a digest
of the caller (user and authenticator), as ADR 0044 (L3) says; an
anonymous caller's are not kept. 2026-07-28 requests name their level in
``_meta`` (:func:`frisian_mcp.notices.requested_level`) and cancel by
closing the stream.
"""

from __future__ import annotations

import hashlib
import json
import logging
from typing import Any

from django.core.cache import caches

from frisian_mcp import methods
from frisian_mcp.conf import mcp_settings
from frisian_mcp.exceptions import HostError, InvalidParams, host_call
from frisian_mcp.revisions import LOG_LEVELS
from frisian_mcp.types import CallContext, JSONObject

__all__ = ["LEVEL_TTL", "cancelled", "keep_level", "kept_level", "mark_cancelled"]
__all__ += ["set_level"]

logger = logging.getLogger("frisian_mcp")
#: How long a caller's ``logging/setLevel`` holds, in seconds.
LEVEL_TTL = 24 * 60 * 60
#: How long a cancel mark waits for its request, in seconds.
CANCEL_TTL = 60 * 60


def _key(context: CallContext, what: str = "log_level") -> str | None:
    """The cache key of the caller's ``what``; ``None`` for anonymous callers."""
    cache = mcp_settings.CACHE
    if cache is None or not context.is_authenticated:
        return None
    kind = type(context.authenticator)
    caller = f"{context.user.pk}:{kind.__module__}.{kind.__qualname__}"
    return f"frisian_mcp:{what}:" + hashlib.sha256(caller.encode()).hexdigest()


def _cancel_key(context: CallContext, request_id: object) -> str | None:
    key = _key(context, "cancel")
    if key is None or not isinstance(request_id, str | int):
        return None
    return f"{key}:{hashlib.sha256(json.dumps(request_id).encode()).hexdigest()}"


def _cached(key: str | None, *value: Any) -> Any:
    """The cache's value at ``key`` (with ``value``: set it, for ``ttl``).

    The cache is advice (ADR 0023): a backend that fails (the host's
    service, down) is logged and read as holding nothing.
    """
    if key is None:
        return None
    cache = caches[str(mcp_settings.CACHE)]
    try:
        return host_call(cache.set, key, *value) if value else host_call(cache.get, key)
    except HostError as exc:
        logger.warning("frisian_mcp: the cache failed (%s).", type(exc.error).__name__)
        return None


def mark_cancelled(context: CallContext, request_id: object) -> None:
    """Keep a ``notifications/cancelled`` for whichever worker runs the call."""
    _cached(_cancel_key(context, request_id), True, CANCEL_TTL)


def cancelled(context: CallContext, request_id: object) -> bool:
    """Whether the caller cancelled its request ``request_id``."""
    return bool(_cached(_cancel_key(context, request_id)))


def kept_level(context: CallContext) -> str | None:
    """The level the caller set with ``logging/setLevel``, if it is kept."""
    level = _cached(_key(context))
    return level if level in LOG_LEVELS else None


def keep_level(context: CallContext, level: str) -> None:
    """Keep the caller's level for :data:`LEVEL_TTL` (not an anonymous one's)."""
    _cached(_key(context), level, LEVEL_TTL)


@methods.method("logging/setLevel", "logging")
def set_level(call: methods.MethodCall, params: JSONObject) -> JSONObject:
    """``logging/setLevel`` (2025-11-25 server/utilities/logging)."""
    level = params.get("level")
    if level not in LOG_LEVELS:
        raise InvalidParams(
            f"Invalid params: level must be one of {', '.join(LOG_LEVELS)}."
        )
    keep_level(call.context, str(level))
    return {}


@methods.capability("logging")
def _declared(registry: Any) -> JSONObject:
    return {}
