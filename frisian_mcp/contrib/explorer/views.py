"""The explorer's page: a person's own tools, at the MCP URL (ADR 0024).

:class:`~frisian_mcp.views.MCPView` hands it a GET that prefers text/html
(``BROWSER_VIEW_CLASS``). A visitor without a session login is sent to the
login page and learns no tool name. The page calls tools as any client
does: explorer.js POSTs ``tools/call`` (``resources/read``, ``prompts/get``)
to the endpoint with the session and CSRF token: every check applies.
"""

from __future__ import annotations

import json
from typing import Any, cast
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import render, resolve_url
from django.template.loader import render_to_string
from django.templatetags.static import static
from django.urls import NoReverseMatch, Resolver404, resolve, reverse
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.views import View
from rest_framework.authentication import BaseAuthentication, SessionAuthentication
from rest_framework.settings import api_settings

from frisian_mcp import prompts, resources
from frisian_mcp.conf import mcp_settings
from frisian_mcp.contrib.explorer import catalog
from frisian_mcp.registry import get_registry
from frisian_mcp.types import CallContext

__all__ = ["ExplorerView", "login_url", "rows", "session_authenticator"]

#: What the page's client set-up shows in place of a credential.
TOKEN_PLACEHOLDER = "<YOUR_TOKEN>"
#: The revision the page's own calls speak (explorer.js sends it).
PROTOCOL_VERSION = "2025-11-25"


class ExplorerView(View):
    """The tool list, one tool's details (``?tool=``), or a detail fragment.

    ``?tool=NAME`` renders the page with that tool opened (no script
    needed); ``&part=detail`` only its details, which the script loads into
    the list when a tool is opened. ``?q=`` filters the list without script.
    ``?resources`` (``?prompts``): resources and templates (prompts), as forms.
    """

    http_method_names = ["get"]
    page_template = "frisian_mcp/explorer/page.html"
    detail_template = "frisian_mcp/explorer/tool.html"
    login_template = "frisian_mcp/explorer/login.html"
    resources_template = "frisian_mcp/explorer/resources.html"
    prompts_template = "frisian_mcp/explorer/prompts.html"

    def get(self, request: HttpRequest) -> HttpResponseBase:
        """The page for a logged-in person; the login page for anyone else."""
        user: Any = getattr(request, "user", None)
        if not (getattr(user, "is_authenticated", False) and user.is_active):
            return secured(self._to_login(request))
        authenticator = session_authenticator()
        context = CallContext(
            request=request,
            user=user,
            authenticator=authenticator,
            session_user=user,
            protocol_version=PROTOCOL_VERSION,
        )
        registry = get_registry()
        frame = {
            "server": mcp_settings.SERVER_TITLE or mcp_settings.SERVER_NAME,
            "username": user.get_username(),
            "endpoint": request.path,
            "csrf_header": _csrf_header(),
            "sessions_refused": authenticator is None,
            "logout_url": _reversed("rest_framework:logout"),
            "section": "tools",
            "has_prompts": bool(prompts.declared()),
        }
        if "prompts" in request.GET:
            frame.update(section="prompts", prompts=prompts.visible(context))
            return secured(render(request, self.prompts_template, frame))
        if "resources" in request.GET:
            listed = resources.listed(context, registry)  # without variables
            listed += resources.templates(context, registry)
            frame["templates"] = [(t, registry.get(t.tool)) for t in listed]
            frame["section"] = "resources"
            return secured(render(request, self.resources_template, frame))
        name = request.GET.get("tool")
        opened = catalog.detail(registry, context, name) if name else None
        if request.GET.get("part") == "detail":
            if opened is None:
                return secured(HttpResponse("No such tool.", status=404))
            return secured(render(request, self.detail_template, _detail(opened)))
        found = catalog.entries(registry, context)
        query = request.GET.get("q", "").strip()[:200]
        shown = opened and render_to_string(
            self.detail_template, _detail(opened), request
        )
        frame["groups"] = [
            (group.name, rows(group.entries, opened, shown or ""))
            for group in catalog.groups(found, query)
        ]
        frame.update(total=len(found), query=query)
        frame["setup"] = client_setup(request.build_absolute_uri(request.path))
        response = render(request, self.page_template, frame)
        if name and opened is None:
            response.status_code = 404
        return secured(response)

    def _to_login(self, request: HttpRequest) -> HttpResponse:
        url = login_url()
        if url is None:
            return render(request, self.login_template, status=403)
        return redirect_to_login(request.get_full_path(), url)


