"""Exception handlers of shapes no maintained library renders.

drf-standardized-errors' own shape is tested with the library itself
(tests/hosts/standardized). ``problem`` stands for a host's own RFC 9457
handler with the RFC's ``invalid_params`` extension, which hosts write
themselves: drf-problems, the established RFC 7807 package, has had no
release since 2022. ``opaque`` is a shape no convention describes, which
only a hand-written handler can produce. Both keep DRF's messages, which
may quote what the caller sent.
"""

from __future__ import annotations

from typing import Any

from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import exception_handler


def _flat(details: Any, attr: str = "") -> list[tuple[str, str, str]]:
    if isinstance(details, dict) and set(details) == {"message", "code"}:
        return [
            (attr or "non_field_errors", str(details["code"]), str(details["message"]))
        ]
    if isinstance(details, dict):
        return [
            entry
            for key, value in details.items()
            for entry in _flat(value, f"{attr}.{key}" if attr else str(key))
        ]
    return [entry for item in details for entry in _flat(item, attr)]


def problem(exc: Exception, context: dict[str, Any]) -> Response | None:
    response = exception_handler(exc, context)
    if response is None or not isinstance(exc, exceptions.ValidationError):
        return response
    response.data = {
        "type": "about:blank",
        "title": "Bad Request",
        "status": 400,
        "invalid_params": [
            {"name": attr, "reason": detail}
            for attr, _, detail in _flat(exc.get_full_details())
        ],
    }
    return response


def opaque(exc: Exception, context: dict[str, Any]) -> Response | None:
    """A shape no convention describes, quoting the caller's data."""
    response = exception_handler(exc, context)
    if response is None or not isinstance(exc, exceptions.ValidationError):
        return response
    response.data = {"error": {"message": str(exc.detail), "count": 1}}
    return response
