"""Serializer fields to JSON Schema 2020-12: table-driven, plus whole-API checks."""

from __future__ import annotations

import json
import threading
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client, override_settings
from drf_spectacular.settings import spectacular_settings
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from jsonschema import Draft202012Validator
from rest_framework import generics, serializers

from frisian_mcp import spectacular
from frisian_mcp.checks import check_schemas
from frisian_mcp.contrib.testing import MCPError, MCPTestClient
from frisian_mcp.discovery import Endpoint
from frisian_mcp.schema import SchemaBuilder
from tests.testapp.models import Book, Publisher, Shelf
from tests.testapp.serializers import NativePublisherField


def input_schema(
    serializer_class: type[serializers.BaseSerializer[Any]], method: str = "POST"
) -> dict[str, Any]:
    """The inputSchema of a create (or PATCH) tool for ``serializer_class``."""
    bases = (generics.CreateAPIView,) if method == "POST" else (generics.UpdateAPIView,)
    view: type[generics.GenericAPIView[Book]] = type(
        "View",
        bases,
        {"serializer_class": serializer_class, "queryset": Book.objects.none()},
    )
    action = "create" if method == "POST" else "partial_update"
    path = "/things/" if method == "POST" else "/things/{pk}/"
    endpoint = Endpoint(
        path=path,
        path_regex="^" + path.strip("/") + "/$",
        method=method,
        callback=view.as_view(),
        action=action,
    )
    schema = SchemaBuilder().build(endpoint, "^/")
    assert schema is not None
    return schema.input_schema


def property_of(field: serializers.Field[Any, Any, Any, Any]) -> dict[str, Any] | None:
    serializer_class = type("OneField", (serializers.Serializer,), {"value": field})
    properties = input_schema(serializer_class)["properties"]
    schema: dict[str, Any] | None = properties.get("value")
    return schema


@extend_schema_field(OpenApiTypes.INT)
class CustomCountField(serializers.Field[int, int, int, Any]):
    """A project field with its own schema declaration."""


@extend_schema_field(
    {
        "type": "object",
        "nullable": True,
        "properties": {
            "note": {"type": "string", "nullable": True},
            "score": {"type": "number", "minimum": 0, "exclusiveMinimum": True},
            "ref": {"allOf": [{"type": "object"}], "nullable": True},
        },
    }
)
class HandWrittenField(serializers.Field[Any, Any, Any, Any]):
    """A project field whose schema its authors wrote in OAS 3.0's terms."""


class NestedAddress(serializers.Serializer[dict[str, str]]):
    street = serializers.CharField(max_length=50)
    city = serializers.CharField(required=False)


