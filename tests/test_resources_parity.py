"""Resources agree with tools and with REST, over every test app and user.

ADR 0043's parity, as tests/test_listing_agrees.py holds it for tools (its
URLconfs, seeds and users): a template is listed exactly when its retrieve
tool is; reading a record succeeds exactly when REST's ``GET`` answers 200,
refuses as REST refuses (401, 403, 429), and is "not found" exactly when
REST answers 404 or the template is hidden from the caller.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.db import transaction

from frisian_mcp.contrib.testing import MCPError, MCPTestClient
from frisian_mcp.registry import get_registry
from frisian_mcp.resources import Template, template_for
from frisian_mcp.tools import Tool
from frisian_mcp.types import Kind
from tests.test_listing_agrees import USERS, Host, _client, host  # noqa: F401

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

#: REST's status -> what resources/read answers for it.
_REST = {
    200: "ok",
    401: "not_authenticated",
    403: "permission_denied",
    404: "not_found",
    429: "throttled",
    500: "internal_error",  # the host's code raised (its bug, both ways)
}
#: Rows read per template, besides one that does not exist.
_ROWS = 3


def _every(mcp: MCPTestClient, method: str, key: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    params: dict[str, Any] = {}
    while True:
        try:
            result = mcp.request(method, params)
        except MCPError as exc:  # no retrieve tool at all: -32601
            return [] if exc.code == -32601 else [{"error": exc.code}]
        found.extend(result[key])
        if "nextCursor" not in result:
            return found
        params = {"cursor": result["nextCursor"]}


def _read(mcp: MCPTestClient, uri: str) -> str:
    """What resources/read answers, as REST's words; nothing is kept."""
    with transaction.atomic():
        try:
            mcp.request("resources/read", {"uri": uri})
        except MCPError as exc:
            return str((exc.data or {}).get("code", exc.code))
        finally:
            transaction.set_rollback(True)
    return "ok"


def _rest(mcp: MCPTestClient, tool: Tool, values: list[str]) -> str:
    """What REST's GET of the same URL answers, as the same caller."""
    path = tool.endpoint.path
    for kwarg, value in zip(tool.endpoint.path_variables, values, strict=True):
        path = path.replace("{" + kwarg + "}", value)
    headers = {**mcp.headers, "Accept": "application/json"}
    mcp.client.raise_request_exception = False
    with transaction.atomic():
        status = mcp.client.get(path, headers=headers).status_code
        transaction.set_rollback(True)
    return _REST.get(status, f"HTTP {status}")


def _values(tool: Tool) -> list[list[str]]:
    """Path values of a few rows (one-variable templates), and a missing one."""
    variables = tool.endpoint.path_variables
    if not variables:
        return [[]]
    model = tool.model
    if len(variables) != 1 or model is None:
        return []  # a nested route: its parents' values are not the row's
    field = getattr(tool.endpoint.view_class, "lookup_field", "pk")
    rows = model._default_manager.order_by("pk")[:_ROWS]
    found = [[str(getattr(row, field, row.pk))] for row in rows]
    return [*found, ["999999"]]


@pytest.mark.parametrize("kind", USERS)
def test_templates_are_listed_with_their_retrieve_tools(
    host: Host,  # noqa: F811
    kind: str,
) -> None:
    mcp = _client(host, kind)
    tools = {t["name"] for t in mcp.list_tools()}
    registry = get_registry()
    retrieving = {
        name
        for name in tools
        if (tool := registry.get(name)) is not None and tool.kind is Kind.READ
    }
    listed = _every(mcp, "resources/templates/list", "resourceTemplates")
    listed += _every(mcp, "resources/list", "resources")
    found = {_template(entry["name"]).tool for entry in listed}
    assert found == {n for n in retrieving if template_for_tool(n) is not None}


@pytest.mark.parametrize("kind", USERS)
def test_reading_agrees_with_rest(host: Host, kind: str) -> None:  # noqa: F811
    mcp = _client(host, kind)
    listed = {t["name"] for t in mcp.list_tools()}
    registry = get_registry()
    disagreements, checked = {}, 0
    for tool in registry:
        template = template_for_tool(tool.name)
        if tool.kind is not Kind.READ or template is None:
            continue
        for values in _values(tool):
            uri = template.uri(values)
            read = _read(mcp, uri)
            if tool.name not in listed:
                expected = "not_found"  # hidden: as if it did not exist
            else:
                expected = _rest(mcp, tool, values)
            if read != expected:
                disagreements[uri] = (read, expected)
            checked += expected == "ok"
    assert disagreements == {}, json.dumps(disagreements, indent=1)
    readable = any(t.kind is Kind.READ and _values(t) for t in registry)
    assert checked or kind != "superuser" or not readable, "no record was read"


def _template(key: str) -> Template:
    found = template_for(key)
    assert found is not None, key
    return found


def template_for_tool(name: str) -> Template | None:
    """The template of the retrieve tool ``name``, if it is a resource."""
    key = name.removesuffix("__retrieve").lower()
    found = template_for(key) or template_for(name)
    return found if found is not None and found.tool == name else None
