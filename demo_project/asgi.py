"""ASGI entry point of the demo project (``uvicorn demo_project.asgi:application``).

Django runs the endpoint, a sync view, in a thread for each request
(``sync_to_async``); see docs/deployment.md.
"""

from __future__ import annotations

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "demo_project.settings")
# No persistent database connections under ASGI (Django's "Persistent
# connections" docs): a connection kept by a request's thread would leak.
os.environ.setdefault("DJANGO_CONN_MAX_AGE", "0")
application = get_asgi_application()

# Build the MCP endpoint's tools at start, not on the first request (ADR 0019).
from frisian_mcp.warmup import warm_up  # noqa: E402 - needs Django set up

warm_up()