CASES: list[tuple[str, serializers.Field[Any, Any, Any, Any], dict[str, Any]]] = [
    (
        "char",
        serializers.CharField(max_length=10),
        {"type": "string", "maxLength": 10, "minLength": 1},
    ),
    ("char_blank", serializers.CharField(allow_blank=True), {"type": "string"}),
    ("char_null", serializers.CharField(allow_null=True), {"type": ["string", "null"]}),
    (
        "integer_bounds",
        serializers.IntegerField(min_value=1, max_value=5),
        {"type": "integer", "minimum": 1, "maximum": 5},
    ),
    ("float", serializers.FloatField(), {"type": "number"}),
    (
        "decimal",
        serializers.DecimalField(max_digits=5, decimal_places=2),
        {"type": "string", "format": "decimal"},
    ),
    ("boolean", serializers.BooleanField(), {"type": "boolean"}),
    ("date", serializers.DateField(), {"type": "string", "format": "date"}),
    (
        "datetime",
        serializers.DateTimeField(),
        {"type": "string", "format": "date-time"},
    ),
    ("time", serializers.TimeField(), {"type": "string", "format": "time"}),
    ("uuid", serializers.UUIDField(), {"type": "string", "format": "uuid"}),
    ("email", serializers.EmailField(), {"type": "string", "format": "email"}),
    ("url", serializers.URLField(), {"type": "string", "format": "uri"}),
    ("ip", serializers.IPAddressField(), {"type": "string"}),
    (
        "choice",
        serializers.ChoiceField(choices=["a", "b"]),
        {"type": "string", "enum": ["a", "b"]},
    ),
    (
        "choice_null",
        serializers.ChoiceField(choices=["a"], allow_null=True),
        {"type": ["string", "null"], "enum": ["a", None]},
    ),
    (
        "int_choice",
        serializers.ChoiceField(choices=[1, 2]),
        {"type": "integer", "enum": [1, 2]},
    ),
    (
        "multiple_choice",
        serializers.MultipleChoiceField(choices=["x", "y"]),
        {"type": "array", "items": {"type": "string", "enum": ["x", "y"]}},
    ),
    (
        "list",
        serializers.ListField(child=serializers.IntegerField()),
        {"type": "array", "items": {"type": "integer"}},
    ),
    (
        "dict",
        serializers.DictField(child=serializers.CharField()),
        {"type": "object", "additionalProperties": {"type": "string", "minLength": 1}},
    ),
    ("json", serializers.JSONField(), {}),
    ("default", serializers.IntegerField(default=3), {"type": "integer", "default": 3}),
    ("custom_declared", CustomCountField(), {"type": "integer"}),
    (
        "hand_written_oas30",
        HandWrittenField(),
        {
            "type": ["object", "null"],
            "properties": {
                "note": {"type": ["string", "null"]},
                "score": {"type": "number", "exclusiveMinimum": 0},
                "ref": {"type": ["object", "null"]},
            },
        },
    ),
    (
        "nested",
        NestedAddress(),
        {
            "type": "object",
            "properties": {
                "street": {"type": "string", "maxLength": 50, "minLength": 1},
                "city": {"type": "string", "minLength": 1},
            },
            "required": ["street"],
            "additionalProperties": False,
        },
    ),
    (
        "nested_many",
        NestedAddress(many=True),
        {"type": "array", "items": {"type": "object", "additionalProperties": False}},
    ),
]


@pytest.mark.parametrize(
    ("name", "field", "expected"), CASES, ids=[c[0] for c in CASES]
)
def test_field_mapping(
    name: str, field: serializers.Field[Any, Any, Any, Any], expected: dict[str, Any]
) -> None:
    schema = property_of(field)
    assert schema is not None
    for key, value in expected.items():
        if isinstance(value, dict) and isinstance(schema.get(key), dict):
            assert value.items() <= schema[key].items() or _subset(
                value, schema[key]
            ), (key, schema)
        else:
            assert schema.get(key) == value, (key, schema)
    if not expected:
        assert "type" not in schema


def _subset(small: dict[str, Any], big: dict[str, Any]) -> bool:
    return all(
        k in big and (big[k] == v or (isinstance(v, dict) and _subset(v, big[k])))
        for k, v in small.items()
    )


@pytest.mark.parametrize(
    "field",
    [
        serializers.CharField(read_only=True),
        serializers.HiddenField(default="x"),
        serializers.SerializerMethodField(),
        serializers.FileField(),
    ],
    ids=["read_only", "hidden", "method", "file"],
)
def test_fields_an_agent_cannot_send_are_absent(
    field: serializers.Field[Any, Any, Any, Any],
) -> None:
    assert property_of(field) is None


def test_required_follows_the_serializer() -> None:
    class S(serializers.Serializer[dict[str, Any]]):
        a = serializers.CharField()
        b = serializers.CharField(required=False)
        c = serializers.IntegerField()

    schema = input_schema(S)
    assert schema["required"] == ["a", "c"]
    assert schema["additionalProperties"] is False


def test_partial_update_requires_only_the_lookup() -> None:
    class S(serializers.Serializer[dict[str, Any]]):
        a = serializers.CharField()
        nested = NestedAddress()

    schema = input_schema(S, method="PATCH")
    assert schema["required"] == ["id"]  # {pk} is named after the model pk
    assert "required" not in schema["properties"]["nested"]


