#!/usr/bin/env python3
"""Django's command-line utility for the frisian_mcp demo project."""

from __future__ import annotations

import os
import sys


def main() -> None:
    """Run administrative tasks with the demo settings by default."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "demo_project.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
