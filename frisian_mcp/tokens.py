"""Tokens: the one signer of ``nextCursor``, ``continuation_token`` and the
extras' tokens (``confirm``).

A token is ``<payload>.<time>.<signature>``: compact JSON in URL-safe Base64,
Base62 seconds, and an HMAC-SHA256 under a key derived once per purpose
(why not ``signing.dumps``: docs/performance.md). Tokens of the earlier
``signing`` form are read until they expire; ``SECRET_KEY_FALLBACKS`` verify
both.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import json
import time

from django.conf import settings
from django.core import signing
from django.utils.encoding import force_bytes

from frisian_mcp.exceptions import BadToken, InvalidParams
from frisian_mcp.types import ErrorCode, JSONObject

__all__ = ["FOREIGN", "BadToken", "cursor", "read_cursor", "sign", "unsign"]


#: Why a token was refused, when it is not one of ours.
FOREIGN = "is not a token this server issued"
_EXPIRED = "has expired; list again from the first page"


#: One encoder: ``json.dumps`` with options builds one per call.
_COMPACT = json.JSONEncoder(separators=(",", ":"))


def sign(purpose: str, payload: JSONObject) -> str:
    """An opaque, signed token holding ``payload`` for ``purpose``."""
    data = _COMPACT.encode(payload).encode()
    value = (
        f"{signing.b64_encode(data).decode()}.{signing.b62_encode(int(time.time()))}"
    )
    return f"{value}.{_signature(_key(purpose, settings.SECRET_KEY), value)}"


def unsign(purpose: str, token: object, max_age: int | None = None) -> JSONObject:
    """The payload of a token :func:`sign` made for ``purpose``.

    ``max_age``: seconds a token stays valid (``None``: no limit).
    """
    if not isinstance(token, str) or not token.isascii():
        raise BadToken(FOREIGN)
    read = _legacy if ":" in token else _verified
    payload = read(purpose, token, max_age)
    if not isinstance(payload, dict):
        raise BadToken(FOREIGN)
    return payload


def _verified(purpose: str, token: str, max_age: int | None) -> object:
    value, _, signature = token.rpartition(".")
    secrets = [settings.SECRET_KEY, *settings.SECRET_KEY_FALLBACKS]
    if not any(
        hmac.compare_digest(signature, _signature(_key(purpose, secret), value))
        for secret in secrets
    ):
        raise BadToken(FOREIGN)
    data, _, made = value.partition(".")
    try:
        age = time.time() - signing.b62_decode(made)
        payload = json.loads(signing.b64_decode(data.encode()))
    except ValueError:  # signed, so only with a leaked key
        raise BadToken(FOREIGN) from None
    if max_age is not None and age > max_age:
        raise BadToken(_EXPIRED)
    return payload


def _legacy(purpose: str, token: str, max_age: int | None) -> object:
    """A token of the earlier form, read with Django's ``signing``."""
    try:
        return signing.loads(token, salt=f"frisian_mcp.{purpose}", max_age=max_age)
    except signing.SignatureExpired:
        raise BadToken(_EXPIRED) from None
    except (signing.BadSignature, ValueError):
        raise BadToken(FOREIGN) from None


def cursor(purpose: str, offset: int) -> str:
    """A list method's ``nextCursor``: the signed offset of its next page."""
    return sign(purpose, {"o": offset})


def read_cursor(purpose: str, token: object) -> int:
    """The offset a :func:`cursor` of ``purpose`` holds; else -32602."""
    if not isinstance(token, str):
        raise InvalidParams("Invalid params: cursor must be a string from nextCursor.")
    try:
        offset = unsign(purpose, token)["o"]
    except (BadToken, KeyError) as exc:
        offset = exc
    if not isinstance(offset, int) or isinstance(offset, bool) or offset < 0:
        raise InvalidParams(
            "Invalid cursor: pass back a nextCursor value unchanged.",
            data={"code": ErrorCode.INVALID_TOKEN.value},
        )
    return offset


@functools.lru_cache(maxsize=32)
def _key(purpose: str, secret: str | bytes) -> bytes:
    """The HMAC key of ``purpose`` under ``secret``, derived once."""
    salt = f"frisian_mcp.{purpose}.token".encode()
    return hmac.new(force_bytes(secret), salt, hashlib.sha256).digest()


def _signature(key: bytes, value: str) -> str:
    digest = hmac.digest(key, value.encode(), "sha256")  # OpenSSL's one-shot
    return signing.b64_encode(digest).decode()
