"""Value objects passed between the registry and the invocation layer."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from django.http import HttpRequest
from rest_framework.utils.encoders import JSONEncoder

__all__ = ["CallContext", "InvocationResult", "PreparedCall", "plain_json", "to_json"]


@dataclass
class CallContext:
    """Who is calling, and over which HTTP request.

    ``user`` and ``auth`` are what the endpoint's DRF authenticators
    returned, ``authenticator`` the one that recognised the caller, and
    ``session_user`` the user Django's middleware found on the request
    before (``None`` without the middleware). Inner requests are forced to
    the caller's identity for views that accept its authenticator.
    """

    request: HttpRequest
    user: Any
    auth: Any = None
    authenticator: Any = None
    session_user: Any = None
    protocol_version: str = "2025-03-26"
    #: Per-request memos (the permission probe), dropped with the request.
    memo: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def is_authenticated(self) -> bool:
        """Whether an authenticator recognised the caller."""
        return bool(getattr(self.user, "is_authenticated", False))


@dataclass
class PreparedCall:
    """An action call split into the parts of an HTTP request."""

    path_kwargs: Mapping[str, str] = field(default_factory=dict)
    query: list[tuple[str, str]] = field(default_factory=list)
    body: Any = None
    page: int = 1
    page_size: int | None = None


@dataclass
class InvocationResult:
    """What the view answered: status, unrendered data and headers."""

    status: int
    data: Any
    headers: Mapping[str, str] = field(default_factory=dict)
    exception: BaseException | None = None
    #: For a bulk create run item by item: the index of the failing item.
    index: int | None = None


_ENCODER = JSONEncoder()


def plain_json(data: Any) -> Any:
    """``data`` as plain JSON values, as DRF's JSON renderer would encode it.

    Serializer output is nearly plain already (``ReturnDict``, lists,
    strings); walking it is much cheaper than encoding and decoding it.
    """
    if data is None or type(data) in (str, int, float, bool):
        return data
    if isinstance(data, bool):
        return bool(data)
    if isinstance(data, str):
        return str(data)  # ErrorDetail, SafeString...
    if isinstance(data, int | float):
        return int(data) if isinstance(data, int) else float(data)
    if isinstance(data, dict):
        return {str(key): plain_json(value) for key, value in data.items()}
    if isinstance(data, list | tuple):
        return [plain_json(value) for value in data]
    return plain_json(_ENCODER.default(data))


def to_json(data: Any) -> str:
    """Encode view data (Decimals, dates, lazy strings...) as compact JSON."""
    return json.dumps(data, cls=JSONEncoder, ensure_ascii=False, separators=(",", ":"))
