"""WSGI entry point of the demo project (``gunicorn demo_project.wsgi``)."""

from __future__ import annotations

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "demo_project.settings")
# Setting Django up here also starts frisian_mcp's warm-up in a thread of its
# own: the worker's first MCP request finds its tools built (ADR 0032).
application = get_wsgi_application()
