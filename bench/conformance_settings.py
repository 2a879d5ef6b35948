"""The demo's settings, with the ``demo`` user's token on every request.

The MCP conformance suite's server runner connects without credentials and
has no option to send a header, while the demo answers an unauthenticated
request 401 (README "Talk to the demo"). This module keeps every demo
setting and puts, in front of the middleware, a step that adds the demo's
token as ``Authorization`` to a request that carries none: the demo's own
authentication classes, permissions and throttles then run as for any
client that sends the token. Used by ``bench/conformance.py`` and
``tests/test_conformance.py`` only; never a setting to deploy.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from demo_project.settings import *  # noqa: F403
from demo_project.settings import MIDDLEWARE as DEMO_MIDDLEWARE

#: The seeded ``demo`` user's token (``seed_demo.DEMO_TOKEN``): repeated,
#: since importing the command here would load models before the apps.
DEMO_TOKEN = "demo-token-0000000000000000000000000000"


def demo_token_middleware(
    get_response: Callable[[HttpRequest], HttpResponse],
) -> Callable[[HttpRequest], HttpResponse]:
    """Authenticate a request that names no credentials as the demo user."""

    def middleware(request: HttpRequest) -> HttpResponse:
        request.META.setdefault("HTTP_AUTHORIZATION", f"Token {DEMO_TOKEN}")
        return get_response(request)

    return middleware


MIDDLEWARE = [
    "bench.conformance_settings.demo_token_middleware",
    *DEMO_MIDDLEWARE,
]
