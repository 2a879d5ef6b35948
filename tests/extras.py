"""The test settings without some extras, as a project that never installed them.

The suite installs every extra (tests/settings.py), and an extra works by
being installed (ADR 0032): to see the core without one, its app goes, and
with it the layout it registered (process state, ADR 0028).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from unittest import mock

from django.conf import settings
from django.test import override_settings

from frisian_mcp import hooks

__all__ = ["without"]


@contextlib.contextmanager
def without(*extras: str) -> Iterator[None]:
    """``INSTALLED_APPS`` without ``frisian_mcp.contrib.<extra>`` for each one."""
    gone = tuple(f"frisian_mcp.contrib.{extra}" for extra in extras)
    installed = [app for app in settings.INSTALLED_APPS if app not in gone]
    layouts = {
        name: layout
        for name, layout in hooks._LAYOUTS.items()
        if not layout.__module__.startswith(gone)
    }
    with (
        mock.patch.object(hooks, "_LAYOUTS", layouts),
        override_settings(INSTALLED_APPS=installed),
    ):
        yield
