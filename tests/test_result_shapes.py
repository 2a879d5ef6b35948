"""Every answer fits its declared shape in the official SDK (issue 26 item 1).

Every tool of every URLconf the suite mounts (tests/mounted.py finds them on
disk) is called through the ``mcp`` SDK's own ``Client``
(tests/sdk_client.py), in the handshake era (2025-11-25) and in 2026-07-28:
``help``; a page and the next; a record and its projection; the record
sent back to update and, with unique values of its own, to create;
``mode: "validate"`` wherever a tool takes it; a bulk body; a delete that
asks for a person's confirmation, and the confirmed delete; a row that does
not exist. The SDK checks the ``structuredContent`` of every non-error
result against the tool's listed outputSchema itself
(``ClientSession.validate_tool_result``) and raises on a mismatch. An error
result of a tool listed with an outputSchema must carry no
``structuredContent``: the MCP Inspector would check it against that
schema too (ADR 0038; the Inspector's own run is tests/test_inspector.py).

Every app runs with the demo's extras: the confirmation hook on every
destroy tool (which so takes ``mode``) and the files hook where the app
uses it. The 2026-07-28 pass renders argument errors as tool results
(``INPUT_ERROR_STYLE = "tool_result"``), so those are checked as well.
"""

from __future__ import annotations

import base64
import contextlib
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.db import models
from django.test import Client as DjangoClient
from django.test import override_settings
from jsonschema import Draft202012Validator
from mcp import Client, types
from mcp.shared.exceptions import MCPError
from model_bakery import baker
from rest_framework.authentication import TokenAuthentication
from rest_framework.authtoken.models import Token

from frisian_mcp.conf import mcp_settings
from frisian_mcp.registry import get_registry
from frisian_mcp.schema import ToolSchema
from frisian_mcp.tools import Tool
from frisian_mcp.types import Kind
from tests.mounted import PATHS, SETTINGS, mounted, urlconfs
from tests.sdk_client import InProcessServer

pytestmark = pytest.mark.slow

CONFIRM = "frisian_mcp.contrib.confirm.hooks.ConfirmationHook"
#: The handshake era (``initialize`` negotiates 2025-11-25) and 2026-07-28.
ERAS = ["legacy", "2026-07-28"]
#: The order tools are called in: a delete last, its row made for it.
ORDER = [Kind.LIST, Kind.READ, Kind.ACTION, Kind.CREATE, Kind.UPDATE, Kind.DELETE]
ORDER += [Kind.BULK_UPDATE, Kind.BULK_DELETE]
#: Values of a lookup that name no row, tried in order.
MISSING = [2_147_483_000, "2147483000", "00000000-0000-4000-8000-000000000000"]
MISSING.append("no-such-row")


@dataclass
class Walk:
    """One pass over an app's tools, and what they answered.

    ``shapes``: (tool, shape) of each answer: a key of its structure
    (``record`` for a record), ``error:<code>``, ``-<JSON-RPC code>``, or
    ``content`` (a file); ``failures``: what a client refused.
    """

    tools: dict[str, Tool]
    server: InProcessServer
    listed: dict[str, Any] = field(default_factory=dict)
    shapes: set[tuple[str, str]] = field(default_factory=set)
    failures: list[str] = field(default_factory=list)
    error: dict[str, Any] | None = None
    rows: dict[type[models.Model], list[models.Model]] = field(default_factory=dict)

    async def call(self, client: Client, name: str, arguments: Any) -> Any:
        """The structured result of one call; ``None`` for any other answer.

        The SDK raises ``RuntimeError`` for a non-error result that does not
        fit the listed outputSchema: a failure, as is an error result with
        ``structuredContent`` where an outputSchema is listed.
        """
        self.error = None
        try:
            result = await client.call_tool(name, arguments)
        except MCPError as exc:  # a JSON-RPC error: no result, no shape
            self.shapes.add((name, f"-{exc.code}"))
            return None
        except RuntimeError as exc:
            self.failures.append(f"{name} {_short(arguments)}: {exc}")
            return None
        if result.is_error:
            block = result.content[0]
            assert isinstance(block, types.TextContent), result
            self.error = error = json.loads(block.text)["error"]
            self.shapes.add((name, f"error:{error['code']}"))
            if self.listed.get(name) is not None and result.structured_content:
                self.failures.append(f"{name}: an error result with structure")
            return None
        structured = result.structured_content
        self.shapes.add((name, "content" if structured is None else _shape(structured)))
        return structured

    async def made(self, model: type[models.Model], count: int) -> list[models.Model]:
        """``count`` rows of ``model`` with every field filled (model-bakery),
        made once per walk: a list has a next page, a create a record."""
        made = self.rows.setdefault(model, [])
        while len(made) < count:
            row = await self.server.sync(lambda: _baked(model))
            made.append(row)
        return made[-count:]


