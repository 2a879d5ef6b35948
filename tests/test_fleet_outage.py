"""A shared-cache outage degrades the fleet store; it never spreads (issue 22 item 6).

The ``CACHE`` alias points at a Redis that is down (a closed port) or that
accepts connections and never answers (a socket in this file that listens
and reads nothing). Listing and calling go on from each process's own work
with one warning, the host's own writes never fail, and an invalidation
missed during the outage is paid before a cached listing is trusted again.
"""

from __future__ import annotations

import logging
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.models import Permission, User
from django.core.management import call_command
from django.test import Client, override_settings

from demo_project.contacts.models import Contact
from demo_project.management.commands.seed_demo import DEMO_TOKEN
from frisian_mcp.contrib.fleet import cache
from frisian_mcp.contrib.testing import MCPTestClient

pytestmark = pytest.mark.django_db

FLEET = "frisian_mcp.contrib.fleet.store.FleetStore"
DELETE_SITE = "dcim__sites__destroy"
SHARED = {
    "REQUIRE_AUTHENTICATION": True,
    "AUTHENTICATION_CLASSES": ["rest_framework.authentication.TokenAuthentication"],
    "STORE_BACKEND": FLEET,
    "CACHE": "shared",
}
MODEL_PERMISSIONS = {
    **settings.REST_FRAMEWORK,
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.DjangoModelPermissions"],
}
LOCAL = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
#: The shared cache while it is up: a cache of its own, kept across overrides.
UP = {
    **LOCAL,
    "shared": {
        "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
        "LOCATION": "frisian-fleet-outage",
    },
}


def fleet(caches: dict[str, Any], **options: Any) -> override_settings:
    """The demo's permission policy, token auth and the fleet store on ``caches``."""
    return override_settings(
        CACHES=caches,
        FRISIAN_MCP={**SHARED, **options},
        REST_FRAMEWORK=MODEL_PERMISSIONS,
        ROOT_URLCONF="tests.urls_parity",
    )


def redis_at(port: int) -> dict[str, Any]:
    """CACHES whose ``shared`` alias is a Redis on ``port``, no timeouts set."""
    location = f"redis://127.0.0.1:{port}/0"
    redis = {"BACKEND": "django.core.cache.backends.redis.RedisCache"}
    return {**LOCAL, "shared": {**redis, "LOCATION": location}}


@pytest.fixture
def closed_port() -> int:
    """A port nothing listens on: Redis stopped."""
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port: int = probe.getsockname()[1]
    probe.close()
    return port


class SilentServer:
    """Accepts connections on ``port``, counts them, never answers."""

    def __init__(self) -> None:
        self.socket = socket.socket()
        self.socket.bind(("127.0.0.1", 0))
        self.socket.listen(64)
        self.port: int = self.socket.getsockname()[1]
        self.accepted: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                self.accepted.append(self.socket.accept()[0])
            except OSError:  # closed
                return

    def close(self) -> None:
        self.socket.close()
        for connection in self.accepted:
            connection.close()


@pytest.fixture
def silent() -> Iterator[SilentServer]:
    """A Redis that accepts connections and never answers."""
    server = SilentServer()
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def silent_port(silent: SilentServer) -> int:
    return silent.port