# -- relations ----------------------------------------------------------------


def test_primary_key_relation_accepts_id_numeric_string_or_unique_lookup() -> None:
    schema = property_of(
        serializers.PrimaryKeyRelatedField(queryset=Publisher.objects.all())
    )
    assert schema is not None
    id_form, numeric, lookup = schema["anyOf"]
    assert id_form == {"type": "integer"}
    assert numeric == {"type": "string", "pattern": "^-?[0-9]+$"}
    assert lookup["properties"] == {
        "id": {"type": "integer"},
        "name": {"type": "string"},
        "code": {"type": ["string", "null"]},
    }
    assert lookup["additionalProperties"] is False
    # Every key is a single field: any non-empty subset names one row.
    assert lookup["minProperties"] == 1
    assert "anyOf" not in lookup
    assert "name" in schema["description"]


def test_nullable_relation_accepts_null() -> None:
    schema = property_of(
        serializers.PrimaryKeyRelatedField(
            queryset=Publisher.objects.all(), allow_null=True
        )
    )
    assert schema is not None
    assert {"type": "null"} in schema["anyOf"]


def test_many_relation_is_an_array_of_references() -> None:
    schema = property_of(
        serializers.PrimaryKeyRelatedField(queryset=Publisher.objects.all(), many=True)
    )
    assert schema is not None
    assert schema["type"] == "array"
    assert len(schema["items"]["anyOf"]) == 3


def test_slug_relation_accepts_the_slug_or_a_lookup() -> None:
    schema = property_of(
        serializers.SlugRelatedField(slug_field="isbn", queryset=Book.objects.all())
    )
    assert schema is not None
    assert schema["anyOf"][0] == {"type": "string"}
    assert set(schema["anyOf"][1]["properties"]) == {"id", "isbn", "uid"}


def test_unique_together_set_is_a_lookup_key() -> None:
    schema = property_of(
        serializers.PrimaryKeyRelatedField(queryset=Shelf.objects.all())
    )
    assert schema is not None
    lookup = schema["anyOf"][-1]
    assert {"required": ["room", "number"]} in lookup["anyOf"]
    assert lookup["properties"]["number"] == {"type": "integer"}


def test_uuid_primary_key_relation() -> None:
    from demo_project.contacts.models import Contact

    schema = property_of(
        serializers.PrimaryKeyRelatedField(queryset=Contact.objects.all())
    )
    assert schema is not None
    assert schema["anyOf"][0] == {"type": "string", "format": "uuid"}


def test_native_lookup_field_accepts_id_or_an_open_lookup_object() -> None:
    schema = property_of(NativePublisherField())
    assert schema is not None
    lookup = schema["anyOf"][-1]
    assert lookup["type"] == "object"
    assert lookup["minProperties"] == 1
    # The field resolves objects itself: other keys reach it untouched.
    assert "required" not in lookup
    assert "additionalProperties" not in lookup
    assert set(lookup["properties"]) == {"id", "name", "code"}
    # An id, any text and any other JSON value reach the field (ADR 0034).
    assert schema["anyOf"][0] == {
        "type": ["array", "boolean", "integer", "number", "string"]
    }
    assert "one of these keys: id, name, code" in schema["description"]


# -- the whole API ------------------------------------------------------------


@pytest.mark.django_db
def test_every_input_schema_is_valid_json_schema_2020_12(mcp: MCPTestClient) -> None:
    tools = mcp.list_tools()
    assert len(tools) > 30
    for tool in tools:
        Draft202012Validator.check_schema(tool["inputSchema"])
        assert tool["inputSchema"]["type"] == "object"
        assert tool["description"].strip()
        assert tool["title"].strip()


#: ToolAnnotations' defaults in the MCP spec: a listing may leave these out.
HINT_DEFAULTS = {
    "readOnlyHint": False,
    "destructiveHint": True,
    "idempotentHint": False,
    "openWorldHint": True,
}


