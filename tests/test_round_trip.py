"""What retrieve returns can be sent back unchanged to update (issue 18 item 5).

For every URLconf the suite mounts, every resource with a retrieve tool and
an update (or partial update) tool is read through retrieve and the record
is sent back, unchanged, to update: the call must succeed and the row must
stay as it was. Rows come from the list tool, as the caller may see them;
a resource with none gets one from model-bakery. Calls run as a superuser,
so each view's permissions let them through.

A new test app adds its URLconf to :data:`URLCONFS`.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connection, models
from django.forms.models import model_to_dict
from django.test import Client, override_settings
from model_bakery import baker

from demo_project.contacts.models import Contact
from frisian_mcp.registry import get_registry
from frisian_mcp.testing import MCPError, MCPTestClient
from frisian_mcp.tools import Tool
from frisian_mcp.types import Kind
from tests.scaleapp.models import SCALE_MODELS
from tests.zoo.models import Device, DeviceType
from tests.zoo.models import Manufacturer as ZooManufacturer

#: Every URLconf the suite mounts that serves retrieve and update tools
#: (and tests.urls_scale, whose unmanaged models need their tables made).
URLCONFS = [
    "tests.urls",
    "tests.urls_parity",
    "tests.urls_schema_patterns",
    "tests.urls_versioned",
    "tests.urls_zoo",
    "tests.hosts.docsearch.urls",
    "tests.hosts.translations.urls",
    "tests.hosts.ipam.urls",
    "tests.hosts.notebook.urls",
]


@dataclass
class Pair:
    """A resource's retrieve tool and one of its update tools."""

    retrieve: Tool
    update: Tool
    list: Tool | None


SETTINGS = {"TOOL_LAYOUT": "flat", "FILTER_TOOLS_BY_PERMISSION": False}


@pytest.fixture(params=URLCONFS)
def urlconf(request: pytest.FixtureRequest, db: None) -> Iterator[str]:
    with override_settings(ROOT_URLCONF=request.param, FRISIAN_MCP=SETTINGS):
        yield request.param


@contextlib.contextmanager
def tables(models_: list[type[models.Model]]) -> Iterator[None]:
    with connection.schema_editor() as editor:
        for model in models_:
            editor.create_model(model)
    try:
        yield
    finally:
        with connection.schema_editor() as editor:
            for model in reversed(models_):
                editor.delete_model(model)


def pairs(models_: list[type[models.Model]] | None) -> list[Pair]:
    """Each update tool beside the retrieve tool of the same URL.

    ``models_``: only the tools of these models.
    """
    tools = [t for t in get_registry() if models_ is None or t.model in models_]
    reads = {t.endpoint.path: t for t in tools if t.kind == Kind.READ}
    lists = {t.endpoint.path: t for t in tools if t.kind == Kind.LIST}
    found = []
    for tool in tools:
        read = reads.get(tool.endpoint.path)
        if tool.kind == Kind.UPDATE and read is not None and tool.schema is not None:
            collection = tool.endpoint.path.rsplit("{", 1)[0]
            found.append(Pair(read, tool, lists.get(collection)))
    return found


def lookup_of(pair: Pair, record: dict[str, Any]) -> dict[str, Any] | None:
    """The retrieve tool's path arguments for ``record``, if they are its own."""
    schema = pair.retrieve.schema
    assert schema is not None
    view = pair.retrieve.endpoint.view_class
    field = getattr(view, "lookup_field", "pk")
    model = pair.retrieve.model
    keys = (
        [field, "id", model._meta.pk.name if model else "pk"]
        if field == "pk"
        else [field]
    )
    value = next((record[k] for k in keys if k in record), None)
    if value is None or len(schema.path_arguments) != 1:
        return None  # a nested route's parent is not in the record
    return {next(iter(schema.path_arguments)): value}


def snapshot(model: type[models.Model]) -> list[dict[str, Any]]:
    """Every row of ``model`` as plain values, many-to-many ids included."""
    rows = []
    for row in model._default_manager.order_by("pk"):
        values = model_to_dict(row)
        for name, value in values.items():
            if isinstance(value, list):
                values[name] = sorted(getattr(v, "pk", v) for v in value)
            elif isinstance(value, Decimal):
                values[name] = str(value)
        rows.append(values)
    return rows


def first_record(mcp: MCPTestClient, pair: Pair) -> dict[str, Any] | None:
    if pair.list is None or pair.list.schema is None:
        return None
    if pair.list.schema.path_arguments:
        return None
    for attempt in range(2):
        page = mcp.call_tool(pair.list.name, {"page_size": 1})["structuredContent"]
        assert "results" in page, (pair.list.name, page)
        if page["results"]:
            record: dict[str, Any] = page["results"][0]
            return record
        if attempt == 0 and pair.update.model is not None:
            baker.make(pair.update.model)
    return None


