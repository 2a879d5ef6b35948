"""Settings of the scale benchmark: the test settings on ``tests.urls_scale``.

``bench/bench_discovery.py`` runs its subprocesses with
``DJANGO_SETTINGS_MODULE=tests.settings_scale``; the test suite itself uses
``tests.settings`` and switches URLconfs with ``override_settings``.
"""

from __future__ import annotations

from tests.settings import *  # noqa: F403

ROOT_URLCONF = "tests.urls_scale"
