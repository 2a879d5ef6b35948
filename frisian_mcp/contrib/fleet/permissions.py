"""Rights changed: every tool list the fleet cached goes stale.

The core listens to the models that grant rights in every process (web
workers, task workers, commands) and sends
:data:`~frisian_mcp.rights.permissions_changed`, at the change and when it
commits; :func:`stale` bumps the shared generation on each. A cache outage
never fails the host's save: the invalidation is owed
(:func:`~frisian_mcp.contrib.fleet.cache.bump_generation`).
"""

from __future__ import annotations

from typing import Any

from frisian_mcp.contrib.fleet import cache
from frisian_mcp.exceptions import ConfigurationError

__all__ = ["stale"]


def stale(**kwargs: Any) -> None:
    """Make every cached tool list stale, where the fleet store is on."""
    # The store's module, with the call path below it, loads on first use:
    # setting Django up imports neither.
    from frisian_mcp.contrib.fleet.store import enabled

    try:
        on = enabled()
    except ConfigurationError:  # a broken FRISIAN_MCP: checks.py says so
        return
    if on:
        cache.bump_generation()
