"""Issue 18 item 8: URLs and mounts.

Absolute URLs in results used the raw ``Host`` header, while REST used the
canonical origin the host's middleware set (``request._current_scheme_host``),
so one record mixed two hosts; the middleware's ``urlconf`` was dropped too.
And a URLconf that ends in a catch-all swallowed an ``/mcp`` mounted after it
while ``manage.py check`` said nothing: W008 now says so.
"""

from __future__ import annotations

import json
from io import StringIO
from typing import Any

import pytest
from django.conf import settings
from django.core import checks
from django.core.management import call_command
from django.test import Client, override_settings

from frisian_mcp.contrib.testing import MCPTestClient
from tests.hosts.canonical.middleware import ORIGIN
from tests.testapp.models import Publisher

INTERNAL = "app.internal:8000"

canonical = override_settings(
    ALLOWED_HOSTS=["app.internal"],
    MIDDLEWARE=[
        *settings.MIDDLEWARE,
        "tests.hosts.canonical.middleware.CanonicalHostMiddleware",
    ],
)


@pytest.mark.django_db
@pytest.mark.urls("tests.hosts.canonical.urls")
@canonical
@pytest.mark.parametrize(
    ("path", "tool", "arguments"),
    [
        ("/api/publishers/{pk}/", "publishers__retrieve", {"id": "{pk}"}),
        ("/api/publishers/", "publishers__list", {}),
    ],
    ids=["retrieve", "list"],
)
def test_absolute_urls_are_rests_byte_for_byte(
    path: str, tool: str, arguments: dict[str, Any]
) -> None:
    pk = Publisher.objects.create(name="Kept", country="NL").pk
    client = Client(HTTP_HOST=INTERNAL)
    rest = client.get(path.format(pk=pk)).json()
    mcp = MCPTestClient(client)
    mcp.initialize()
    args = {k: int(v.format(pk=pk)) for k, v in arguments.items()}
    result = mcp.call_tool(tool, args)["structuredContent"]
    record = result["results"][0] if "results" in result else result
    expected = rest["results"][0] if "results" in rest else rest
    assert json.dumps(record, sort_keys=True) == json.dumps(expected, sort_keys=True)
    assert record["url"] == f"{ORIGIN}/api/publishers/{pk}/"
    assert record["home"] == f"{ORIGIN}/home/"


def _w008() -> list[checks.CheckMessage]:
    return [m for m in checks.run_checks() if m.id == "frisian_mcp.W008"]


@pytest.mark.urls("tests.hosts.mounts.urls_swallowed")
def test_a_catch_all_before_the_mount_is_reported() -> None:
    (warning,) = _w008()
    assert "/mcp" in warning.msg
    assert "tests.hosts.mounts.urls_swallowed.spa" in warning.msg
    assert "before any catch-all" in (warning.hint or "")
    out, err = StringIO(), StringIO()
    call_command("check", stdout=out, stderr=err)
    assert "frisian_mcp.W008" in out.getvalue() + err.getvalue()


@pytest.mark.urls("tests.hosts.mounts.urls_served")
def test_the_mount_before_a_catch_all_is_served_and_not_reported() -> None:
    assert _w008() == []


@pytest.mark.django_db
@pytest.mark.urls("tests.hosts.mounts.urls_served")
def test_the_endpoint_answers_when_mounted_before_a_catch_all() -> None:
    mcp = MCPTestClient()
    assert mcp.initialize()["serverInfo"]["name"]


@pytest.mark.parametrize(
    "urlconf", ["tests.urls", "tests.urls_nested_mcp", "tests.urls_no_mcp"]
)
def test_other_mounts_are_not_reported(urlconf: str) -> None:
    with override_settings(ROOT_URLCONF=urlconf):
        assert _w008() == []