@pytest.mark.django_db
def test_every_tool_has_annotations(mcp: MCPTestClient) -> None:
    """What a client reading the hints with the spec's defaults concludes."""
    for tool in mcp.list_tools():
        hints = {**HINT_DEFAULTS, **tool["annotations"]}
        assert "title" not in tool["annotations"]  # the tool's own title says it
        assert hints["openWorldHint"] is False
        action = tool["name"].rsplit("__", 1)[1]
        if action in ("list", "retrieve"):
            assert hints["readOnlyHint"] is True
            # Meaningless on a read-only tool, so never listed.
            assert not {"destructiveHint", "idempotentHint"} & set(tool["annotations"])
        if action in ("update", "partial_update", "destroy"):
            assert hints["readOnlyHint"] is False
            assert hints["destructiveHint"] is True
            assert hints["idempotentHint"] is True
        if action == "create":
            assert hints["readOnlyHint"] is False
            assert hints["destructiveHint"] is False
            assert hints["idempotentHint"] is False
            # A default of true, so "false" must be said.
            assert tool["annotations"]["destructiveHint"] is False


class OpaqueField(serializers.Field[Any, Any, Any, Any]):
    """A project field spectacular cannot type (no annotation, no extension)."""

    def to_representation(self, value):  # type: ignore[no-untyped-def]
        return value

    def to_internal_value(self, data):  # type: ignore[no-untyped-def]
        return data


