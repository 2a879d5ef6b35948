"""Without a store, each caller's permission answers are kept in the process.

A warm ``tools/list`` probes no permission class again (issue 25 item 8),
and a grant or revocation through the models that grant rights reaches the
next listing: the core's receivers move the process's generation. Calls are
checked in full whatever a listing kept (ADR 0032).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any, cast

import pytest
from django.conf import settings
from django.contrib.auth.models import Group, Permission, User
from django.db import transaction
from django.test import override_settings
from guardian.shortcuts import assign_perm, remove_perm
from rest_framework.authentication import TokenAuthentication

from demo_project.dcim.models import Site
from demo_project.management.commands.seed_demo import DEMO_TOKEN, STAFF_TOKEN
from frisian_mcp import rights
from frisian_mcp.contrib.testing import MCPTestClient, tool_error
from frisian_mcp.invocation import Probe
from tests.hosts.guarded.models import Project

pytestmark = pytest.mark.django_db

CORE = {
    "REQUIRE_AUTHENTICATION": True,
    "AUTHENTICATION_CLASSES": ["rest_framework.authentication.TokenAuthentication"],
    "STORE_BACKEND": None,  # the fleet extra is installed: opt out
}
MODEL_PERMISSIONS = {
    **settings.REST_FRAMEWORK,
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.DjangoModelPermissions"],
}
DELETE_SITE = "dcim__sites__destroy"
core = override_settings(
    FRISIAN_MCP=CORE, REST_FRAMEWORK=MODEL_PERMISSIONS, ROOT_URLCONF="tests.urls_parity"
)


@pytest.fixture
def probes(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The endpoints whose permission classes a listing asks from now on."""
    asked: list[str] = []
    check = Probe._check

    def counted(self: Probe, endpoint: Any) -> bool:
        asked.append(endpoint.path)
        return check(self, endpoint)

    monkeypatch.setattr(Probe, "_check", counted)
    return asked


def lister(token: str = DEMO_TOKEN) -> Callable[[], set[str]]:
    """The names listed to the token's user, one listing per call."""
    mcp = MCPTestClient(headers={"Authorization": f"Token {token}"})
    mcp.initialize()
    return lambda: {tool["name"] for tool in mcp.list_tools()}


def _delete_site() -> Permission:
    return Permission.objects.get(
        codename="delete_site", content_type__app_label="dcim"
    )


@core
def test_a_warm_listing_probes_nothing(demo_data: None, probes: list[str]) -> None:
    names = lister()
    first = names()
    asked = len(probes)
    assert asked > 1
    assert DELETE_SITE not in first
    assert names() == first
    assert len(probes) == asked


@core
def test_a_grant_and_its_revocation_reach_the_next_listing(demo_data: None) -> None:
    names = lister()
    assert DELETE_SITE not in names()
    demo = User.objects.get(username="demo")
    demo.user_permissions.add(_delete_site())
    assert DELETE_SITE in names()
    demo.user_permissions.remove(_delete_site())
    assert DELETE_SITE not in names()


@core
def test_a_group_grant_reaches_the_next_listing(demo_data: None) -> None:
    names = lister()
    assert DELETE_SITE not in names()
    group = Group.objects.create(name="site admins")
    User.objects.get(username="demo").groups.add(group)
    assert DELETE_SITE not in names()
    group.permissions.add(_delete_site())
    assert DELETE_SITE in names()


@core
def test_a_login_keeps_the_answers(demo_data: None, probes: list[str]) -> None:
    names = lister()
    names()
    asked = len(probes)
    demo = User.objects.get(username="demo")
    demo.save(update_fields=["last_login"])  # what Django's login saves
    names()
    assert len(probes) == asked


@core
def test_two_callers_never_share_answers(demo_data: None) -> None:
    demo, staff = lister(DEMO_TOKEN), lister(STAFF_TOKEN)
    assert DELETE_SITE not in demo()
    assert DELETE_SITE in staff()
    assert DELETE_SITE not in demo()


