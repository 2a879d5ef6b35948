"""``manage.py frisian_mcp_stdio --user NAME``: the tools over stdio.

A desktop client starts this command and speaks MCP on its stdin and
stdout; every call runs as ``NAME`` with that user's permissions. Anything
the project prints goes to stderr, with the logs, so stdout carries MCP
messages only.
"""

from __future__ import annotations

import sys
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.http import HttpRequest

from frisian_mcp.contrib.stdio.server import StdioServer

__all__ = ["Command"]


class Command(BaseCommand):
    """Serve the project's MCP tools on stdin/stdout as one user."""

    help = "Serve the MCP tools over stdio (for desktop clients) as one user."

    def add_arguments(self, parser: CommandParser) -> None:
        """``--user`` (required) and ``--host``."""
        parser.add_argument(
            "--user", required=True, help="The username every call runs as."
        )
        parser.add_argument(
            "--host",
            default=None,
            help="The host name the calls' requests carry (absolute URLs); "
            "default: the first plain name in ALLOWED_HOSTS, else localhost.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        """Find the user, then serve until the client closes stdin."""
        model = get_user_model()
        try:
            user = model._default_manager.get_by_natural_key(options["user"])
        except model.DoesNotExist:
            raise CommandError("No user has that username.") from None
        if not user.is_active:
            raise CommandError("That user is inactive.")
        messages = sys.stdout.buffer
        sys.stdout = sys.stderr  # what the project prints must not reach the client
        try:
            server = StdioServer(user, sys.stdin.buffer, messages, _request(options))
            server.serve()
        finally:
            sys.stdout = sys.__stdout__


def _request(options: dict[str, Any]) -> HttpRequest:
    """The outer request of every call: its host, and no credentials."""
    host = options["host"] or next(
        (h for h in settings.ALLOWED_HOSTS if h and h != "*" and not h.startswith(".")),
        "localhost",
    )
    request = HttpRequest()
    request.method = "POST"
    request.META.update(
        SERVER_NAME=host, SERVER_PORT="80", HTTP_HOST=host, REMOTE_ADDR="127.0.0.1"
    )
    return request
