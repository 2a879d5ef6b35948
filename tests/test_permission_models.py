"""Grants through the host's own permission models reach the next listing.

A host grants rights through models of its own, not only Django's auth
models: django-guardian's object permissions, NetBox's ``ObjectPermission``,
a role or membership model. ``PERMISSION_MODELS`` names them; a save,
delete or many-to-many change of one makes every cached tool list stale
(issue 18 item 14). The guarded host's ``LanguageEditor`` lets maintainers
of any project (a guardian grant) and members of its editors' role write
languages, so those grants show in ``tools/list``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import Group, User
from django.core import checks
from django.db import transaction
from django.db.models.deletion import Collector
from django.db.models.signals import post_delete
from django.test import Client, override_settings
from guardian.shortcuts import assign_perm, remove_perm

from frisian_mcp.contrib.fleet import cache
from frisian_mcp.contrib.testing import MCPTestClient
from tests.hosts.guarded.models import Language, Project, Role
from tests.hosts.guarded.permissions import EDITORS_ROLE

pytestmark = pytest.mark.django_db

GUARDIAN = ["guardian.UserObjectPermission", "guardian.GroupObjectPermission"]
WATCHED = [*GUARDIAN, "guarded.Role"]
FLEET = "frisian_mcp.contrib.fleet.store.FleetStore"
CREATE = "languages__create"
URLS = "tests.hosts.guarded.urls"


def settings_with(models: list[str]) -> override_settings:
    return override_settings(
        ROOT_URLCONF=URLS,
        FRISIAN_MCP={
            "REQUIRE_AUTHENTICATION": False,
            "PERMISSION_MODELS": models,
            "STORE_BACKEND": FLEET,
        },
    )


@pytest.fixture
def alpha() -> Project:
    return Project.objects.create(slug="alpha", name="Alpha")


@pytest.fixture
def user() -> User:
    return User.objects.create_user("maintainer", password="pw")


def lister(user: User) -> Callable[[], set[str]]:
    """The names of the tools listed to ``user``, one listing per call."""
    client = Client()
    client.force_login(user)
    mcp = MCPTestClient(client)
    mcp.initialize()
    return lambda: {tool["name"] for tool in mcp.list_tools()}


@settings_with(WATCHED)
def test_a_guardian_grant_and_its_removal_reach_the_next_listing(
    user: User, alpha: Project
) -> None:
    names = lister(user)
    assert CREATE not in names()
    assign_perm("guarded.change_project", user, alpha)
    assert CREATE in names()
    remove_perm("guarded.change_project", user, alpha)
    assert CREATE not in names()


@settings_with(WATCHED)
def test_a_group_object_permission_reaches_the_next_listing(
    user: User, alpha: Project
) -> None:
    maintainers = Group.objects.create(name="maintainers")
    user.groups.add(maintainers)
    names = lister(user)
    assert CREATE not in names()
    assign_perm("guarded.change_project", maintainers, alpha)
    assert CREATE in names()


@settings_with(WATCHED)
def test_a_role_membership_reaches_the_next_listing_from_either_side(
    user: User,
) -> None:
    editors = Role.objects.create(name=EDITORS_ROLE)
    names = lister(user)
    assert CREATE not in names()
    editors.members.add(user)
    assert CREATE in names()
    user.guarded_roles.remove(editors)
    assert CREATE not in names()


@settings_with([])
def test_without_the_setting_the_cached_listing_stays(
    user: User, alpha: Project
) -> None:
    names = lister(user)
    assert CREATE not in names()
    assign_perm("guarded.change_project", user, alpha)
    assert CREATE not in names()  # until CACHE_TTL_MS, as before
    # The call itself is checked live, so the grant works at once.
    client = Client()
    client.force_login(user)
    mcp = MCPTestClient(client)
    mcp.initialize()
    result = mcp.call_tool(CREATE, {"code": "nl", "name": "Dutch"})
    assert result["structuredContent"]["code"] == "nl"
    assert Language.objects.filter(code="nl").exists()


@settings_with(WATCHED)
def test_a_listing_cached_before_the_commit_is_stale_after_it(
    user: User,
    alpha: Project,
    django_capture_on_commit_callbacks: Any,
) -> None:
    key = "frisian_mcp:visible:test"
    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        assign_perm("guarded.change_project", user, alpha)
        # Another worker, not seeing the uncommitted grant, lists now.
        cache.store(key, frozenset({"old"}), None)
        assert cache.load(key) == frozenset({"old"})
    assert cache.load(key) is None


@settings_with(WATCHED)
def test_models_not_watched_keep_their_fast_deletes() -> None:
    assert post_delete.has_listeners(Role)
    assert not post_delete.has_listeners(Language)
    assert Collector(using="default").can_fast_delete(Language.objects.all())


@pytest.mark.parametrize(
    ("value", "wrong"),
    [
        (["guardian.UserObjectPermision"], "names no installed model"),
        (["nosuchapp.Grant", "guarded.Role"], "names no installed model"),
        ("guardian.UserObjectPermission", "must be a list"),
        ([3], "must be a list"),
    ],
)
def test_a_wrong_permission_models_setting_is_an_error(value: Any, wrong: str) -> None:
    with override_settings(FRISIAN_MCP={"PERMISSION_MODELS": value}):
        found = [m for m in checks.run_checks() if m.id == "frisian_mcp.E007"]
    assert len(found) == 1
    assert wrong in found[0].msg


def test_known_hosts_models_pass_the_check() -> None:
    with override_settings(FRISIAN_MCP={"PERMISSION_MODELS": WATCHED}):
        found = [
            m for m in checks.run_checks() if (m.id or "").startswith("frisian_mcp.")
        ]
    assert found == []


@pytest.mark.subprocess
def test_every_process_listens_once_django_is_set_up() -> None:
    """A task worker or a management command that grants, without serving
    a request first, still marks the fleet's cached listings stale."""
    code = (
        "import django; django.setup(); import sys;"
        "from django.contrib.auth.models import Group;"
        "from django.db.models.signals import post_save;"
        "print(post_save.has_listeners(Group), 'frisian_mcp.registry' in sys.modules)"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "tests.settings"}
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=Path(__file__).parent.parent,
        env=env,
        check=True,
    )
    assert done.stdout.split() == ["True", "False"]
