"""The shared caches: each caller's visible tools and the built schemas.

The listing is advice and may be up to ``CACHE_TTL_MS`` old; every call is
checked in full. Permission changes through Django's auth models make the
cached sets stale at once.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.models import Group, Permission, User
from django.core.cache import caches
from django.test import override_settings
from rest_framework.views import APIView

from demo_project.dcim.models import Site
from demo_project.management.commands.seed_demo import DEMO_TOKEN
from frisian_mcp.contrib.fleet import cache as fleet_cache
from frisian_mcp.contrib.fleet import store as fleet_store
from frisian_mcp.contrib.testing import MCPTestClient, tool_error
from frisian_mcp.registry import ToolRegistry, get_registry, reset_registry
from frisian_mcp.schema import SchemaBuilder

pytestmark = pytest.mark.django_db

FLEET = "frisian_mcp.contrib.fleet.store.FleetStore"
AUTH = {
    "REQUIRE_AUTHENTICATION": True,
    "AUTHENTICATION_CLASSES": ["rest_framework.authentication.TokenAuthentication"],
    "STORE_BACKEND": FLEET,
}
#: The demo's own rule: model permissions decide.
MODEL_PERMISSIONS = {
    **settings.REST_FRAMEWORK,
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.DjangoModelPermissions"],
}
DELETE_SITE = "dcim__sites__destroy"
#: Viewsets carrying the demo's permission policy themselves.
PARITY = "tests.urls_parity"


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """How many inner DRF requests and schema builds happen."""
    counts = {"requests": 0, "builds": 0}
    setup, build = APIView.initialize_request, SchemaBuilder.build

    def initialize_request(self: Any, *args: Any, **kwargs: Any) -> Any:
        counts["requests"] += 1
        return setup(self, *args, **kwargs)

    def counted_build(self: Any, *args: Any, **kwargs: Any) -> Any:
        counts["builds"] += 1
        return build(self, *args, **kwargs)

    monkeypatch.setattr(APIView, "initialize_request", initialize_request)
    monkeypatch.setattr(SchemaBuilder, "build", counted_build)
    return counts


def demo_client() -> MCPTestClient:
    mcp = MCPTestClient(headers={"Authorization": f"Token {DEMO_TOKEN}"})
    mcp.initialize()
    return mcp


def names(mcp: MCPTestClient) -> set[str]:
    return {tool["name"] for tool in mcp.list_tools()}


@override_settings(
    FRISIAN_MCP=AUTH, REST_FRAMEWORK=MODEL_PERMISSIONS, ROOT_URLCONF=PARITY
)
def test_a_second_listing_probes_nothing(
    demo_data: None, counted: dict[str, int]
) -> None:
    mcp = demo_client()
    first = names(mcp)
    probes = counted["requests"]
    assert probes > 1  # the endpoint's own request, and the probes
    assert names(mcp) == first
    assert counted["requests"] == probes
    assert DELETE_SITE not in first


def test_the_fleet_store_without_a_cache_alias_probes_every_listing(
    demo_data: None, counted: dict[str, int]
) -> None:
    """The core keeps answers only without a store (tests/test_rights.py)."""
    with override_settings(
        FRISIAN_MCP={**AUTH, "CACHE": None}, REST_FRAMEWORK=MODEL_PERMISSIONS
    ):
        mcp = demo_client()
        names(mcp)
        probes = counted["requests"]
        names(mcp)
        assert counted["requests"] - probes > 1


@override_settings(
    FRISIAN_MCP=AUTH, REST_FRAMEWORK=MODEL_PERMISSIONS, ROOT_URLCONF=PARITY
)
def test_a_granted_permission_shows_in_the_next_listing(demo_data: None) -> None:
    mcp = demo_client()
    assert DELETE_SITE not in names(mcp)
    demo = User.objects.get(username="demo")
    demo.user_permissions.add(
        Permission.objects.get(codename="delete_site", content_type__app_label="dcim")
    )
    assert DELETE_SITE in names(mcp)


@override_settings(
    FRISIAN_MCP=AUTH, REST_FRAMEWORK=MODEL_PERMISSIONS, ROOT_URLCONF=PARITY
)
def test_a_stale_listing_never_lets_a_call_through(demo_data: None) -> None:
    demo = User.objects.get(username="demo")
    demo.user_permissions.add(
        Permission.objects.get(codename="delete_site", content_type__app_label="dcim")
    )
    mcp = demo_client()
    assert DELETE_SITE in names(mcp)
    # Revoked behind the signals' back: the cached listing is now stale.
    User.user_permissions.through.objects.filter(
        user=demo, permission__codename="delete_site"
    ).delete()
    assert DELETE_SITE in names(mcp)
    site = Site.objects.first()
    assert site is not None
    # Still listed, so it answers as its view does (issue 18 item 9).
    result = mcp.call_tool(DELETE_SITE, {"id": site.pk})
    assert result["isError"]
    assert tool_error(result)["code"] == "permission_denied"
    assert Site.objects.filter(pk=site.pk).exists()


@override_settings(
    FRISIAN_MCP=AUTH, REST_FRAMEWORK=MODEL_PERMISSIONS, ROOT_URLCONF=PARITY
)
def test_two_callers_never_share_a_listing(demo_data: None) -> None:
    from demo_project.management.commands.seed_demo import STAFF_TOKEN

    demo = names(demo_client())
    staff_mcp = MCPTestClient(headers={"Authorization": f"Token {STAFF_TOKEN}"})
    staff_mcp.initialize()
    assert DELETE_SITE in names(staff_mcp)
    assert DELETE_SITE not in demo
    assert DELETE_SITE not in names(demo_client())


def _grant_through_a_permission() -> None:
    permission = Permission.objects.get(
        codename="delete_site", content_type__app_label="dcim"
    )
    permission.name = "Can delete a site"  # saved: the generation moves
    permission.save()
    User.objects.get(username="demo").user_permissions.add(permission)


def _grant_through_a_group() -> None:
    group = Group.objects.create(name="site admins")
    group.permissions.add(
        Permission.objects.get(codename="delete_site", content_type__app_label="dcim")
    )
    User.objects.get(username="demo").groups.add(group)


def _grant_through_the_user() -> None:
    demo = User.objects.get(username="demo")
    demo.is_superuser = True
    demo.save()


@override_settings(
    FRISIAN_MCP=AUTH, REST_FRAMEWORK=MODEL_PERMISSIONS, ROOT_URLCONF=PARITY
)
@pytest.mark.parametrize(
    "grant",
    [_grant_through_a_permission, _grant_through_a_group, _grant_through_the_user],
)
def test_schemas_outlive_a_permission_change(
    grant: Any, demo_data: None, counted: dict[str, int], builds: list[str]
) -> None:
    """Issue 25 item 10: only the caller's tool set follows the generation."""
    before = names(demo_client())
    assert DELETE_SITE not in before
    registry = get_registry()
    for tool in registry:  # the hidden tools' schemas too
        tool.schema  # noqa: B018
    registry.share_schemas()
    assert len(builds) == len(registry)
    built, requests = len(builds), counted["requests"]
    grant()
    reset_registry()  # a fresh worker sharing the cache
    after = names(demo_client())
    assert len(builds) == built  # every schema read from the store
    assert counted["requests"] > requests + 1  # the caller's set probed again
    assert after == before | {DELETE_SITE}