def _baked(model: type[models.Model]) -> models.Model:
    return baker.make(model, _create_files=True, _fill_optional=True)


def _shape(structured: dict[str, Any]) -> str:
    for key in ("help", "validation", "deleted", "created", "results"):
        if key in structured:
            return key
    return "record"


def _short(arguments: Any) -> str:
    return json.dumps(arguments, default=str)[:120]


# -- arguments ---------------------------------------------------------------


def _value(row: models.Model, path: str) -> Any:
    value: Any = row
    for name in path.split("__"):
        value = getattr(value, name)
    return getattr(value, "pk", value)


def _lookup(tool: Tool) -> tuple[str, str]:
    """The view's lookup: its URL variable and the field it names."""
    view = tool.endpoint.view_class
    field_name = getattr(view, "lookup_field", "pk")
    return getattr(view, "lookup_url_kwarg", None) or field_name, field_name


def path_of(tool: Tool, row: models.Model) -> dict[str, Any] | None:
    """``tool``'s path arguments for ``row``: its lookup, its parents'
    (drf-nested-routers names them ``<parent>_<field>``)."""
    assert tool.schema is not None
    own, field_name = _lookup(tool)
    found = {}
    try:
        for name, variable in tool.schema.path_arguments.items():
            if variable == own:
                found[name] = _value(row, field_name)
            else:
                parent, _, key = variable.rpartition("_")
                found[name] = _value(row, f"{parent}__{key}")
    except (AttributeError, ValueError):
        return None
    return found


def missing(tool: Tool, path: dict[str, Any]) -> dict[str, Any] | None:
    """``path`` with its lookup changed to a value no row has."""
    assert tool.schema is not None
    own, _ = _lookup(tool)
    names = [n for n, v in tool.schema.path_arguments.items() if v == own]
    if not names:
        return None
    prop = tool.schema.input_schema["properties"][names[0]]
    for value in MISSING:
        if Draft202012Validator(prop).is_valid(value):
            return {**path, names[0]: value}
    return None


def fresh(model: type[models.Model], record: dict[str, Any], prefix: str) -> Any:
    """``record`` with values of its own for its model's unique fields."""
    meta, unique = model._meta, set()
    for together in meta.unique_together:
        unique |= set(together)
    for constraint in meta.constraints:
        unique |= set(getattr(constraint, "fields", ()))
    fields = {
        f.name: f
        for f in meta.fields
        if (f.unique or f.name in unique) and not (f.is_relation or f.primary_key)
    }
    found = dict(record)
    for name in fields.keys() & found.keys():
        value, most = found[name], getattr(fields[name], "max_length", None)
        if isinstance(value, str) and value:
            found[name] = (prefix + value)[:most]
        elif type(value) is int:
            found[name] = value + ord(prefix) * 7919
    return found


def files(schema: ToolSchema) -> dict[str, str]:
    """A small file for each file argument, and its name (docs/files.md)."""
    found = {}
    for name, prop in schema.input_schema["properties"].items():
        if prop.get("contentEncoding") == "base64":
            found[name] = base64.b64encode(b"a shape\n").decode()
            found[f"{name}_filename"] = "shape.txt"
    return {k: v for k, v in found.items() if k in schema.declared}


# -- the walk ----------------------------------------------------------------


