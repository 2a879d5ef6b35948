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
# Also starts frisian_mcp's warm-up in a thread of its own (ADR 0032).
application = get_asgi_application()
