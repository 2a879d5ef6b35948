"""Every URLconf the suite mounts, and the settings each runs under.

The generic tests (``test_round_trip``, ``test_listing_agrees``) run over
:func:`urlconfs`: every module under ``tests/`` and ``demo_project/`` that
defines ``urlpatterns``, found on disk so that a new test app cannot be
forgotten, minus :data:`EXCLUDED` (each with its reason). :data:`SETTINGS`
holds what an app needs of its own to run as its own tests run it: its
host's middleware, exception handler, schema class, ``ATOMIC_REQUESTS``.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client, override_settings
from rest_framework.authentication import TokenAuthentication
from rest_framework.authtoken.models import Token

from frisian_mcp.conf import mcp_settings
from frisian_mcp.contrib.testing import MCPTestClient

ROOT = Path(__file__).resolve().parent.parent
_URLPATTERNS = re.compile(r"^urlpatterns\b", re.MULTILINE)

#: URLconf -> why neither generic test runs over it.
EXCLUDED = {
    "tests.hosts.canonical.urls_public": (
        "tests.hosts.canonical.urls plus a home page: the URLconf that host's "
        "middleware picks for every request, so it is run there"
    ),
    "tests.hosts.mounts.urls_served": "URL mounting only: no resources",
    "tests.hosts.mounts.urls_swallowed": (
        "URL mounting only: its /mcp is never reached (check W008's case)"
    ),
    "tests.urls_no_mcp": "no MCP endpoint (check W001's case)",
    "tests.urls_scale": (
        "300 generated resources: test_round_trip runs every 25th in a test "
        "of its own (its unmanaged tables are made there); listing all 1,812 "
        "tools to five users is test_scale's measure"
    ),
    "tests.zoo.urls": "included by tests.urls_zoo, which mounts /mcp",
}

_ZOO_CANONICAL = "https://zoo.example.net"
_TOKEN = "rest_framework.authentication.TokenAuthentication"
_FILES = "frisian_mcp.contrib.files.hooks.FileHook"

#: URLconf -> ``override_settings`` keyword arguments it runs under.
SETTINGS: dict[str, dict[str, Any]] = {
    # tests/test_zoo.py: the zoo's canonical-host middleware.
    "tests.urls_zoo": {
        "MIDDLEWARE": ["tests.zoo.middleware.CanonicalHostMiddleware"],
        "ALLOWED_HOSTS": [_ZOO_CANONICAL.partition("://")[2]],
        "ZOO_CANONICAL_URL": _ZOO_CANONICAL,
    },
    # tests/regressions/test_18_urls_and_mounts.py: the canonical origin and
    # the URLconf the host's middleware sets.
    "tests.hosts.canonical.urls": {
        "MIDDLEWARE": ["tests.hosts.canonical.middleware.CanonicalHostMiddleware"],
    },
    # tests/regressions/test_18_host_exception_handler.py: drf-standardized-
    # errors as its documentation configures it, DEBUG off as in production.
    "tests.hosts.standardized.urls": {
        "REST_FRAMEWORK": {
            "EXCEPTION_HANDLER": "drf_standardized_errors.handler.exception_handler",
        },
        "DEBUG": False,
    },
    # tests/test_files.py: the files extra carries the host's file fields,
    # as it carries the demo's attachments (demo_project/settings.py).
    "tests.hosts.files.urls": {"FRISIAN_MCP": {"CALL_HOOKS": [_FILES]}},
    # tests/test_inner_headers.py: the catalogue's CSV and text answers.
    "tests.hosts.catalogue.urls": {"FRISIAN_MCP": {"CALL_HOOKS": [_FILES]}},
    "demo_project.urls": {"FRISIAN_MCP": {"CALL_HOOKS": [_FILES]}},
    # tests/test_boundary.py: the host's own DEFAULT_SCHEMA_CLASS.
    "tests.hosts.inventory.urls": {
        "REST_FRAMEWORK": {
            "DEFAULT_SCHEMA_CLASS": "tests.hosts.inventory.schema.InventoryAutoSchema",
        },
    },
    # tests/regressions/test_18_transactions.py: the task-queue host runs
    # with ATOMIC_REQUESTS (its test runs it off and on; off is the default).
    "tests.hosts.transactions.urls": {"ATOMIC_REQUESTS": True},
    # tests/test_oauth.py, tests/test_oauth_as.py: the endpoint takes DRF
    # tokens (the views take them or OAuth's; the demo's contacts in
    # tests.urls_oauth take the session).
    "tests.urls_oauth": {"FRISIAN_MCP": {"AUTHENTICATION_CLASSES": [_TOKEN]}},
    "tests.urls_oauth_as": {"FRISIAN_MCP": {"AUTHENTICATION_CLASSES": [_TOKEN]}},
}

#: URLconf -> its MCP endpoint's path, where that is not ``/mcp``.
PATHS = {"tests.urls_nested_mcp": "/plugins/mcp"}


def on_disk() -> list[str]:
    """Every module under ``tests/`` and ``demo_project/`` with ``urlpatterns``."""
    found = []
    for top in ("tests", "demo_project"):
        for path in sorted((ROOT / top).rglob("*.py")):
            if _URLPATTERNS.search(path.read_text(encoding="utf-8")):
                found.append(".".join(path.relative_to(ROOT).with_suffix("").parts))
    return found


def urlconfs() -> list[str]:
    """Every URLconf :func:`on_disk`, minus :data:`EXCLUDED`."""
    return [name for name in on_disk() if name not in EXCLUDED]


@contextlib.contextmanager
def mounted(urlconf: str, frisian_mcp: dict[str, Any]) -> Iterator[None]:
    """Run under ``urlconf``, its :data:`SETTINGS` and ``frisian_mcp``.

    ``MIDDLEWARE`` and ``ALLOWED_HOSTS`` are put before the suite's, and
    ``REST_FRAMEWORK`` keys over the suite's; ``ATOMIC_REQUESTS`` is the
    default database's.
    """
    own = dict(SETTINGS.get(urlconf, {}))
    own["FRISIAN_MCP"] = {**frisian_mcp, **own.get("FRISIAN_MCP", {})}
    atomic = own.pop("ATOMIC_REQUESTS", connection.settings_dict["ATOMIC_REQUESTS"])
    for key in ("MIDDLEWARE", "ALLOWED_HOSTS"):
        if key in own:
            own[key] = [*own[key], *getattr(settings, key)]
    if "REST_FRAMEWORK" in own:
        own["REST_FRAMEWORK"] = {**settings.REST_FRAMEWORK, **own["REST_FRAMEWORK"]}
    before = connection.settings_dict["ATOMIC_REQUESTS"]
    connection.settings_dict["ATOMIC_REQUESTS"] = atomic
    try:
        with override_settings(ROOT_URLCONF=urlconf, **own):
            yield
    finally:
        connection.settings_dict["ATOMIC_REQUESTS"] = before


def signed_in(user: User | None) -> MCPTestClient:
    """An initialized client of the mounted app's endpoint, as ``user``.

    Signed in with a session, and with the user's DRF token where the
    endpoint takes tokens; anonymous for ``None``.
    """
    client, headers = Client(), {}
    if user is not None:
        client.force_login(user)
        if TokenAuthentication in (mcp_settings.AUTHENTICATION_CLASSES or ()):
            token = Token.objects.get_or_create(user=user)[0]
            headers["Authorization"] = f"Token {token.key}"
    path = PATHS.get(str(settings.ROOT_URLCONF))
    mcp = MCPTestClient(client, path=path, headers=headers)
    mcp.initialize()
    return mcp
