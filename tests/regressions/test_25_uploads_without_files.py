"""Issue 25 item 13: without the files extra, no upload tool is a dead end.

A file field cannot travel in a JSON body, so without the files extra it is
no argument. A document archive's upload actions were listed all the same,
and every call was refused for the file it could not send, with advice to
the operator about ``VIEWSET_OPTIONS``. Now a tool whose body requires a
file is not listed (nor callable) without a call hook that carries files,
as a form-only view's is not; and a file field sent where it is optional
is refused with an error that names the files extra.

The file-moving host runs with the extra absent: not installed, and no
``FileHook`` in ``CALL_HOOKS``. ``DEBUG = False``.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.core.files.base import ContentFile
from django.test import Client, override_settings

from frisian_mcp.contrib.testing import MCPError, MCPTestClient
from tests.hosts.files.models import Paper

pytestmark = pytest.mark.django_db

FILES = "frisian_mcp.contrib.files"


@pytest.fixture
def mcp(tmp_path: Path) -> Iterator[MCPTestClient]:
    apps = [app for app in settings.INSTALLED_APPS if app != FILES]
    with override_settings(
        INSTALLED_APPS=apps,
        ROOT_URLCONF="tests.hosts.files.urls",
        MEDIA_ROOT=str(tmp_path),
        DEBUG=False,
        FRISIAN_MCP={"REQUIRE_AUTHENTICATION": False, "TOOL_LAYOUT": "flat"},
    ):
        client = MCPTestClient()
        client.initialize()
        yield client


@pytest.fixture
def stored() -> Paper:
    row = Paper(title="Minutes")
    row.attachment.save("minutes.txt", ContentFile(b"first"), save=True)
    return row


def tools(mcp: MCPTestClient) -> dict[str, dict[str, Any]]:
    return {tool["name"]: tool for tool in mcp.list_tools()}


def test_a_tool_whose_body_requires_a_file_is_not_listed(mcp: MCPTestClient) -> None:
    listed = tools(mcp)
    # The document's file is required on create and on a full update, and
    # the upload view parses multipart only.
    assert not {"papers__create", "papers__update", "uploads__create"} & set(listed)
    properties = listed["papers__partial_update"]["inputSchema"]["properties"]
    assert "title" in properties
    assert "attachment" not in properties
    assert "papers__retrieve" in listed
    with pytest.raises(MCPError) as info:
        mcp.call_tool("papers__create", {"title": "Agenda"})
    assert info.value.data["code"] == "unknown_tool"
    assert not Paper.objects.exists()
    # REST's JSON create is refused for the same reason: no file in JSON.
    response = Client().post(
        "/api/papers/", {"title": "Agenda"}, content_type="application/json"
    )
    assert response.status_code == 400
    assert "attachment" in json.loads(response.content)
    assert not Paper.objects.exists()


def test_a_file_field_sent_without_the_extra_names_it(
    mcp: MCPTestClient, stored: Paper
) -> None:
    upload = base64.b64encode(b"second").decode()
    with pytest.raises(MCPError) as info:
        mcp.call_tool("papers__partial_update", {"id": stored.pk, "attachment": upload})
    error = info.value
    assert error.code == -32602
    assert error.data["code"] == "invalid_argument"
    assert [f["field"] for f in error.data["fields"]] == ["attachment"]
    assert "files extra" in error.message
    assert "VIEWSET_OPTIONS" not in json.dumps(error.data)
    stored.refresh_from_db()
    assert stored.attachment.read() == b"first"
    # REST refuses the same JSON body: it carries no file.
    response = Client().patch(
        f"/api/papers/{stored.pk}/",
        {"attachment": upload},
        content_type="application/json",
    )
    assert response.status_code == 400


def test_an_optional_file_sent_without_the_extra_names_it(mcp: MCPTestClient) -> None:
    arguments = {"title": "Brief", "appendix": base64.b64encode(b"annex").decode()}
    with pytest.raises(MCPError) as info:
        mcp.call_tool("briefs__create", arguments)
    error = info.value
    assert error.data["code"] == "unknown_argument"
    assert "appendix: file fields" in error.message
    assert "files extra" in error.message
    assert not Paper.objects.exists()
    # Without the file, the brief is created as over REST.
    result = mcp.call_tool("briefs__create", {"title": "Brief"})
    assert result["structuredContent"]["appendix"] is None
    over_rest = Client().post(
        "/api/briefs/", {"title": "Brief"}, content_type="application/json"
    )
    assert json.loads(over_rest.content)["appendix"] is None
    assert Paper.objects.count() == 2


def test_the_other_fields_update_as_over_rest(
    mcp: MCPTestClient, stored: Paper
) -> None:
    result = mcp.call_tool("papers__partial_update", {"id": stored.pk, "title": "A"})
    over_rest = Client().patch(
        f"/api/papers/{stored.pk}/", {"title": "A"}, content_type="application/json"
    )
    assert over_rest.status_code == 200
    assert result["structuredContent"] == json.loads(over_rest.content)
    stored.refresh_from_db()
    assert (stored.title, stored.attachment.read()) == ("A", b"first")