@pytest.fixture
def warnings(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    """What frisian_mcp warns of; :func:`outage_warnings` reads it."""
    caplog.set_level(logging.WARNING, logger="frisian_mcp")
    return caplog


def outage_warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    found = (r.getMessage() for r in caplog.get_records("call"))
    return [message for message in found if "shared cache" in message]


def demo_client(token: str = DEMO_TOKEN) -> MCPTestClient:
    mcp = MCPTestClient(Client(), headers={"Authorization": f"Token {token}"})
    mcp.initialize()
    return mcp


def names(mcp: MCPTestClient) -> set[str]:
    return {tool["name"] for tool in mcp.list_tools()}


def host_writes() -> None:
    """What a host does while the cache is down: its seed command, a new
    user saved, Django's login (which saves ``last_login``)."""
    call_command("seed_demo", stdout=_Null())
    User.objects.create_user("outage", password="pw")
    assert Client().login(username="outage", password="pw")
    demo = User.objects.get(username="demo")
    demo.user_permissions.remove(
        Permission.objects.get(codename="add_tag", content_type__app_label="dcim")
    )


def local_listing() -> set[str]:
    """What the demo user is listed with no store at all."""
    with fleet(LOCAL, STORE_BACKEND=None):
        return names(demo_client())


@pytest.mark.parametrize("where", ["closed_port", "silent_port"])
def test_listing_calling_and_the_hosts_writes_go_on_with_one_warning(
    where: str,
    request: pytest.FixtureRequest,
    warnings: pytest.LogCaptureFixture,
    django_capture_on_commit_callbacks: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Once down, the cache is left alone: here for the whole test.
    monkeypatch.setattr(cache, "RETRY_AFTER", 600.0)
    port = request.getfixturevalue(where)
    started = time.monotonic()
    with fleet(redis_at(port)):
        with django_capture_on_commit_callbacks(execute=True) as committed:
            host_writes()
        assert committed  # the second invalidation, after the commit
        mcp = demo_client()
        listed = names(mcp)
        created = mcp.call_tool("contacts__create", {"email": "down@example.com"})
        assert names(mcp) == listed
    elapsed = time.monotonic() - started
    assert created["isError"] is False
    assert Contact.objects.filter(email="down@example.com").exists()
    assert User.objects.filter(username="outage").exists()
    assert DELETE_SITE not in listed
    assert "dcim__tags__create" not in listed  # the revoke, probed locally
    assert listed == local_listing()
    outage = outage_warnings(warnings)
    assert len(outage) == 1
    assert "unreachable" in outage[0]
    assert elapsed < 60  # nothing hangs
    if where == "silent_port":  # one request waited; none tried after it
        assert len(request.getfixturevalue("silent").accepted) == 1


def test_a_silent_cache_is_given_up_on_within_its_timeout(
    silent: SilentServer,
) -> None:
    with fleet(redis_at(silent.port)):
        cache.load("warm")  # the client library's import, and a failure
        cache.health.reset()
        started = time.monotonic()
        assert cache.load("frisian_mcp:visible:x") is None
        waited = time.monotonic() - started
    assert len(silent.accepted) == 2
    # The alias sets no timeout: the store's own bounds the wait (the
    # client library's default is 5 s, or none at all before redis 6).
    assert waited < 4 * cache.TIMEOUT


def test_a_cache_that_keeps_failing_warns_once(
    closed_port: int,
    warnings: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(cache, "RETRY_AFTER", 0.0)  # try it on every use
    with fleet(redis_at(closed_port)):
        host_writes()
        mcp = demo_client()
        for _ in range(3):
            assert DELETE_SITE not in names(mcp)
    assert len(outage_warnings(warnings)) == 1


def test_a_missed_invalidation_is_paid_before_a_listing_is_trusted(
    demo_data: None, closed_port: int
) -> None:
    shared = fleet(UP)
    with shared:
        mcp = demo_client()
        assert DELETE_SITE not in names(mcp)  # cached in the shared cache
        assert DELETE_SITE not in names(mcp)
    with fleet(redis_at(closed_port)):
        # Granted while the cache is down: the generation cannot be bumped.
        demo = User.objects.get(username="demo")
        demo.user_permissions.add(
            Permission.objects.get(
                codename="delete_site", content_type__app_label="dcim"
            )
        )
    with shared:  # the cache is back, holding the listing cached before
        assert DELETE_SITE in names(demo_client())


def test_a_healthy_cache_is_used_again_after_an_outage(
    demo_data: None, closed_port: int, counted_probes: list[int]
) -> None:
    with fleet(redis_at(closed_port)):
        names(demo_client())
    with fleet(UP):
        mcp = demo_client()
        first = names(mcp)
        probes = len(counted_probes)
        assert names(mcp) == first
        assert len(counted_probes) == probes  # the second came from the cache


@pytest.fixture
def counted_probes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """One entry per permission probe of a listing."""
    from frisian_mcp.invocation import Probe

    probes: list[int] = []
    allows = Probe.allows

    def counted(self: Any, tool: Any) -> bool:
        probes.append(1)
        return allows(self, tool)

    monkeypatch.setattr(Probe, "allows", counted)
    return probes


class _Null:
    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        pass
