"""Scale: 300 generated viewsets (1,812 tools) in flat and dispatcher layouts.

The API is ``tests.urls_scale`` on the table-less models of
``tests.scaleapp``. Only the routing test uses the database (it creates the
one table it writes to); pytest-django blocks every query outside
``django_db`` tests, so a ``tools/list`` or a ``help`` call that queried
would come back as an internal error and fail. Timings are measured by
``bench/bench_discovery.py``, not asserted here.
"""

from __future__ import annotations

import contextlib
import json
import math
import re
import sys
import types
from collections.abc import Iterator
from typing import Any

import pytest
from django.conf import settings
from django.db import connection, models
from django.test import override_settings
from jsonschema import Draft202012Validator

from frisian_mcp.contrib.testing import MCPError, MCPTestClient
from frisian_mcp.registry import ToolRegistry, reset_registry
from frisian_mcp.schema import SchemaBuilder
from frisian_mcp.tools import lean
from tests.scaleapp.models import SCALE_MODELS
from tests.urls_scale import (
    WritableNestedSerializer,
    build_urlpatterns,
    expected_tool_count,
    viewset_count,
)

pytestmark = pytest.mark.slow

FLAT = {"TOOL_LAYOUT": "flat"}
DISPATCHER = {"TOOL_LAYOUT": "dispatcher"}
PAGE_SIZE = 100
#: One dispatcher per app: everything in tests.scaleapp is one tool.
DISPATCHER_BYTES_BOUND = 4_096
#: The same with 50 resources, which the dispatcher still lists by name.
SMALL_API_DISPATCHER_BYTES_BOUND = 8_192
#: One dispatcher per first path segment (group0 ... group9).
PATH_DISPATCHER_BYTES_BOUND = 20_000
#: The flat listing's mean size per tool, compact JSON (docs/listing.md).
TOOL_BYTES_BOUND = 1_024
#: The strictest tool-name rule MCP clients apply (DESIGN.md §7).
TOOL_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


@contextlib.contextmanager
def scale_api(count: int | None = None, /, **mcp: Any) -> Iterator[None]:
    """Serve the scale API (the first ``count`` viewsets) with ``FRISIAN_MCP``.

    ``None`` serves ``tests.urls_scale`` as it is; a count builds an
    equivalent URLconf module in memory.
    """
    urlconf = "tests.urls_scale"
    if count is not None:
        urlconf = f"tests._urls_scale_{count}"
        module = types.ModuleType(urlconf)
        module.urlpatterns = build_urlpatterns(count)  # type: ignore[attr-defined]
        sys.modules[urlconf] = module
    try:
        options = {**settings.FRISIAN_MCP, **mcp}
        with override_settings(ROOT_URLCONF=urlconf, FRISIAN_MCP=options):
            reset_registry()
            yield
    finally:
        reset_registry()
        if count is not None:
            del sys.modules[urlconf]


def client() -> MCPTestClient:
    mcp = MCPTestClient()
    mcp.initialize()
    return mcp


def list_pages(mcp: MCPTestClient) -> list[tuple[dict[str, Any], int]]:
    """Every tools/list page: its result and the HTTP response's bytes."""
    pages = []
    params: dict[str, Any] = {}
    for request_id in range(1, 1000):
        response = mcp.post(
            {"jsonrpc": "2.0", "id": request_id, "method": "tools/list", **params}
        )
        assert response.status_code == 200
        payload = json.loads(response.content)
        assert payload["id"] == request_id
        result = payload["result"]
        pages.append((result, len(response.content)))
        if "nextCursor" not in result:
            return pages
        params = {"params": {"cursor": result["nextCursor"]}}
    raise AssertionError("tools/list never ended")


def dispatcher_bytes(count: int, **mcp: Any) -> int:
    with scale_api(count, TOOL_LAYOUT="dispatcher", **mcp):
        pages = list_pages(client())
    assert len(pages) == 1
    return pages[0][1]


@pytest.fixture(scope="module")
def flat_pages() -> list[tuple[dict[str, Any], int]]:
    """The flat tools/list of the whole scale API, listed once per module."""
    with scale_api(**FLAT):
        return list_pages(client())


