"""The inventory-sized fleet of bench/bench_fleet_load.py (``--app inventory``).

The demo as it is, plus the 300 generated viewsets of the scale app
(``tests.urls_scale``: 1,812 tools, the network-inventory application's
nested foreign keys, filters, search and actions) under ``/api/``, each
checking the host's own permission class (``FRISIAN_SCALE_PERMISSION=custom``:
reads open, writes by model permission). The scale app's models have no
tables: the mix still drives the demo's contacts and devices, while every
worker serves, lists and probes a registry of about 1,850 tools, as a large
host's fleet does. What this adds to the demo's run is what the size costs: the
listing (and its cache) over 1,850 tools, schema builds per worker with the
fleet store, memory per worker.
"""

from __future__ import annotations

#: The settings module's extra lines (after the demo-with-Redis settings).
SETTINGS = """
INSTALLED_APPS = [*INSTALLED_APPS, "tests.scaleapp"]  # noqa: F405
ROOT_URLCONF = "fleet_load_urls"
"""

#: The URLconf: the demo's patterns, then the scale app's viewsets. A
#: ``SimpleRouter`` (no second API root view at ``/api/``).
URLCONF = '''"""Written by bench/bench_fleet_load.py: the demo plus the scale app."""
from django.urls import include, path
from rest_framework.routers import SimpleRouter

from demo_project.urls import urlpatterns as demo
from tests.scaleapp.models import SCALE_SIZE
from tests.urls_scale import viewset_for

router = SimpleRouter()
for index in range(SCALE_SIZE):
    router.register(f"group{index % 10}/thing{index:03d}", viewset_for(index))

urlpatterns = [*demo, path("api/", include(router.urls))]
'''

#: The environment the servers and the seeding run with.
ENV = {"FRISIAN_SCALE_PERMISSION": "custom"}
