"""Invocation: run one viewset action through DRF's full dispatch.

A tool call becomes an inner HTTP request to the action's own URL, handed to
the view callback the URL resolves to (ADR 0001): authentication (the MCP
caller's identity, forced), permissions, throttles, ``get_queryset``,
serializer validation, ``perform_*`` hooks, filter backends and pagination
run as they do over REST.

Files:

* ``types.py``      ``CallContext``, ``PreparedCall``, ``InvocationResult``.
* ``requests.py``   building and resolving the inner request.
* ``calls.py``      ``invoke`` (one call), ``ViewHandle`` (a view set up
  but not run), ``invoke_bulk`` (all-or-nothing bulk create).
* ``pagination.py`` ``ToolPagination``, the paginator of list tools (ADR 0003).
* ``probe.py``      ``PermissionProbe``: may a caller use an action at all?
"""

from __future__ import annotations

from frisian_mcp.invocation.calls import (
    ViewHandle,
    database_of,
    invoke,
    invoke_bulk,
    result_of,
    validate_write,
)
from frisian_mcp.invocation.pagination import ToolPagination
from frisian_mcp.invocation.probe import PermissionProbe
from frisian_mcp.invocation.requests import EndpointMismatch
from frisian_mcp.invocation.types import (
    CallContext,
    InvocationResult,
    PreparedCall,
    plain_json,
    to_json,
)

__all__ = [
    "CallContext",
    "EndpointMismatch",
    "InvocationResult",
    "PermissionProbe",
    "PreparedCall",
    "ToolPagination",
    "ViewHandle",
    "database_of",
    "invoke",
    "invoke_bulk",
    "plain_json",
    "result_of",
    "to_json",
    "validate_write",
]