def rows(entries: list[catalog.Entry], opened: Any, shown: str) -> SafeString:
    """The list items of ``entries``; ``opened`` holds ``shown``, its details.

    Written here rather than in a template loop: a thousand tools render in
    a few milliseconds instead of a few hundred (docs/explorer.md).
    """
    made = []
    for entry in entries:
        name, is_open = escape(entry.name), opened and opened.entry.name == entry.name
        badges = "".join(f' <span class="badge {b}">{b}</span>' for b in entry.badges)
        summary = f"<p>{escape(entry.summary)}</p>" if entry.summary else ""
        link = f'<p><a class="open" href="?tool={name}#{name}">Open {name}</a></p>'
        body = shown if is_open else summary + link
        made.append(
            f'<li class="tool" data-search="{escape(entry.search_text)}">'
            f'<details id="{name}"{" open" if is_open else ""}><summary>'
            f'<code class="name">{name}</code> <span class="title">'
            f"{escape(entry.title)}</span>{badges}</summary>"
            f'<div class="body">{body}</div></details></li>\n'
        )
    return mark_safe("".join(made))  # every host string is escaped above


def login_url() -> str | None:
    """``LOGIN_URL`` when it leads somewhere, else DRF's login view, else None."""
    url = str(resolve_url(settings.LOGIN_URL))
    parts = urlsplit(url)
    if parts.netloc:  # another host: a single sign-on service
        return url
    try:
        resolve(parts.path)
    except Resolver404:
        return _reversed("rest_framework:login")
    return url


def session_authenticator() -> BaseAuthentication | None:
    """The endpoint's session authenticator; ``None``: it takes no sessions."""
    classes = _authentication_classes()
    return next(
        (cls() for cls in classes if issubclass(cls, SessionAuthentication)), None
    )


def secured(response: HttpResponseBase) -> HttpResponseBase:
    """Add the page's security headers: a strict CSP, no framing, no caching.

    Scripts and styles come from the static files only (no inline script);
    the page fetches only its own origin and is framed by none.
    """
    assets = _origin(static("frisian_mcp/explorer/explorer.js"))
    response["Content-Security-Policy"] = (
        f"default-src 'none'; script-src {assets}; style-src {assets}; "
        "img-src 'self' data:; connect-src 'self'; form-action 'self'; "
        "frame-ancestors 'none'; base-uri 'none'"
    )
    response["X-Frame-Options"] = "DENY"
    response["X-Content-Type-Options"] = "nosniff"
    response["Referrer-Policy"] = "same-origin"
    response["Cache-Control"] = "no-store"
    response["Vary"] = "Accept, Cookie"
    return response


def client_setup(url: str) -> list[tuple[str, str]]:
    """Copy-ready set-up of MCP clients for ``url``; a placeholder, no secret."""
    name = mcp_settings.SERVER_NAME
    header = f"Authorization: {_scheme()} {TOKEN_PLACEHOLDER}"
    key, value = header.split(": ", 1)
    python = (
        "import asyncio\n\nimport httpx2\nfrom mcp import Client\n"
        "from mcp.client.streamable_http import streamable_http_client\n\n\n"
        "async def main() -> None:\n"
        f"    http = httpx2.AsyncClient(headers={{{key!r}: {value!r}}})\n"
        f"    transport = streamable_http_client({url!r}, http_client=http)\n"
        "    async with Client(transport) as client:\n"
        "        tools = await client.list_tools()\n"
        "        print([tool.name for tool in tools.tools])\n\n\n"
        "asyncio.run(main())\n"
    )
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    return [
        (
            "Claude Code",
            f'claude mcp add --transport http {name} {url} --header "{header}"',
        ),
        (
            "MCP Inspector",
            "npx @modelcontextprotocol/inspector\n"
            f"# Transport: Streamable HTTP, URL: {url}\n# Header: {header}\n"
            "# (its origin, http://localhost:6274, must be in ALLOWED_ORIGINS)",
        ),
        ("Python (the official SDK, mcp>=2)", python),
        (
            "curl",
            f"curl -s {url} \\\n  -H '{header}' \\\n"
            "  -H 'Content-Type: application/json' "
            "-H 'Accept: application/json, text/event-stream' \\\n"
            f"  -H 'MCP-Protocol-Version: {PROTOCOL_VERSION}' \\\n  -d '{body}'",
        ),
    ]


def _detail(opened: catalog.Detail) -> dict[str, Any]:
    return {"opened": opened, "route": json.dumps(opened.entry.route)}


def _scheme() -> str:
    """How the endpoint's token authenticator wants its header (``Token``)."""
    keywords = (getattr(cls, "keyword", None) for cls in _authentication_classes())
    return next((str(k) for k in keywords if isinstance(k, str)), "Bearer")


def _authentication_classes() -> list[type[BaseAuthentication]]:
    """The endpoint's authentication classes, as views.MCPView reads them."""
    classes = mcp_settings.AUTHENTICATION_CLASSES
    if classes is None:
        return cast(
            list[type[BaseAuthentication]], api_settings.DEFAULT_AUTHENTICATION_CLASSES
        )
    return classes


def _csrf_header() -> str:
    """Django's CSRF header as a browser sends it (``X-CSRFToken``)."""
    meta = str(settings.CSRF_HEADER_NAME)
    return meta.removeprefix("HTTP_").replace("_", "-")


def _origin(url: str) -> str:
    parts = urlsplit(url)
    if not parts.netloc:
        return "'self'"
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme else parts.netloc


def _reversed(name: str) -> str | None:
    try:
        return reverse(name)
    except NoReverseMatch:
        return None
