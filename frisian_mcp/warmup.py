"""Build at worker start what a worker's first MCP request would build (ADR 0019).

Call :func:`warm_up` once per server process, after Django is set up: at the
end of the project's ``wsgi.py`` or ``asgi.py``, or from gunicorn's
``post_worker_init`` hook. ``manage.py`` commands never run it, so they pay
nothing; a worker pays at start instead of on its first request.
"""

from __future__ import annotations

import logging

from django.core.exceptions import ImproperlyConfigured
from django.urls import get_resolver

from frisian_mcp.conf import mcp_settings
from frisian_mcp.exceptions import HostError
from frisian_mcp.registry import get_registry

__all__ = ["warm_up"]

logger = logging.getLogger("frisian_mcp")


def warm_up() -> None:
    """Import the URLconf, fill its reverse map, discover the tools, build the first listing page.

    What the first ``initialize`` and ``tools/list`` of a process would
    otherwise do: import the project's URLconf (and with it the endpoint's
    call path), discover the endpoints, and build (or, with a store,
    ``STORE_BACKEND``, adopt from the fleet) the schemas of the first
    ``tools/list`` page. Opens no database connection: nothing here runs a
    query, so it is safe before gunicorn forks (``--preload``). A project
    whose endpoints cannot be discovered is logged and left to the first
    request, which reports it as it always has.
    """
    resolver = get_resolver()
    resolver.url_patterns  # noqa: B018 - imports the URLconf
    # Django fills its reverse map on a process's first reverse(): every
    # tool's REST URL and the explorer's page need it, and with a thousand
    # routes it takes hundreds of milliseconds.
    resolver.reverse_dict  # noqa: B018
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
