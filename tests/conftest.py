"""Shared fixtures: an MCP client over the test client, and the demo data."""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator
from typing import Any

import pytest
from django.core.cache import cache
from django.core.management import call_command

from frisian_mcp.contrib.testing import MCPError, MCPTestClient
from frisian_mcp.registry import reset_registry
from frisian_mcp.schema import SchemaBuilder
from tests.live import drop_templates

# A shared helper that asserts: its failures say what they compared.
pytest.register_assert_rewrite("tests.explorer_pages")


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Drop the live tests' demo templates (tests/live.py)."""
    drop_templates()


@pytest.fixture(autouse=True)
def _fresh_registry() -> Iterator[None]:
    """Each test discovers tools afresh (settings may differ per test).

    The cache goes too: it holds visible tool sets and built schemas, and
    user ids repeat between tests.
    """
    reset_registry()
    cache.clear()
    yield
    reset_registry()


@pytest.fixture
def mcp() -> MCPTestClient:
    """An initialized MCP client (protocol 2025-11-25)."""
    client = MCPTestClient()
    client.initialize()
    return client


@pytest.fixture
def demo_data(db: Any) -> None:
    """The demo's seeded rows (contacts, sites, devices, tags)."""
    call_command("seed_demo", stdout=_Null())


@pytest.fixture
def call_error(mcp: MCPTestClient) -> Any:
    """Call a tool that must fail with a JSON-RPC error; return the error."""

    def call(name: str, arguments: dict[str, Any] | None = None) -> MCPError:
        with pytest.raises(MCPError) as info:
            mcp.call_tool(name, arguments)
        return info.value

    return call


@pytest.fixture
def audit_stream() -> Iterator[io.StringIO]:
    """The audit logger's output, as the audit extra's JSON formatter writes it."""
    from frisian_mcp.contrib.audit.formatters import JSONFormatter

    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JSONFormatter())
    logger = logging.getLogger("frisian_mcp.audit")
    logger.addHandler(handler)
    level = logger.level
    logger.setLevel(logging.INFO)  # clears the loggers' isEnabledFor caches
    try:
        yield stream
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


class _Null:
    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        pass


@pytest.fixture
def builds(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The endpoints whose schema gets built from now on (their view's code runs)."""
    built: list[str] = []
    build = SchemaBuilder.build

    def counted(self: SchemaBuilder, endpoint: Any, prefix: str, *rest: Any) -> Any:
        built.append(endpoint.path)
        return build(self, endpoint, prefix, *rest)

    monkeypatch.setattr(SchemaBuilder, "build", counted)
    return built