SHARED = {"REQUIRE_AUTHENTICATION": False, "STORE_BACKEND": FLEET}


@override_settings(FRISIAN_MCP=SHARED)
def test_a_new_worker_takes_the_built_schemas(counted: dict[str, int]) -> None:
    mcp = MCPTestClient()
    mcp.initialize()
    listed = mcp.list_tools()
    assert counted["builds"] == len(listed)
    reset_registry()  # as a freshly started worker sharing the cache
    again = MCPTestClient()
    again.initialize()
    assert again.list_tools() == listed
    assert counted["builds"] == len(listed)


@override_settings(FRISIAN_MCP=SHARED)
def test_a_changed_setting_builds_again(counted: dict[str, int]) -> None:
    mcp = MCPTestClient()
    mcp.initialize()
    built = len(mcp.list_tools())
    with override_settings(FRISIAN_MCP={**SHARED, "PAGE_SIZE": 20}):
        mcp.list_tools()
    assert counted["builds"] == 2 * built


@override_settings(FRISIAN_MCP=SHARED)
def test_a_new_workers_first_call_adopts_the_fleets_schema(
    builds: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 29: a call that comes before the worker's warm-up listed."""
    mcp = MCPTestClient()
    mcp.initialize()
    built = len(mcp.list_tools())
    assert len(builds) == built
    reset_registry()  # a fresh worker, its first request a tools/call
    again = MCPTestClient()
    again.initialize()
    result = again.call_tool("contacts__list", {})
    assert not result["isError"]
    assert len(builds) == built  # adopted from the store, not built
    # Adopted once: the next calls of a built tool never ask the store.
    reads: list[object] = []

    def call(operation: object, default: object) -> object:
        reads.append(operation)
        return default

    monkeypatch.setattr(fleet_cache, "call", call)
    assert not again.call_tool("contacts__list", {})["isError"]
    assert reads == []


@override_settings(FRISIAN_MCP=SHARED)
def test_a_schema_a_call_built_is_kept_for_the_fleet(builds: list[str]) -> None:
    mcp = MCPTestClient()
    mcp.initialize()
    assert not mcp.call_tool("contacts__list", {})["isError"]
    assert builds == ["/api/contacts/"]
    reset_registry()
    again = MCPTestClient()
    again.initialize()
    assert not again.call_tool("contacts__list", {})["isError"]
    assert builds == ["/api/contacts/"]


@override_settings(FRISIAN_MCP=SHARED)
def test_a_worker_that_found_the_store_empty_never_shrinks_it(
    builds: list[str],
) -> None:
    """Two workers start on an empty store; the one that stores last adds."""
    early = ToolRegistry.from_settings()
    early.share_schemas()  # found nothing
    full = ToolRegistry.from_settings()
    for tool in full:
        tool.schema  # noqa: B018
    full.share_schemas()
    assert len(builds) == len(full)
    early_tool = next(iter(early))
    early_tool.schema  # noqa: B018 - one more build, then stored
    early.share_schemas()
    late = ToolRegistry.from_settings()
    late.share_schemas()
    assert all(tool.built for tool in late)
    assert len(builds) == len(full) + 1


@override_settings(FRISIAN_MCP=SHARED)
def test_entries_a_worker_cannot_adopt_never_hide_its_new_schemas(
    builds: list[str],
) -> None:
    """A variant of a class that does not import here counts for nothing."""
    first = ToolRegistry.from_settings()
    tools = list(first)
    for tool in tools[:3]:
        tool.schema  # noqa: B018
    first.share_schemas()
    key = f"frisian_mcp:schemas:{first.store.fingerprint}"  # type: ignore[union-attr]
    schemas, problems = fleet_cache.load(key, rights=False)
    schemas[(tools[0].name, "elsewhere.Serializer", "0" * 32)] = None
    assert fleet_cache.store(key, (schemas, problems), None, rights=False)
    second = ToolRegistry.from_settings()
    second.share_schemas()  # adopts 3, not the stranger
    second.get(tools[3].name).schema  # type: ignore[union-attr]  # noqa: B018
    second.share_schemas()
    assert len(builds) == 4
    third = ToolRegistry.from_settings()
    third.share_schemas()
    assert [t.built for t in third][:4] == [True] * 4


@override_settings(FRISIAN_MCP=SHARED)
def test_a_worker_stores_its_schemas_again_once_the_cache_lost_them(
    builds: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 29: a cache restarted empty is filled again by the running
    workers after an outage they saw, or a check period later."""
    monkeypatch.setattr(fleet_cache, "health", fleet_cache.Health())
    monkeypatch.setattr(fleet_store, "RECHECK", 1e9)  # one long period
    listings = 0

    def next_worker_lists() -> None:
        nonlocal listings
        reset_registry()
        mcp = MCPTestClient()
        mcp.initialize()
        assert len(mcp.list_tools()) == listed
        listings += 1

    mcp = MCPTestClient()
    mcp.initialize()
    listed = len(mcp.list_tools())
    assert len(builds) == listed
    caches["default"].clear()  # restarted empty, unseen
    mcp.list_tools()  # in the same period the worker does not check
    next_worker_lists()
    assert len(builds) == 2 * listed  # so the next worker built them all
    caches["default"].clear()
    fleet_cache._failed(ConnectionError())  # this time the worker saw it
    fleet_cache.health.retry_at = 0.0  # and the cache answers again
    MCPTestClient().list_tools()
    next_worker_lists()
    assert len(builds) == 2 * listed  # stored again, and adopted
    caches["default"].clear()
    monkeypatch.setattr(fleet_store, "RECHECK", 1e-9)  # a period later
    MCPTestClient().list_tools()
    next_worker_lists()
    assert len(builds) == 2 * listed
    assert listings == 3


def _redis_up() -> bool:
    try:
        socket.create_connection(("127.0.0.1", 6379), timeout=0.5).close()
    except OSError:
        return False
    return True


REDIS = {
    "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
    "shared": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": "redis://127.0.0.1:6379/15",
        "KEY_PREFIX": "frisian-mcp-tests",
    },
}


@pytest.fixture
def redis() -> Iterator[None]:
    if not _redis_up():
        if os.environ.get("FRISIAN_MCP_REQUIRE_REDIS"):
            pytest.fail("Redis is not running on 127.0.0.1:6379")
        pytest.skip("Redis is not running on 127.0.0.1:6379")
    with override_settings(
        CACHES=REDIS,
        FRISIAN_MCP={**AUTH, "CACHE": "shared"},
        REST_FRAMEWORK=MODEL_PERMISSIONS,
        ROOT_URLCONF=PARITY,
    ):
        caches["shared"].clear()
        yield
        caches["shared"].clear()


def test_workers_share_listings_and_schemas_through_redis(
    redis: None, demo_data: None, counted: dict[str, int]
) -> None:
    first = names(demo_client())
    builds, requests = counted["builds"], counted["requests"]
    reset_registry()  # another worker on the same Redis
    assert names(demo_client()) == first
    assert counted["builds"] == builds
    assert counted["requests"] == requests  # no probe: the set came from Redis


def test_workers_store_their_schemas_again_after_redis_lost_them(
    redis: None, demo_data: None, builds: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 29: Redis restarted empty (here: flushed) mid-run."""
    monkeypatch.setattr(fleet_store, "RECHECK", 1e-9)  # every listing checks
    first = names(demo_client())
    built = len(builds)
    caches["shared"].clear()
    assert names(demo_client()) == first  # the running worker stores again
    reset_registry()  # a new worker on the same Redis
    assert names(demo_client()) == first
    assert len(builds) == built
