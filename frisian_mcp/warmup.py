"""Build at worker start what a worker's first MCP request would build.

A server process (a WSGI or ASGI handler, ``runserver``) warms up by itself
in a thread of its own, which yields to the first request (ADR 0032); an
explicit :func:`warm_up` from ``wsgi.py`` (ADR 0019) still works.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import time
from types import FrameType

from django.apps import apps
from django.core.exceptions import ImproperlyConfigured
from django.core.signals import request_started
from django.db import connections
from django.urls import get_resolver

from frisian_mcp.conf import mcp_settings
from frisian_mcp.exceptions import ConfigurationError, HostError

__all__ = ["finish", "start", "warm_up"]

logger = logging.getLogger("frisian_mcp")

#: The functions of Django's that set it up for a server.
_HANDLERS = frozenset(
    {
        ("django.core.wsgi", "get_wsgi_application"),
        ("django.core.asgi", "get_asgi_application"),
    }
)
#: Seconds the thread waits for the other apps to be ready.
_READY_WAIT = 60.0
_thread: list[threading.Thread] = []
#: Set by the process's first request (Django's ``request_started``).
_ASKED = threading.Event()


def warm_up() -> None:
    """Import the URLconf, discover the tools, build the first listing page.

    What the first ``initialize`` and ``tools/list`` of a process would
    otherwise do: import the project's URLconf (and with it the endpoint's
    call path), discover the endpoints, and build (or, with a store,
    ``STORE_BACKEND``, adopt from the fleet) the schemas of the first
    ``tools/list`` page; then fill the URLconf's reverse map and build the
    listing entry of every schema built or adopted. Opens no database
    connection: nothing here runs a query, so it is safe before gunicorn
    forks (``--preload``). A project whose endpoints cannot be discovered is
    logged and left to the first request, which reports it as it always has.
    """
    _warm(threading.Event())


def _warm(asked: threading.Event) -> None:
    """:func:`warm_up`; once ``asked`` is set (a request came), the parts no
    request waits for are left to the requests that need them."""
    from frisian_mcp.registry import get_registry

    resolver = get_resolver()
    resolver.url_patterns  # noqa: B018 - imports the URLconf
    try:
        registry = get_registry()
    except (HostError, ImproperlyConfigured) as exc:  # the URLconf, a backend
        logger.warning(
            "frisian_mcp: warm-up could not discover the endpoints (%s); "
            "the first MCP request will try again.",
            type(getattr(exc, "error", exc)).__name__,
        )
        return
    registry.page(0, max(1, mcp_settings.TOOLS_LIST_PAGE_SIZE))
    # Django fills its reverse map on a process's first reverse(): every
    # tool's REST URL and the explorer's page need it, and with a thousand
    # routes it takes hundreds of milliseconds.
    if not asked.is_set():
        resolver.reverse_dict  # noqa: B018
    # A caller's first page may walk past the first hundred tools: the
    # listing entry of every schema at hand (a store's, adopted) too.
    for tool in registry:
        if asked.is_set():
            break
        if tool.built:
            tool.definition()


def start() -> None:
    """Warm up in a thread of its own if this process is a server.

    Called from the app's ``ready()``, once; ``WARM_UP = False`` turns it
    off. Before the process forks (a gunicorn ``--preload`` master), it
    waits for the warm-up, so each worker inherits it whole.
    """
    if _thread or not _serving():
        return
    try:
        if not mcp_settings.WARM_UP:
            return
    except ConfigurationError:  # FRISIAN_MCP is no dict: checks.py says so
        return
    thread = threading.Thread(target=_run, name="frisian_mcp warm-up", daemon=True)
    _thread.append(thread)
    # A request that comes meanwhile goes first (the thread shares the CPU).
    request_started.connect(_asked, dispatch_uid="frisian_mcp.warmup")
    thread.start()
    os.register_at_fork(before=finish)


def finish(timeout: float | None = None) -> None:
    """Wait for the warm-up thread, if one runs (and is not the caller)."""
    for thread in _thread:
        if thread is not threading.current_thread():
            thread.join(timeout)


def _asked(**kwargs: object) -> None:
    _ASKED.set()
    request_started.disconnect(dispatch_uid="frisian_mcp.warmup")


def _run() -> None:
    deadline = time.monotonic() + _READY_WAIT
    while not apps.ready:  # the thread starts within apps.populate()
        if time.monotonic() > deadline:
            return
        time.sleep(0.005)
    try:
        _warm(_ASKED)
    except Exception as exc:  # the host's URLconf, whatever it raises
        logger.warning(
            "frisian_mcp: warm-up failed (%s); the first MCP request will "
            "build what it needs.",
            type(exc).__name__,
        )
    finally:
        connections.close_all()  # this thread's, should the host's code open one


def _serving() -> bool:
    """Whether Django is being set up for a server: by a WSGI or ASGI
    handler, or in the process ``manage.py runserver`` serves from."""
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        if (frame.f_globals.get("__name__"), frame.f_code.co_name) in _HANDLERS:
            return True
        frame = frame.f_back
    if sys.argv[1:2] != ["runserver"]:
        return False
    return os.environ.get("RUN_MAIN") == "true" or "--noreload" in sys.argv