def superuser() -> Client:
    client = Client()
    client.force_login(User.objects.create_superuser("root", "root@example.org"))
    return client


def round_trip(models_: list[type[models.Model]] | None = None) -> None:
    """Send every resource's record back to its update tools; assert it held."""
    mcp = MCPTestClient(superuser())
    mcp.initialize()
    checked, skipped, failures = [], [], []
    for pair in pairs(models_):
        listed = first_record(mcp, pair)
        path = lookup_of(pair, listed) if listed else None
        model = pair.update.model
        if path is None or model is None:
            skipped.append(pair.update.name)
            continue
        record = mcp.call_tool(pair.retrieve.name, path)["structuredContent"]
        before = snapshot(model)
        try:
            result = mcp.call_tool(pair.update.name, {**record, **path})
        except MCPError as exc:
            failures.append((pair.update.name, exc.data))
            continue
        if result["isError"]:
            failures.append((pair.update.name, result["structuredContent"]))
        elif snapshot(model) != before:
            failures.append((pair.update.name, "the row changed"))
        checked.append(pair.update.name)
    assert not failures, json.dumps(failures, indent=1, default=str)[:6000]
    assert checked, skipped
    assert len(skipped) <= len(checked), skipped


def test_what_retrieve_returns_updates_unchanged(urlconf: str) -> None:
    round_trip()


def test_what_retrieve_returns_updates_unchanged_at_scale(
    transactional_db: None,
) -> None:
    """Every 25th of the 300 generated resources (the field mix repeats).

    Their tables exist only for this test: SQLite's schema editor cannot run
    inside a test's atomic block.
    """
    with (
        tables(SCALE_MODELS),
        override_settings(ROOT_URLCONF="tests.urls_scale", FRISIAN_MCP=SETTINGS),
    ):
        round_trip(SCALE_MODELS[::25])


# -- what a record sent back may and may not change ------------------------
@override_settings(FRISIAN_MCP=SETTINGS)
def test_a_changed_read_only_field_is_refused_and_nothing_written(db: None) -> None:
    """REST would drop it silently; the tool says it cannot change it."""
    mcp = MCPTestClient(superuser())
    mcp.initialize()
    created = mcp.call_tool(
        "contacts__create", {"first_name": "Ada", "email": "a@x.org"}
    )
    record = created["structuredContent"]
    contact = Contact.objects.get(pk=record["id"])
    sent = {**record, "first_name": "Grace", "created_at": "2001-01-01T00:00:00Z"}
    for tool in ("contacts__update", "contacts__partial_update"):
        with pytest.raises(MCPError) as info:
            mcp.call_tool(tool, sent)
        data = info.value.data
        assert data["code"] == "invalid_argument", data
        assert [f["field"] for f in data["fields"]] == ["created_at"]
        assert data["fields"][0]["code"] == "read_only"
        assert "2001" not in json.dumps(data)
    assert Contact.objects.get(pk=contact.pk).first_name == "Ada"
    unchanged = mcp.call_tool(
        "contacts__partial_update", {**record, "first_name": "Grace"}
    )
    assert unchanged["isError"] is False, unchanged
    assert Contact.objects.get(pk=contact.pk).first_name == "Grace"


@override_settings(ROOT_URLCONF="tests.urls_zoo", FRISIAN_MCP=SETTINGS)
def test_a_nested_record_goes_back_as_its_row_and_a_changed_one_to_the_host(
    db: None,
) -> None:
    """Exactly what the row shows is its related row; anything else is the
    field's to judge (this host refuses keys that are not unique)."""
    maker = ZooManufacturer.objects.create(name="Acme", slug="acme")
    kinds = [
        DeviceType.objects.create(manufacturer=maker, model=m, slug=m) for m in "ab"
    ]
    device = Device.objects.create(name="sw1", device_type=kinds[0])
    mcp = MCPTestClient(superuser())
    mcp.initialize()
    record = mcp.call_tool("dcim__devices__retrieve", {"id": device.pk})[
        "structuredContent"
    ]
    assert isinstance(record["device_type"], dict)
    assert mcp.call_tool("dcim__devices__update", record)["isError"] is False
    moved = {**record["device_type"], "id": kinds[1].pk}
    with pytest.raises(MCPError) as info:
        mcp.call_tool("dcim__devices__update", {**record, "device_type": moved})
    assert info.value.data["code"] == "validation_failed", info.value.data
    assert Device.objects.get(pk=device.pk).device_type == kinds[0]
