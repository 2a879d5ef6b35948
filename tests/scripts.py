"""Run a Python script in a fresh process of the given settings.

For what one test process cannot show: start-up, the apps a project
installs, the host's DRF defaults. The script migrates and writes, so it
gets a database of its own, never the one ``$DATABASE_URL`` names (the
suite's tests run in a copy of it).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

__all__ = ["last_json", "run_script"]

ROOT = Path(__file__).resolve().parent.parent


def run_script(script: str, settings: str) -> str:
    """``script``'s standard output, run under ``settings``; it must succeed."""
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": settings}
    env.pop("DATABASE_URL", None)
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def last_json(script: str, settings: str) -> Any:
    """The JSON document ``script`` prints last, run under ``settings``."""
    return json.loads(run_script(script, settings).splitlines()[-1])