def test_unmapped_field_accepts_any_json_and_warns(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level("WARNING", logger="frisian_mcp"):
        schema = property_of(OpaqueField())
    assert schema is not None
    assert "type" not in schema
    assert "Any JSON value" in schema["description"]
    assert "OneField.value" in caplog.text


def test_unmapped_field_policy_raise() -> None:
    from django.test import override_settings

    from frisian_mcp.exceptions import SchemaError

    with (
        override_settings(
            FRISIAN_MCP={
                "REQUIRE_AUTHENTICATION": False,
                "UNMAPPED_FIELD_POLICY": "RAISE",
            }
        ),
        pytest.raises(SchemaError, match=r"OneField\.value"),
    ):
        property_of(OpaqueField())


def test_unmapped_field_policy_ignore(caplog: pytest.LogCaptureFixture) -> None:
    from django.test import override_settings

    with (
        override_settings(
            FRISIAN_MCP={
                "REQUIRE_AUTHENTICATION": False,
                "UNMAPPED_FIELD_POLICY": "IGNORE",
            }
        ),
        caplog.at_level("WARNING"),
    ):
        schema = property_of(OpaqueField())
    assert schema is not None
    assert "type" not in schema
    assert caplog.text == ""


# -- real-world view patterns (issue 11, items 1 and 9) ------------------------

PATTERNS = override_settings(ROOT_URLCONF="tests.urls_schema_patterns")


def _properties(tools: list[dict[str, Any]], name: str) -> dict[str, Any]:
    (tool,) = [t for t in tools if t["name"] == name]
    return dict(tool["inputSchema"]["properties"])


@PATTERNS
@pytest.mark.django_db
def test_accept_header_versioned_views_see_a_negotiated_request() -> None:
    mcp = MCPTestClient()
    mcp.initialize()
    tools = mcp.list_tools()
    # No default version: request.version is None, the media type is set.
    for name in ("accept__create", "unversioned__create"):
        assert {"name", "country", "code"} <= _properties(tools, name).keys()
    result = mcp.call_tool("unversioned__create", {"name": "Ace", "code": "a1"})
    assert result.get("isError") is not True
    assert Publisher.objects.filter(name="Ace", code="a1").exists()


@PATTERNS
@pytest.mark.django_db
def test_action_with_a_declared_request_serializer_class() -> None:
    publisher = Publisher.objects.create(name="Old")
    mcp = MCPTestClient()
    mcp.initialize()
    tool = next(t for t in mcp.list_tools() if t["name"] == "declared__rename")
    assert tool["inputSchema"]["required"] == ["id", "name"]
    assert tool["inputSchema"]["properties"]["name"]["maxLength"] == 50
    result = mcp.call_tool("declared__rename", {"id": publisher.pk, "name": "New"})
    assert result["structuredContent"]["name"] == "New"


@PATTERNS
@pytest.mark.django_db
def test_views_with_only_a_serializer_class_attribute() -> None:
    mcp = MCPTestClient()
    mcp.initialize()
    tools = mcp.list_tools()
    assert "name" in _properties(tools, "ping__post")
    assert "name" in _properties(tools, "plain__preview")
    assert {"name", "country"} <= _properties(tools, "plain__create").keys()
    pong = mcp.call_tool("ping__post", {"name": "hi"})
    assert pong["structuredContent"] == {"pong": "hi"}
    mcp.call_tool("plain__create", {"name": "Bee"})
    listed = mcp.call_tool("plain__list", {})["structuredContent"]["results"]
    assert [row["name"] for row in listed] == ["Bee"]


@PATTERNS
@pytest.mark.django_db
@pytest.mark.parametrize("layout", ["flat", "dispatcher"])
def test_a_tool_whose_schema_fails_is_left_out_of_every_listing(layout: str) -> None:
    with override_settings(
        FRISIAN_MCP={"REQUIRE_AUTHENTICATION": False, "TOOL_LAYOUT": layout}
    ):
        mcp = MCPTestClient()
        mcp.initialize()
        names = {t["name"] for t in mcp.list_tools()}
        if layout == "flat":
            assert not {"broken__create", "picky__create"} & names
            assert {"broken__list", "declared__rename", "ping__post"} <= names
        else:
            assert names == {"ping", "testapp"}  # grouped by app
        with pytest.raises(MCPError) as info:
            mcp.call_tool("broken__create", {"name": "x"})
        assert info.value.code == -32602
        assert info.value.data["code"] == "unknown_tool"
        assert "broken__create" not in info.value.data["suggestions"]
        assert mcp.call_tool("ping__post", {"name": "ok"})["structuredContent"]


@PATTERNS
@pytest.mark.django_db
@pytest.mark.parametrize("resource", [None, "broken"])
def test_a_dispatchers_help_never_names_a_left_out_tool(resource: str | None) -> None:
    with override_settings(
        FRISIAN_MCP={"REQUIRE_AUTHENTICATION": False, "TOOL_LAYOUT": "dispatcher"}
    ):
        mcp = MCPTestClient()
        mcp.initialize()
        mcp.list_tools()
        asked = (
            {"help": True} if resource is None else {"resource": resource, "help": True}
        )
        found = mcp.call_tool("testapp", asked)["structuredContent"]["help"]
        actions = found["actions"] if resource else found["resources"]["broken"]
        assert "list" in actions
        assert "create" not in actions
        with pytest.raises(MCPError) as info:
            mcp.call_tool("testapp", {"resource": "broken", "action": "create"})
        assert info.value.data["code"] == "invalid_argument"
        assert info.value.data["field"] == "action"
        testapp = next(t for t in mcp.list_tools() if t["name"] == "testapp")
        broken = testapp["description"].split("broken also ", 1)[1].split(";")[0]
        assert broken == "destroy, retrieve"  # list is common; create is left out


@PATTERNS
@pytest.mark.django_db
def test_a_hidden_tool_whose_schema_fails_is_an_unknown_tool() -> None:
    mcp = MCPTestClient()
    mcp.initialize()
    assert not any(t["name"].startswith("hidden__") for t in mcp.list_tools())
    for name in ("hidden__create", "hidden__list"):
        with pytest.raises(MCPError) as info:
            mcp.call_tool(name, {"name": "x"} if name.endswith("create") else {})
        assert info.value.code == -32602, name
        assert info.value.data["code"] == "unknown_tool"


@PATTERNS
def test_a_failing_schema_is_reported_by_check_and_the_tools_command() -> None:
    messages = [m for m in check_schemas() if m.id == "frisian_mcp.W003"]
    texts = [m.msg for m in messages]
    assert any(
        "BrokenPublishers raised AttributeError" in t
        and "left out: create, partial_update, update" in t
        for t in texts
    ), texts
    # spectacular catches this one itself and prints an error; it is
    # raised again so that the check names it.
    assert any("PickyPublishers raised KeyError" in t for t in texts)
    assert not any("Accept" in t or "Declared" in t or "Plain" in t for t in texts)
    out, err = StringIO(), StringIO()
    call_command("frisian_mcp_tools", stdout=out, stderr=err)
    assert "Left out tests.urls_schema_patterns.BrokenPublishers.create" in (
        err.getvalue()
    )
    assert "declared__rename" in out.getvalue()


@PATTERNS
@pytest.mark.django_db
def test_the_renderer_format_parameter_is_no_filter_or_argument() -> None:
    Publisher.objects.create(name="Ace")
    mcp = MCPTestClient()
    mcp.initialize()
    tools = mcp.list_tools()
    filters = _properties(tools, "formats__list")["filters"]["properties"]
    assert "format" not in filters
    assert "ordering" in filters
    assert "format" not in _properties(tools, "formats__retrieve")
    with pytest.raises(MCPError) as info:
        mcp.call_tool("formats__list", {"filters": {"format": "csv"}})
    assert info.value.code == -32602
    listed = mcp.call_tool("formats__list", {"filters": {"ordering": "name"}})
    assert [row["name"] for row in listed["structuredContent"]["results"]] == ["Ace"]


@PATTERNS
@pytest.mark.django_db
def test_a_query_parameter_the_view_reads_itself_is_declared_per_viewset() -> None:
    for name in ("Ada", "Alan", "Grace"):
        Publisher.objects.create(name=name, country="GB")
    mcp = MCPTestClient()
    mcp.initialize()
    tools = {tool["name"]: tool for tool in mcp.list_tools()}
    listed = tools["starting__list"]["inputSchema"]["properties"]["filters"]
    assert listed["properties"]["starts"] == {"type": "string"}
    assert "starts" in tools["starting__retrieve"]["inputSchema"]["properties"]
    page = mcp.call_tool("starting__list", {"filters": {"starts": "A"}})
    rest = Client().get("/api/starting/", {"starts": "A"}).json()
    rows = rest["results"] if isinstance(rest, dict) else rest
    names = [row["name"] for row in page["structuredContent"]["results"]]
    assert names == [row["name"] for row in rows] == ["Ada", "Alan"]


@pytest.mark.django_db
@override_settings(ROOT_URLCONF="demo_project.urls")
def test_the_hosts_own_schema_view_keeps_its_settings_while_tools_build(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A setting the host leaves at spectacular's default, changed for tool
    # builds: its own /api/schema/ must not see it, not even while another
    # thread builds.
    monkeypatch.setitem(spectacular.BUILD_SETTINGS, "OAS_VERSION", "3.1.0")
    started, release, seen = threading.Event(), threading.Event(), []

    def build() -> None:
        with spectacular.building():
            seen.append(spectacular_settings.OAS_VERSION)
            started.set()
            release.wait(10)

    builder = threading.Thread(target=build)
    builder.start()
    try:
        assert started.wait(10)
        during = Client().get("/api/schema/", {"format": "json"})
    finally:
        release.set()
        builder.join()
    assert seen == ["3.1.0"]
    assert during.status_code == 200
    assert json.loads(during.content)["openapi"] == "3.0.3"
    mcp = MCPTestClient()
    mcp.initialize()
    assert mcp.list_tools()  # every tool schema built in this thread
    after = Client().get("/api/schema/", {"format": "json"})
    assert json.loads(after.content)["openapi"] == "3.0.3"