@core
def test_a_kept_listing_never_lets_a_call_through(demo_data: None) -> None:
    demo = User.objects.get(username="demo")
    demo.user_permissions.add(_delete_site())
    names = lister()
    assert DELETE_SITE in names()
    # Revoked behind the signals' back: the kept answers are now stale.
    User.user_permissions.through.objects.filter(
        user=demo, permission__codename="delete_site"
    ).delete()
    assert DELETE_SITE in names()
    site = Site.objects.first()
    assert site is not None
    mcp = MCPTestClient(headers={"Authorization": f"Token {DEMO_TOKEN}"})
    mcp.initialize()
    result = mcp.call_tool(DELETE_SITE, {"id": site.pk})
    assert tool_error(result)["code"] == "permission_denied"
    assert Site.objects.filter(pk=site.pk).exists()


@core
def test_answers_expire_after_cache_ttl_ms(
    demo_data: None, probes: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    names = lister()
    names()
    asked = len(probes)
    later = time.monotonic() + 61  # CACHE_TTL_MS: 60 s
    monkeypatch.setattr(time, "monotonic", lambda: later)
    names()
    assert len(probes) == 2 * asked


def test_no_answers_are_kept_with_a_ttl_of_zero(
    demo_data: None, probes: list[str]
) -> None:
    with override_settings(
        FRISIAN_MCP={**CORE, "CACHE_TTL_MS": 0},
        REST_FRAMEWORK=MODEL_PERMISSIONS,
        ROOT_URLCONF="tests.urls_parity",
    ):
        names = lister()
        names()
        asked = len(probes)
        names()
    assert len(probes) == 2 * asked


@core
def test_the_callers_kept_are_bounded(
    demo_data: None, probes: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(rights, "CALLERS_KEPT", 1)
    demo, staff = lister(DEMO_TOKEN), lister(STAFF_TOKEN)
    demo()
    asked = len(probes)
    staff()  # the demo user's answers go
    between = len(probes)
    demo()
    assert len(probes) - between == asked


@core
def test_a_listing_made_before_the_commit_is_stale_after_it(
    demo_data: None, probes: list[str], django_capture_on_commit_callbacks: Any
) -> None:
    names = lister()
    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        User.objects.get(username="demo").user_permissions.add(_delete_site())
        # Another thread, not seeing the uncommitted grant, lists now.
        names()
        asked = len(probes)
    assert DELETE_SITE in names()
    assert len(probes) > asked  # the answers kept before the commit went


GUARDED = {"REQUIRE_AUTHENTICATION": False, "STORE_BACKEND": None}


@override_settings(
    ROOT_URLCONF="tests.hosts.guarded.urls",
    FRISIAN_MCP={**GUARDED, "PERMISSION_MODELS": ["guardian.UserObjectPermission"]},
)
def test_a_permission_model_grant_reaches_the_next_listing() -> None:
    from django.test import Client

    user = User.objects.create_user("maintainer", password="pw")
    alpha = Project.objects.create(slug="alpha", name="Alpha")
    client = Client()
    client.force_login(user)
    mcp = MCPTestClient(client)
    mcp.initialize()

    def names() -> set[str]:
        return {tool["name"] for tool in mcp.list_tools()}

    assert "languages__create" not in names()
    assign_perm("guarded.change_project", user, alpha)
    assert "languages__create" in names()
    remove_perm("guarded.change_project", user, alpha)
    assert "languages__create" not in names()


def test_a_callers_identity_keeps_no_credential() -> None:
    # DRF's Token has the token itself as its primary key: the kept answers
    # and the fleet store's keys hold a digest of it, never the token.
    secret = "demo-token-0000000000000000000000000000"
    caller = SimpleNamespace(
        caller="7", authenticator=TokenAuthentication(), auth=SimpleNamespace(pk=secret)
    )
    kept = rights.identity(cast(Any, caller))
    assert secret not in kept
    assert kept == rights.identity(cast(Any, caller))
    other = SimpleNamespace(**{**vars(caller), "auth": SimpleNamespace(pk="x")})
    assert rights.identity(cast(Any, other)) != kept
