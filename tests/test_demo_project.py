"""The demo project: its data, its tool surface (golden file), its flows."""

from __future__ import annotations

import difflib
import json
import os
import re
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.conf import global_settings
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import override_settings

from demo_project.contacts.models import Contact
from demo_project.dcim.models import Device, Site, Tag
from demo_project.management.commands.seed_demo import (
    EMPTY_CONTACT_IDS,
    PASSWORD_HASHES,
)
from frisian_mcp.contrib.testing import MCPTestClient
from tests.live import ROOT

pytestmark = pytest.mark.django_db

GOLDEN = Path(__file__).parent / "golden" / "demo_tools_list.json"
DEMO_URLS = override_settings(ROOT_URLCONF="demo_project.urls")


@pytest.mark.subprocess
def test_the_demo_models_match_their_migrations() -> None:
    """The suite builds its tables from the models (``--no-migrations``), the
    live tests from the migrations: the same schema only while no model
    change lacks its migration."""
    args = [sys.executable, "manage.py", "makemigrations", "--check", "--dry-run"]
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "demo_project.settings"}
    done = subprocess.run(
        args, cwd=ROOT, env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_seed_is_idempotent() -> None:
    call_command("seed_demo", stdout=StringIO())
    counts = (
        Contact.objects.count(),
        Site.objects.count(),
        Device.objects.count(),
        Tag.objects.count(),
    )
    call_command("seed_demo", stdout=StringIO())
    assert (
        Contact.objects.count(),
        Site.objects.count(),
        Device.objects.count(),
        Tag.objects.count(),
    ) == counts
    assert counts[0] >= 24
    assert counts[2] >= 20


def test_seed_gives_the_public_passwords_without_hashing_them_afresh() -> None:
    # Under the demo's hashers (Django's defaults) the stored hashes are set
    # as they are: PBKDF2 took about a second of every demo start.
    with override_settings(PASSWORD_HASHERS=global_settings.PASSWORD_HASHERS):
        call_command("seed_demo", stdout=StringIO())
        for name in ("demo", "staff"):
            user = User.objects.get(username=name)
            assert user.password == PASSWORD_HASHES[name]
            assert user.check_password(name)
    # Another default hasher (the tests' MD5) hashes them afresh.
    call_command("seed_demo", stdout=StringIO())
    for name in ("demo", "staff"):
        user = User.objects.get(username=name)
        assert user.password.startswith("md5$")
        assert user.check_password(name)


def test_seed_leaves_the_three_empty_contacts_of_adr_007(demo_data: None) -> None:
    prefixes = {"6b7e67eb", "c123f361", "b1b58efa"}
    empty = Contact.objects.filter(
        email="", first_name="", last_name="", phone="", notes=""
    )
    assert {str(c.pk)[:8] for c in empty} == prefixes
    assert {str(pk)[:8] for pk in EMPTY_CONTACT_IDS} == prefixes


@DEMO_URLS
def test_demo_contacts_tools_are_exactly_the_six_crud_tools() -> None:
    mcp = MCPTestClient()
    mcp.initialize()
    names = [t["name"] for t in mcp.list_tools()]
    assert [n for n in names if n.startswith("contacts__")] == [
        "contacts__create",
        "contacts__destroy",
        "contacts__list",
        "contacts__partial_update",
        "contacts__retrieve",
        "contacts__update",
    ]


@DEMO_URLS
def test_demo_tools_list_matches_golden_file() -> None:
    mcp = MCPTestClient()
    mcp.initialize()
    actual = (
        json.dumps(mcp.list_tools(), indent=2, sort_keys=True, ensure_ascii=False)
        + "\n"
    )
    out = GOLDEN.with_name(GOLDEN.stem + "_out.json")
    expected = GOLDEN.read_text() if GOLDEN.exists() else ""
    if actual != expected:
        out.write_text(actual)
        diff = "".join(
            difflib.unified_diff(
                expected.splitlines(True),
                actual.splitlines(True),
                str(GOLDEN),
                str(out),
                n=2,
            )
        )
        pytest.fail(
            f"tools/list changed; review {out.name} and copy it over the golden file.\n{diff[:6000]}"
        )
    out.unlink(missing_ok=True)


@DEMO_URLS
def test_demo_device_flow(demo_data: None) -> None:
    mcp = MCPTestClient()
    mcp.initialize()
    site = Site.objects.get(slug="lwr-office")
    created = mcp.call_tool(
        "dcim__devices__create",
        {"name": "lwr-sw-03", "site": site.pk, "status": "planned"},
    )
    assert created["isError"] is False
    device_id = created["structuredContent"]["id"]
    listed = mcp.call_tool(
        "dcim__devices__list", {"filters": {"site": site.pk, "status": "planned"}}
    )
    assert device_id in [row["id"] for row in listed["structuredContent"]["results"]]
    updated = mcp.call_tool(
        "dcim__devices__partial_update", {"id": device_id, "status": "active"}
    )
    assert updated["structuredContent"]["status"] == "active"
    assert (
        mcp.call_tool("dcim__devices__destroy", {"id": device_id})["isError"] is False
    )
    assert not Device.objects.filter(pk=device_id).exists()


def test_the_readme_tool_table_lists_the_demo_tools() -> None:
    # The golden file is the demo's tools/list (test above); the README's
    # table names the same tools, no more, no fewer (issue 26).
    readme = (Path(__file__).parent.parent / "README.md").read_text("utf-8")
    start = readme.index("| tools | what they do |")
    table = readme[start : readme.index("\n\n", start)]
    named = set(re.findall(r"`([a-z_]+__[a-z_]+)`", table))
    listed = {tool["name"] for tool in json.loads(GOLDEN.read_text())}
    assert named == listed
