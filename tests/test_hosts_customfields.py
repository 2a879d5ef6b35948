"""A field that reads more JSON types than its schema says (issue 25 item 7).

The custom-field host (``tests.hosts.customfields``) takes a custom field's
value as a boolean, an integer, a string or a list of strings, while its
OpenAPI says "a string": a field declared ``@extend_schema_field(STR)``, and
a writable method field whose ``get_value`` returns ``str`` (described by
DRF's own ``Field.get_value`` docstring). Every JSON type reaches the host's
field, which decides, with REST's status and stored row, top level and
nested in a document; no DRF docstring is shown.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from django.test import override_settings

from frisian_mcp.contrib.testing import MCPTestClient
from tests.hosts.customfields.models import CustomField, CustomFieldInstance, Document
from tests.side_by_side import same

pytestmark = pytest.mark.django_db

TABLES = [Document, CustomFieldInstance]
ROUTES = ["values", "method-values"]
#: A sentence of DRF's ``Field.get_value`` docstring.
DRF_DOCSTRING = "Given the *incoming* primitive data"

#: (data type of the custom field, value sent, REST's verdict)
VALUES = [
    ("string", "rack 4", "ok"),
    ("boolean", True, "ok"),
    ("integer", 42, "ok"),
    ("multiselect", ["a", "b"], "ok"),
    ("string", None, "ok"),
    ("string", {"a": 1}, "invalid"),
    ("string", 1.5, "invalid"),
    ("multiselect", [1, 2], "invalid"),
    ("string", True, "invalid"),
    ("integer", "42", "invalid"),
]


@pytest.fixture(autouse=True)
def _urls() -> Iterator[None]:
    with override_settings(
        ROOT_URLCONF="tests.hosts.customfields.urls",
        FRISIAN_MCP={"REQUIRE_AUTHENTICATION": False, "TOOL_LAYOUT": "flat"},
    ):
        yield


@pytest.fixture
def fields() -> dict[str, CustomField]:
    return {
        kind: CustomField.objects.create(name=kind, data_type=kind)
        for kind in CustomField.DataType.values
    }


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize(("kind", "value", "verdict"), VALUES)
def test_each_json_type_reaches_the_field_as_over_rest(
    mcp: MCPTestClient,
    fields: dict[str, CustomField],
    route: str,
    kind: str,
    value: Any,
    verdict: str,
) -> None:
    document = Document.objects.create(title="Invoice")
    arguments = {"document": document.pk, "field": fields[kind].pk, "value": value}
    rest, over = same(mcp, f"POST /api/{route}/", f"{route}__create", arguments, TABLES)
    assert rest.verdict == verdict, rest
    if verdict == "invalid":
        assert over.body["code"] == "validation_failed", over.body
        assert over.body["fields"][0]["field"] == "value"


@pytest.mark.parametrize(("kind", "value", "verdict"), VALUES)
def test_each_json_type_reaches_the_field_nested_in_a_document(
    mcp: MCPTestClient,
    fields: dict[str, CustomField],
    kind: str,
    value: Any,
    verdict: str,
) -> None:
    arguments = {
        "title": "Invoice",
        "custom_fields": [{"field": fields[kind].pk, "value": value}],
    }
    rest, _ = same(mcp, "POST /api/documents/", "documents__create", arguments, TABLES)
    assert rest.verdict == verdict, rest


def test_a_document_retrieved_goes_back_to_update(
    mcp: MCPTestClient, fields: dict[str, CustomField]
) -> None:
    """The values' read-only ids come back too, as REST takes them."""
    document = Document.objects.create(title="Invoice")
    CustomFieldInstance.objects.create(
        document=document, field=fields["boolean"], value_bool=True
    )
    record = mcp.call_tool("documents__retrieve", {"id": document.pk})
    sent = {**record["structuredContent"], "title": "Paid invoice"}
    assert set(sent["custom_fields"][0]) == {"id", "field", "value"}
    rest, _ = same(
        mcp,
        f"PUT /api/documents/{document.pk}/",
        "documents__update",
        sent,
        [Document],
        body=sent,
    )
    assert rest.verdict == "ok", rest
    stored = CustomFieldInstance.objects.get()
    assert (stored.field, stored.value) == (fields["boolean"], True)


def test_a_typo_in_a_nested_value_is_still_refused(
    mcp: MCPTestClient, fields: dict[str, CustomField]
) -> None:
    arguments = {
        "title": "Invoice",
        "custom_fields": [{"field": fields["string"].pk, "valeu": "x"}],
    }
    over = same(mcp, "POST /api/documents/", "documents__create", arguments, [Document])
    assert over[0].verdict == over[1].verdict == "invalid"
    assert over[1].body["code"] == "invalid_argument", over[1].body
    assert "valeu" in json.dumps(over[1].body["fields"])


@pytest.mark.parametrize("route", ROUTES)
def test_the_listing_says_the_schema_is_the_hosts_and_shows_no_drf_docstring(
    mcp: MCPTestClient, route: str
) -> None:
    tools = {tool["name"]: tool for tool in mcp.list_tools()}
    value = tools[f"{route}__create"]["inputSchema"]["properties"]["value"]
    assert {"type": ["string", "null"]} in value["anyOf"]
    assert value["description"].startswith("The host's schema says a string;")
    help_text = json.dumps(mcp.call_tool(f"{route}__create", {"help": True}))
    for text in (json.dumps(tools), help_text):
        assert DRF_DOCSTRING not in text