async def walk(client: Client, done: Walk) -> None:
    """Call every tool in every way that yields a shape of its own."""
    listed = await client.list_tools()
    done.listed = {t.name: t.output_schema for t in listed.tools}
    for tool in sorted(done.tools.values(), key=lambda t: ORDER.index(t.kind)):
        if tool.name in done.listed:
            await done.call(client, tool.name, {"help": True})
            await _use(client, done, tool)


async def _use(client: Client, done: Walk, tool: Tool) -> None:
    schema, model, sync = tool.schema, tool.model, done.server.sync
    assert schema is not None
    row = (await done.made(model, 2))[0] if model is not None else None
    path = await sync(lambda: path_of(tool, row)) if row is not None else {}
    if path is None or len(path) < len(schema.path_arguments):
        return
    if tool.kind == Kind.LIST:
        page = await done.call(client, tool.name, {**path, "page_size": 1})
        if page and page.get("next_token"):
            token = {**path, "continuation_token": page["next_token"]}
            await done.call(client, tool.name, token)
        return
    if tool.kind in (Kind.READ, Kind.ACTION):
        record = await done.call(client, tool.name, path)
        if record and schema.record_fields:
            keys = {"filter_keys": [schema.record_fields[0]]}
            await done.call(client, tool.name, {**path, **keys})
    elif tool.kind == Kind.DELETE and model is not None:
        await _delete(client, done, tool, model, path)
    elif tool.kind in (Kind.CREATE, Kind.UPDATE):
        await _write(client, done, tool, row, path)
    gap = missing(tool, path)
    if gap is not None and tool.kind != Kind.CREATE:
        await done.call(client, tool.name, gap)


async def _delete(
    client: Client,
    done: Walk,
    tool: Tool,
    model: type[models.Model],
    path: dict[str, Any],
) -> None:
    """Validate, be asked to confirm, confirm: on a row made for it."""
    made = await done.server.sync(lambda: _baked(model))
    gone = await done.server.sync(lambda: path_of(tool, made)) or path
    await done.call(client, tool.name, {**gone, "mode": "validate"})
    await done.call(client, tool.name, gone)
    token = (done.error or {}).get("confirm")
    if isinstance(token, str):
        await done.call(client, tool.name, {**gone, "confirm": token})


async def _write(
    client: Client,
    done: Walk,
    tool: Tool,
    row: models.Model | None,
    path: dict[str, Any],
) -> None:
    """The record retrieve shows, sent back (to a create with unique values
    of its own): validated, alone and in a bulk body, then written."""
    schema, model = tool.schema, tool.model
    assert schema is not None
    shown = await _record(client, done, tool, row)
    shown = {k: v for k, v in shown.items() if k in schema.declared}

    def sent(prefix: str) -> dict[str, Any]:
        if tool.kind == Kind.UPDATE or model is None:
            return {**shown, **path}
        return {**fresh(model, shown, prefix), **files(schema), **path}

    if "mode" in schema.protocol_arguments:
        await done.call(client, tool.name, {**sent("n"), "mode": "validate"})
    bulk = tool.kind == Kind.CREATE and not path and schema.body_argument is None
    if bulk:
        items = {"objects": [sent("n")], "mode": "validate"}
        await done.call(client, tool.name, items)
    await done.call(client, tool.name, sent("n"))
    if bulk:
        await done.call(client, tool.name, {"objects": [sent("b"), sent("c")]})


async def _record(
    client: Client, done: Walk, tool: Tool, row: models.Model | None
) -> dict[str, Any]:
    """What the retrieve tool of the same model shows of ``row``."""
    if row is None:
        return {}
    reads = [
        t
        for t in done.tools.values()
        if t.kind == Kind.READ and t.model is tool.model and t.name in done.listed
    ]
    for read in reads:
        path = await done.server.sync(lambda: path_of(read, row))  # noqa: B023
        found = await done.call(client, read.name, path) if path is not None else None
        if isinstance(found, dict):
            return found
    return {}


# -- the tests ---------------------------------------------------------------


