"""What retrieve returns can be sent back unchanged to update (issue 18 item 5).

For every URLconf the suite mounts, every resource with a retrieve tool and
an update (or partial update) tool is read through retrieve and the record
is sent back, unchanged, to update: the call must succeed and the row must
stay as it was. Rows come from the list tool, as the caller may see them;
a resource with none gets one from model-bakery. Calls run as a superuser,
so each view's permissions let them through, under the settings each app
needs (tests/mounted.py, which finds every URLconf on disk: a new test app
is covered without being added here).

Where a resource differs by design, :data:`LIST_FAILS` and
:data:`WRITES_OTHER_ROWS` say so, and a test shows REST does the same.
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
from django.urls import resolve
from model_bakery import baker

from demo_project.contacts.models import Contact
from frisian_mcp.contrib.testing import MCPError, MCPTestClient, tool_error
from frisian_mcp.registry import get_registry
from frisian_mcp.tools import Tool
from frisian_mcp.types import Kind
from tests.mounted import mounted, signed_in, urlconfs
from tests.scaleapp.models import SCALE_MODELS
from tests.testapp.models import Publisher
from tests.zoo.models import Device, DeviceType
from tests.zoo.models import Manufacturer as ZooManufacturer

pytestmark = pytest.mark.slow

#: URLconfs without a resource that has both retrieve and update tools.
WITHOUT_UPDATES = {
    "tests.test_pagination_patterns": "list and create views only",
    "tests.regressions.test_inner_request_headers": "one APIView that reads",
    "tests.urls_resources": "read-only views (tests/test_resources.py)",
    "tests.urls_completion": "read-only views (tests/test_completion.py)",
    "tests.urls_completion_none": "one list view (tests/test_completion.py)",
}
#: Every other URLconf the suite mounts (tests.urls_scale has a test below).
URLCONFS = [name for name in urlconfs() if name not in WITHOUT_UPDATES]

#: Views whose list fails by design; their row comes from the table.
#: :func:`test_rest_does_the_same_where_the_round_trip_is_told_so` shows
#: that REST does the same.
LIST_FAILS = {
    "tests.hosts.standardized.views.OversizedPublisherViewSet": (
        "its list raises DataError (the 'refused query' case of the host's "
        "handler test); REST's GET answers 500"
    ),
}
#: Views whose validation writes other rows by design; only the row sent
#: back is compared.
WRITES_OTHER_ROWS = {
    "tests.hosts.transactions.views.AuditingPublisherViewSet": (
        "its serializer's validate() writes an audit row, as a REST PUT of "
        "the same record does"
    ),
}

#: Views whose host code fails for every request, so no tool is built for
#: them (each with a warning); REST answers 500 to their detail GET too.
HOST_BROKEN = {
    "tests.hosts.inventory.views.BrokenPluginViewSet": "get_serializer_class raises",
    "tests.urls_schema_patterns.BrokenPublishers": "its serializer's get_fields raises",
    "tests.urls_schema_patterns.HiddenBrokenPublishers": "the same, for staff",
    "tests.urls_schema_patterns.PickyPublishers": "needs an X-Tenant header",
}


@dataclass
class Pair:
    """A resource's retrieve tool and one of its update tools."""

    retrieve: Tool
    update: Tool
    list: Tool | None


SETTINGS = {"TOOL_LAYOUT": "flat", "FILTER_TOOLS_BY_PERMISSION": False}


@pytest.fixture(params=URLCONFS)
def urlconf(request: pytest.FixtureRequest, db: None) -> Iterator[str]:
    with mounted(request.param, SETTINGS):
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


def _dotted(view: type[Any]) -> str:
    return f"{view.__module__}.{view.__qualname__}"


def _value(row: models.Model, path: str) -> Any:
    """``row``'s value at ``path`` (``pk``, ``slug``, ``project__slug``)."""
    value: Any = row
    for name in path.split("__"):
        value = getattr(value, name)
    return getattr(value, "pk", value)


def parents_of(tool: Tool, row: models.Model) -> dict[str, Any]:
    """``tool``'s path arguments for ``row``'s parents, which
    drf-nested-routers names ``<parent>_<field>`` (``project_slug``)."""
    assert tool.schema is not None
    found = {}
    for name, variable in tool.schema.path_arguments.items():
        parent, _, field = variable.rpartition("_")
        found[name] = _value(row, f"{parent}__{field}")
    return found


def lookup_of(pair: Pair, row: models.Model, record: dict[str, Any] | None) -> Any:
    """The value of the view's lookup field: the record's, else the row's."""
    view = pair.retrieve.endpoint.view_class
    field = getattr(view, "lookup_field", "pk")
    keys = [field, "id", row._meta.pk.name] if field == "pk" else [field]
    found = [record[key] for key in keys if record and key in record]
    return found[0] if found else _value(row, field)


