"""REST and MCP side by side: the same request both ways, on the same server.

:func:`same` sends a REST request (rolled back afterwards), then the MCP
call, and holds both to one verdict, the same stored rows and, for a
success, the same record. Ids and URLs are left out of the comparison, and
rows refer to each other by position: PostgreSQL's sequences do not roll
back.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from django.db import models, transaction
from django.forms.models import model_to_dict
from django.test import Client

from frisian_mcp.contrib.testing import MCPError, MCPTestClient

#: Values an argument never shows in an error: each test sends one of them.
MARKER = "zz-marker-42"


@dataclass(frozen=True)
class Outcome:
    """One side's answer: ``ok``, ``invalid`` (400 / -32602) or a status."""

    verdict: str
    body: Any
    rows: list[dict[str, Any]]


def snapshot(tables: Iterable[type[models.Model]]) -> list[dict[str, Any]]:
    """Every row of ``tables`` as plain values, keys as positions.

    A row's own primary key is left out, and a reference to a row of
    ``tables`` is that row's position in its table.
    """
    tables = list(tables)
    positions = {
        model: {
            pk: index
            for index, pk in enumerate(
                model._default_manager.order_by("pk").values_list("pk", flat=True)
            )
        }
        for model in tables
    }
    rows = []
    for model in tables:
        for row in model._default_manager.order_by("pk"):
            values = model_to_dict(row)
            values.pop(model._meta.pk.name, None)
            for field in model._meta.concrete_fields:
                if field.related_model in positions and field.name in values:
                    target = positions[field.related_model]
                    values[field.name] = ("row", target.get(values[field.name]))
            rows.append({"table": model.__name__, **values})
    return rows


def over_rest(
    method: str, path: str, body: Any, tables: Iterable[type[models.Model]]
) -> Outcome:
    """REST's answer to ``method path`` and the rows it left, rolled back."""
    tables = list(tables)
    with transaction.atomic():
        send = getattr(Client(), method.lower())
        response = send(path, json.dumps(body), content_type="application/json")
        rows = snapshot(tables)
        transaction.set_rollback(True)
    status = response.status_code
    verdict = "ok" if status < 300 else "invalid" if status == 400 else str(status)
    return Outcome(verdict, json.loads(response.content or b"null"), rows)


def over_mcp(
    mcp: MCPTestClient,
    tool: str,
    arguments: Mapping[str, Any],
    tables: Iterable[type[models.Model]],
) -> Outcome:
    """The MCP call's answer (an argument error's data) and the rows after it."""
    try:
        result = mcp.call_tool(tool, arguments)
    except MCPError as exc:
        verdict = "invalid" if exc.code == -32602 else str(exc.code)
        return Outcome(verdict, exc.data, snapshot(tables))
    verdict = "error" if result["isError"] else "ok"
    return Outcome(verdict, result["structuredContent"], snapshot(tables))


def same(
    mcp: MCPTestClient,
    request: str,
    tool: str,
    arguments: Mapping[str, Any],
    tables: Iterable[type[models.Model]],
    *,
    body: Any = None,
) -> tuple[Outcome, Outcome]:
    """Send ``request`` (``"POST /api/x/"``) and call ``tool``; compare.

    ``body`` is REST's, by default the arguments. Both sides must reach the
    same verdict and leave the same rows; successes return the same record.
    """
    tables = list(tables)
    method, path = request.split(" ", 1)
    rest = over_rest(method, path, dict(arguments) if body is None else body, tables)
    mcp_side = over_mcp(mcp, tool, arguments, tables)
    assert mcp_side.verdict == rest.verdict, (rest, mcp_side)
    assert mcp_side.rows == rest.rows
    if rest.verdict == "ok":
        assert unnumbered(mcp_side.body) == unnumbered(rest.body)
    return rest, mcp_side


def unnumbered(record: Any) -> Any:
    """``record`` without ids and URLs, at any depth."""
    if isinstance(record, list):
        return [unnumbered(item) for item in record]
    if not isinstance(record, dict):
        return record
    return {k: unnumbered(v) for k, v in record.items() if k not in ("id", "url")}


def sent_nothing_of(outcome: Outcome, *values: str) -> bool:
    """Whether none of ``values`` appears in ``outcome``'s answer."""
    text = json.dumps(outcome.body)
    return not any(value in text for value in values)