@pytest.fixture(scope="module")
def flat_tools(flat_pages: list[tuple[dict[str, Any], int]]) -> dict[str, Any]:
    return {tool["name"]: tool for result, _ in flat_pages for tool in result["tools"]}


def test_discovery_names_every_tool_without_building_a_schema(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def build(*args: Any) -> None:
        raise AssertionError("discovery built a schema")

    monkeypatch.setattr(SchemaBuilder, "build", build)
    with scale_api(**DISPATCHER):
        registry = ToolRegistry.from_settings()
        definitions = registry.definitions()
    assert len(registry) == expected_tool_count(viewset_count())
    assert [d["name"] for d in definitions] == ["scaleapp"]


def test_flat_tools_list_pages_through_every_tool_once(
    flat_pages: list[tuple[dict[str, Any], int]],
) -> None:
    names = [tool["name"] for result, _ in flat_pages for tool in result["tools"]]
    total = expected_tool_count(viewset_count())
    assert total >= 1_800
    assert len(names) == total
    assert len(set(names)) == total
    assert all(TOOL_NAME.match(name) for name in names)
    assert len(flat_pages) == math.ceil(total / PAGE_SIZE)
    assert all(len(result["tools"]) == PAGE_SIZE for result, _ in flat_pages[:-1])
    assert "group3__thing123__partial_update" in names
    assert "group0__thing250__archive" in names


def _digits_in_strings_zeroed(value: Any) -> Any:
    """``value`` with every digit inside its string values replaced by 0."""
    if isinstance(value, str):
        return re.sub(r"\d", "0", value)
    if isinstance(value, dict):
        return {key: _digits_in_strings_zeroed(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_digits_in_strings_zeroed(item) for item in value]
    return value


def test_flat_tool_schemas_are_valid_json_schema_2020_12(
    flat_tools: dict[str, Any],
) -> None:
    # Checking all 3,600 schemas against the 2020-12 meta-schema takes about
    # 30 s. Schemas that differ only in the digits of string values (model
    # numbers in descriptions, titles and enums of names) are equally valid:
    # the meta-schema constrains strings by type and enum only, and its
    # "format" keywords are annotations. Keys and numbers are kept exact, so
    # each schema is checked in a form that stands for it; about 40 remain.
    meta = Draft202012Validator(Draft202012Validator.META_SCHEMA)
    distinct: dict[str, tuple[str, dict[str, Any]]] = {}
    checked = 0
    for name, tool in flat_tools.items():
        for key in ("inputSchema", "outputSchema"):
            if key in tool:
                checked += 1
                shape = json.dumps(_digits_in_strings_zeroed(tool[key]), sort_keys=True)
                distinct.setdefault(shape, (f"{name}.{key}", tool[key]))
    invalid = {}
    for where, schema in distinct.values():
        errors = [e.message for e in meta.iter_errors(schema)]
        if errors:
            invalid[where] = errors[:3]
    assert checked >= len(flat_tools) == expected_tool_count(viewset_count())
    assert all("inputSchema" in tool for tool in flat_tools.values())
    assert len(distinct) >= 20
    assert invalid == {}


def test_an_invalid_schema_is_not_hidden_by_the_shape_deduplication() -> None:
    # The deduplication above must keep a schema whose only difference is a
    # number (here an invalid negative maxLength) apart from a valid one.
    valid = {"type": "string", "maxLength": 10, "description": "thing 001"}
    broken = {"type": "string", "maxLength": -1, "description": "thing 002"}
    meta = Draft202012Validator(Draft202012Validator.META_SCHEMA)
    assert _digits_in_strings_zeroed(valid) != _digits_in_strings_zeroed(broken)
    assert meta.is_valid(valid)
    assert not meta.is_valid(broken)


def test_flat_schemas_keep_choices_relations_and_filters(
    flat_tools: dict[str, Any],
) -> None:
    create = flat_tools["group0__thing010__create"]["inputSchema"]
    properties = create["properties"]
    assert create["required"] == ["name"]
    assert properties["status"]["enum"] == ["draft", "active", "retired"]
    assert properties["tags"]["type"] == "array"
    assert (
        "tags"
        not in flat_tools["group1__thing011__create"]["inputSchema"]["properties"]
    )
    validator = Draft202012Validator(create)
    assert validator.is_valid({"name": "a", "parent": None, "tags": [3]})
    assert validator.is_valid({"name": "a", "parent": {"name": "b"}})
    assert not validator.is_valid({"name": "a", "status": "lost"})

    filters = flat_tools["group0__thing030__list"]["inputSchema"]["properties"][
        "filters"
    ]["properties"]
    assert {"status", "parent", "search", "ordering", "quantity__gte"} <= set(filters)
    assert filters["status"]["enum"] == ["active", "draft", "retired"]
    plain = flat_tools["group2__thing032__list"]["inputSchema"]["properties"]
    assert "filters" not in plain or "status" not in plain["filters"]["properties"]


def test_the_flat_listing_is_at_most_1024_bytes_per_tool(
    flat_tools: dict[str, Any],
) -> None:
    sizes = [len(json.dumps(t, separators=(",", ":"))) for t in flat_tools.values()]
    assert sum(sizes) / len(sizes) <= TOOL_BYTES_BOUND


def _lookup_objects(node: Any) -> Iterator[dict[str, Any]]:
    """Every object a schema offers beside an id (``anyOf``): lookup objects."""
    if isinstance(node, list):
        for item in node:
            yield from _lookup_objects(item)
    elif isinstance(node, dict):
        forms = node.get("anyOf") or []
        if any(f.get("type") not in ("object", "null") for f in forms):
            yield from (f for f in forms if "properties" in f)
        for value in node.values():
            yield from _lookup_objects(value)


def test_a_serializer_docstring_is_listed_once_per_tool_at_most(
    flat_tools: dict[str, Any],
) -> None:
    # The nested serializer of every parent shares its base class's
    # docstring; help still gives it in full.
    docstring = "Represents an object related through a foreign key."
    assert docstring in (WritableNestedSerializer.__doc__ or "")
    lookups = [o for t in flat_tools.values() for o in _lookup_objects(t)]
    assert len(lookups) >= len(flat_tools) // 2
    assert [o for o in lookups if "description" in o] == []
    assert max(json.dumps(t).count(docstring) for t in flat_tools.values()) <= 1
    with scale_api(**FLAT):
        helped = client().call_tool("group0__thing010__create", {"help": True})
    assert docstring in json.dumps(helped["structuredContent"])


_DOC = {"description": "A brief object."}
_OBJECT = {"type": "object", "properties": {"name": {"type": "string"}}}


@pytest.mark.parametrize(
    ("schema", "listed"),
    [
        # A lookup object beside an id: its docstring goes.
        (
            {"anyOf": [{"type": "integer"}, {**_OBJECT, **_DOC}]},
            {"anyOf": [{"type": "integer"}, _OBJECT]},
        ),
        # A nullable nested object is no lookup: its description stays.
        (
            {"anyOf": [{**_OBJECT, **_DOC}, {"type": "null"}]},
            {"anyOf": [{**_OBJECT, **_DOC}, {"type": "null"}]},
        ),
        # An object's description once per tool; a field's text every time.
        (
            {"properties": {"a": {**_OBJECT, **_DOC}, "b": {**_OBJECT, **_DOC}}},
            {"properties": {"a": {**_OBJECT, **_DOC}, "b": _OBJECT}},
        ),
        (
            {"properties": {"a": {"type": "string", **_DOC}, "b": {**_DOC}}},
            {"properties": {"a": {"type": "string", **_DOC}, "b": _DOC}},
        ),
    ],
)
def test_lean_lists_an_object_description_once_and_never_on_a_lookup(
    schema: dict[str, Any], listed: dict[str, Any]
) -> None:
    assert lean(schema) == listed


def test_dispatcher_tools_list_is_one_small_tool() -> None:
    with scale_api(**DISPATCHER):
        pages = list_pages(client())
    (result, size), *rest = pages
    assert rest == []
    assert [tool["name"] for tool in result["tools"]] == ["scaleapp"]
    assert size < DISPATCHER_BYTES_BOUND


def test_path_grouped_dispatchers_stay_small() -> None:
    with scale_api(**DISPATCHER, DISPATCHER_GROUP_BY="path"):
        pages = list_pages(client())
    (result, size), *rest = pages
    assert rest == []
    assert [tool["name"] for tool in result["tools"]] == [
        f"group{i}" for i in range(10)
    ]
    assert size < PATH_DISPATCHER_BYTES_BOUND


def test_dispatcher_help_calls_run_without_the_database() -> None:
    with scale_api(**DISPATCHER):
        mcp = client()
        overview = mcp.call_tool("scaleapp", {"help": True})["structuredContent"]
        resource = mcp.call_tool(
            "scaleapp", {"help": True, "resource": "group0__thing250"}
        )["structuredContent"]
        action = mcp.call_tool(
            "scaleapp",
            {"help": True, "resource": "group0__thing250", "action": "archive"},
        )["structuredContent"]
        with pytest.raises(MCPError) as info:
            mcp.call_tool(
                "scaleapp", {"resource": "group0__thing999", "action": "list"}
            )
    assert len(overview["help"]["resources"]) == viewset_count()
    assert "archive" in resource["help"]["actions"]
    assert action["help"]["tool"] == "group0__thing250__archive"
    assert {a["name"] for a in action["help"]["arguments"]} >= {"id", "reason"}
    assert info.value.code == -32602


def test_dispatcher_tools_list_size_does_not_grow_with_viewsets() -> None:
    sizes = {count: dispatcher_bytes(count) for count in (51, 100, 200, 300)}
    # Only the resource count in the description differs ("It has 51 ...").
    assert max(sizes.values()) - min(sizes.values()) <= 2, sizes
    assert sizes[100] == sizes[200] == sizes[300]


def test_dispatcher_lists_its_resources_up_to_the_enum_limit() -> None:
    # Up to ENUM_LIMIT (50) resources a dispatcher also lists them with
    # their actions, so a smaller API has the larger entry; it stays bounded.
    assert dispatcher_bytes(50) > dispatcher_bytes(51)
    assert dispatcher_bytes(50) < SMALL_API_DISPATCHER_BYTES_BOUND


@pytest.fixture
def thing_table(transactional_db: None) -> Iterator[type[models.Model]]:
    """``Thing000``'s table, created for the test and dropped after it.

    The scale models are unmanaged, so neither migrations nor the test
    database setup create tables for them. A transactional test because
    SQLite's schema editor cannot run inside the test's atomic block.
    """
    model = SCALE_MODELS[0]
    with connection.schema_editor() as editor:
        editor.create_model(model)
    try:
        yield model
    finally:
        with connection.schema_editor() as editor:
            editor.delete_model(model)


def test_dispatcher_call_routes_to_the_flat_tool_of_its_resource(
    thing_table: type[models.Model],
) -> None:
    manager = thing_table._default_manager
    resource = {"resource": "group0__thing000"}
    with scale_api(**DISPATCHER):
        mcp = client()
        created = mcp.call_tool(
            "scaleapp",
            {**resource, "action": "create", "name": "alpha", "status": "active"},
        )["structuredContent"]
        fetched = mcp.call_tool(
            "scaleapp", {**resource, "action": "retrieve", "id": created["id"]}
        )["structuredContent"]
        archived = mcp.call_tool(
            "scaleapp",
            {**resource, "action": "archive", "id": created["id"], "reason": "old"},
        )["structuredContent"]
        with pytest.raises(MCPError) as wrapped:
            mcp.call_tool(
                "scaleapp", {**resource, "action": "create", "data": {"name": "beta"}}
            )
        with pytest.raises(MCPError) as misrouted:
            mcp.call_tool(
                "scaleapp", {**resource, "action": "summarise", "name": "gamma"}
            )
    assert created["name"] == "alpha"
    assert created["status"] == "active"
    assert created["display"] == "alpha"
    assert fetched == created
    assert archived == {"archived": str(created["id"])}
    # The dispatcher forwards "data" to the flat create, whose guard refuses
    # it (ADR 007) and names the flat tool.
    assert wrapped.value.code == -32602
    assert wrapped.value.data["code"] == "nested_wrapper"
    assert wrapped.value.data["tool"] == "group0__thing000__create"
    assert misrouted.value.code == -32602
    assert misrouted.value.data["field"] == "action"
    assert list(manager.values_list("name", "quantity")) == [("alpha", 0)]