def target(mcp: MCPTestClient, pair: Pair) -> dict[str, Any]:
    """The retrieve tool's path arguments of the first row the list shows.

    The table's first row (model-bakery makes one if there is none) gives
    a nested route's parent; the list, called with it, gives the record.
    """
    model = pair.update.model
    assert model is not None, pair.update.name
    row = model._default_manager.order_by("pk").first() or baker.make(
        model, _create_files=True
    )
    parents = parents_of(pair.list, row) if pair.list else {}
    record = None
    if pair.list and _dotted(pair.list.endpoint.view_class) not in LIST_FAILS:
        page = mcp.call_tool(pair.list.name, {**parents, "page_size": 1})
        content = page["structuredContent"]
        assert not page["isError"], (pair.list.name, content)
        assert content["results"], (pair.list.name, "shows no row")
        record = content["results"][0]
    assert pair.retrieve.schema is not None
    (own,) = set(pair.retrieve.schema.path_arguments) - set(parents)
    return {**parents, own: lookup_of(pair, row, record)}


def snapshot(rows: models.QuerySet[Any]) -> list[dict[str, Any]]:
    """Every row of ``rows`` as plain values, many-to-many ids included."""
    found = []
    for row in rows.order_by("pk"):
        values = model_to_dict(row)
        for name, value in values.items():
            if isinstance(value, list):
                values[name] = sorted(getattr(v, "pk", v) for v in value)
            elif isinstance(value, Decimal):
                values[name] = str(value)
        found.append(values)
    return found


def superuser() -> MCPTestClient:
    return signed_in(User.objects.create_superuser("root", "root@example.org"))


def round_trip(models_: list[type[models.Model]] | None = None) -> None:
    """Send every resource's record back to its update tools; assert it held."""
    mcp = superuser()
    checked, failures = [], []
    unbuilt = {
        _dotted(tool.endpoint.view_class)
        for tool in get_registry()
        if tool.kind == Kind.UPDATE and tool.schema is None
    }
    assert unbuilt <= set(HOST_BROKEN), unbuilt
    for pair in pairs(models_):
        path = target(mcp, pair)
        read = mcp.call_tool(pair.retrieve.name, path)
        record = read["structuredContent"]
        assert not read["isError"], (pair.retrieve.name, record)
        model = pair.update.model
        assert model is not None
        view = _dotted(pair.update.endpoint.view_class)
        rows = model._default_manager.all()
        if view in WRITES_OTHER_ROWS:
            rows = rows.filter(pk=record["id"])
        before = snapshot(rows)
        try:
            result = mcp.call_tool(pair.update.name, {**record, **path})
        except MCPError as exc:
            failures.append((pair.update.name, exc.data))
            continue
        if result["isError"]:
            failures.append((pair.update.name, tool_error(result)))
        elif snapshot(rows) != before:
            failures.append((pair.update.name, "the row changed"))
        checked.append(pair.update.name)
    assert not failures, json.dumps(failures, indent=1, default=str)[:6000]
    assert checked


def test_what_retrieve_returns_updates_unchanged(urlconf: str) -> None:
    round_trip()


@pytest.mark.parametrize("name", sorted(WITHOUT_UPDATES))
def test_the_urlconfs_left_out_have_no_update_tools(name: str, db: None) -> None:
    with mounted(name, SETTINGS):
        assert pairs(None) == []


def test_rest_does_the_same_where_the_round_trip_is_told_so(db: None) -> None:
    """REST's GET of the oversized list fails; REST's PUT of an auditing
    publisher's record writes an audit row too."""
    assert set(LIST_FAILS) | set(WRITES_OTHER_ROWS) == {
        "tests.hosts.standardized.views.OversizedPublisherViewSet",
        "tests.hosts.transactions.views.AuditingPublisherViewSet",
    }
    with mounted("tests.hosts.standardized.urls", SETTINGS):
        client = Client(raise_request_exception=False)
        assert client.get("/api/oversized/").status_code == 500
    with mounted("tests.hosts.transactions.urls", SETTINGS):
        url = f"/api/auditing/{Publisher.objects.create(name='Kept').pk}/"
        record = Client().get(url).json()
        put = Client().put(url, record, content_type="application/json")
        assert put.status_code == 200, put.content
        assert Publisher.objects.count() == 2


@pytest.mark.parametrize(
    ("urlconf", "url"),
    [
        ("tests.hosts.inventory.urls", "/api/plugins/broken/{pk}/"),
        ("tests.urls_schema_patterns", "/api/broken/{pk}/"),
        ("tests.urls_schema_patterns", "/api/hidden/{pk}/"),
        ("tests.urls_schema_patterns", "/api/picky/{pk}/"),
    ],
)
def test_rest_fails_where_the_host_is_broken(urlconf: str, url: str, db: None) -> None:
    """Each of :data:`HOST_BROKEN`, read over REST by a superuser."""
    view = resolve(url.format(pk=1), urlconf=urlconf).func.cls  # type: ignore[attr-defined]
    assert _dotted(view) in HOST_BROKEN
    row = baker.make(view.queryset.model)
    with mounted(urlconf, SETTINGS):
        client = Client(raise_request_exception=False)
        client.force_login(User.objects.create_superuser("root", "root@example.org"))
        assert client.get(url.format(pk=row.pk)).status_code == 500


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
    mcp = superuser()
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
    mcp = superuser()
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