#: The demo runs in a test of its own, which asks for each shape.
DEMO = "demo_project.urls"
#: Every tool listed to everyone; argument errors as tool results, so that
#: they are results to check too.
WALKED = {
    "TOOL_LAYOUT": "flat",
    "FILTER_TOOLS_BY_PERMISSION": False,
    "INPUT_ERROR_STYLE": "tool_result",
}


@contextlib.contextmanager
def demo_extras(urlconf: str) -> Iterator[None]:
    """``urlconf`` under its own settings and the demo's extras."""
    own = SETTINGS.get(urlconf, {}).get("FRISIAN_MCP", {})
    hooks = [CONFIRM, *own.get("CALL_HOOKS", ())]
    with mounted(urlconf, WALKED):
        demo = {"CALL_HOOKS": hooks, "CONFIRM": ["destroy"]}
        with override_settings(FRISIAN_MCP={**settings.FRISIAN_MCP, **demo}):
            yield


@pytest.fixture(params=[name for name in urlconfs() if name != DEMO])
def urlconf(request: pytest.FixtureRequest, db: None) -> Iterator[str]:
    with demo_extras(request.param):
        yield request.param


def server(user: User | None) -> InProcessServer:
    """The mounted app's endpoint, as ``user`` (a session, and a token
    where the endpoint takes tokens)."""
    # A client gets the answer to a host's bug (a -32603), not its exception.
    django, headers = DjangoClient(raise_request_exception=False), {}
    if user is not None:
        django.force_login(user)
        if TokenAuthentication in (mcp_settings.AUTHENTICATION_CLASSES or ()):
            key = Token.objects.get_or_create(user=user)[0].key
            headers["Authorization"] = f"Token {key}"
    path = PATHS.get(str(settings.ROOT_URLCONF), "/mcp")
    return InProcessServer(django, path, headers)


def run(user: User) -> list[Walk]:
    """Walk every tool as ``user``, once in each era."""
    tools = {t.name: t for t in get_registry() if t.schema is not None}
    walks = []
    for era in ERAS:
        done = Walk(tools, server(user))
        done.server.run(lambda client: walk(client, done), era)  # noqa: B023
        walks.append(done)
    return walks


def failures(walks: list[Walk]) -> str:
    return "\n".join(
        f"{era}: {f}" for era, w in zip(ERAS, walks, strict=True) for f in w.failures
    )


def test_every_answer_fits_the_declared_shape(urlconf: str) -> None:
    walks = run(User.objects.create_superuser("root", "root@example.org"))
    assert not failures(walks)
    for done in walks:
        helped = {name for name, shape in done.shapes if shape == "help"}
        assert helped == set(done.listed)


#: Each shape the walk must meet in the demo, for every resource.
DEMO_SHAPES = {
    "list": {"results"},
    "retrieve": {"record", "error:not_found"},
    "create": {"record", "created", "validation"},
    "update": {"record", "validation", "error:not_found"},
    "partial_update": {"record", "validation", "error:not_found"},
    "destroy": {"validation", "error:confirmation_required", "deleted"},
}


def test_the_demo_gives_every_shape(db: None) -> None:
    """The demo, under its own extras: each shape above for each resource
    (so the walk skipped nothing), and a file download without structure."""
    with demo_extras(DEMO):
        walks = run(User.objects.create_superuser("root", "root@example.org"))
    assert not failures(walks)
    for done in walks:
        for resource in ("contacts", "attachments", "dcim__sites", "dcim__tags"):
            for action, shapes in DEMO_SHAPES.items():
                name = f"{resource}__{action}"
                got = {shape for tool, shape in done.shapes if tool == name}
                assert shapes <= got, (name, got)
        assert ("attachments__download", "content") in done.shapes


def test_refusals_fit_the_declared_shape(db: None) -> None:
    """A user without model permissions, on the demo's REST policy
    (tests.urls_parity): every write is refused, as over REST."""
    with demo_extras("tests.urls_parity"):
        walks = run(User.objects.create_user("plain"))
    assert not failures(walks)
    for done in walks:
        refused = {t for t, shape in done.shapes if shape == "error:permission_denied"}
        assert {
            "contacts__create",
            "contacts__destroy",
            "dcim__sites__update",
        } <= refused
