"""Settings of the fleet benchmark: the scale app behind a shared Redis cache.

``bench/bench_fleet.py`` serves these with two gunicorn instances whose fleet
stores share one Redis database, under a key prefix of the run's own
(``FRISIAN_FLEET_PREFIX``).
"""

from __future__ import annotations

import os

from tests.settings_scale import *  # noqa: F403

FRISIAN_MCP = {
    **FRISIAN_MCP,  # noqa: F405
    "TOOL_LAYOUT": "flat",
    "STORE_BACKEND": "frisian_mcp.contrib.fleet.store.FleetStore",
}
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": os.environ.get("FRISIAN_FLEET_REDIS", "redis://127.0.0.1:6379/14"),
        "KEY_PREFIX": os.environ.get("FRISIAN_FLEET_PREFIX", "frisian-fleet"),
    }
}
