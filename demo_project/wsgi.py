"""WSGI entry point of the demo project (``gunicorn demo_project.wsgi``)."""

from __future__ import annotations

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "demo_project.settings")
application = get_wsgi_application()

# Build the MCP endpoint's tools now, at worker start, rather than on the
# worker's first request (ADR 0019); manage.py commands never get here.
from frisian_mcp.warmup import warm_up  # noqa: E402 - needs Django set up

warm_up()
