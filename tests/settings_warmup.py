"""Settings of the warm-up benchmark: the fleet's settings, ``WARM_UP`` by env.

``bench/bench_warmup.py`` serves these with gunicorn and uvicorn, with
``FRISIAN_WARM_UP=0`` for the runs without the warm-up.
"""

from __future__ import annotations

import os

from tests.settings_fleet import *  # noqa: F403

FRISIAN_MCP = {
    **FRISIAN_MCP,  # noqa: F405
    "WARM_UP": os.environ.get("FRISIAN_WARM_UP", "1") != "0",
    # The caller's visible set, primed once, outlives the runs.
    "CACHE_TTL_MS": 3_600_000,
}
