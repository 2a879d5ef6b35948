"""What the tests of the explorer's resources and prompts pages share
(tests/test_explorer_resources.py, tests/test_explorer_prompts.py): a
person, the requests the page's script sends, and the page's safety checks.
"""

from __future__ import annotations

import re
from typing import Any

from django.contrib.auth.models import User
from django.test import Client

from frisian_mcp.contrib.testing import MCPTestClient
from tests.test_explorer import _Markup, page

__all__ = ["details", "from_the_page", "locked_down", "person"]


def person(name: str = "user", *, staff: bool = False, csrf: bool = False) -> Client:
    """A logged-in person (``csrf``: whose client enforces the CSRF checks)."""
    client = Client(enforce_csrf_checks=csrf)
    client.force_login(User.objects.create_user(name, password="pw", is_staff=staff))
    return client


def details(html: str, anchor: str) -> str:
    """The markup of the entry ``<details id="{anchor}">`` of ``html``."""
    found = html[html.index(f'id="{anchor}"') :]
    return found[: found.index("</details>")]


def from_the_page(client: Client, section: str) -> MCPTestClient:
    """The person's requests as the script of the page at ``section``
    (``?resources``) sends them: the session, and the CSRF token the page
    carries (checks enforced)."""
    html = page(client, section).content.decode()
    token = re.search(r'data-csrf-token="([^"]+)"', html)
    assert token is not None
    return MCPTestClient(client, headers={"X-CSRFToken": token.group(1)})


def locked_down(response: Any) -> str:
    """The page's HTML, once its security headers and markup are checked:
    a strict CSP, no framing, no caching, no inline script or style."""
    html = str(response.content.decode())
    csp = response["Content-Security-Policy"]
    assert csp.startswith("default-src 'none'; script-src 'self'; style-src 'self';")
    assert "unsafe-inline" not in csp
    assert "frame-ancestors 'none'" in csp
    assert response["X-Frame-Options"] == "DENY"
    assert response["Cache-Control"] == "no-store"
    parser = _Markup()
    parser.feed(html)
    assert parser.found == []
    return html
