"""Regression found by the fuzzers: the body nesting-depth pre-scan.

A body of escaped quotes made the scan quadratic in the body size.
"""

from __future__ import annotations

import time

from tests.test_fuzz import (
    check_not_5xx,
    check_response_object,
    decode_body,
    post_raw,
)


def test_regression_depth_scan_is_linear(db: None) -> None:
    """The nesting-depth pre-scan must not be quadratic in the body size.

    ``jsonrpc._nests_deeper`` runs ``_BRACKETS.finditer`` when a body holds
    more brackets than the limit. Its string alternative
    ``"(?:[^"\\\\]|\\\\.)*"`` fails on an unterminated string and is retried
    from every following quote: a 30 kB body of escaped quotes took seconds,
    80 kB about a minute, 1 MiB (the body limit) hours of one worker's CPU.
    """
    body = b"[]" * 40 + b'"' + b'\\"' * 15_000
    started = time.perf_counter()
    response = post_raw(body)
    elapsed = time.perf_counter() - started
    check_not_5xx(response)
    reply = decode_body(response)
    check_response_object(reply, None)
    assert reply["error"]["code"] in (-32700, -32600), reply
    assert elapsed < 1.5, f"{len(body)} bytes took {elapsed:.1f} s"
