"""Smoke-test an installed frisian_mcp in a minimal Django project.

``python3 dev.py package`` runs this with the interpreter of a fresh
virtualenv that holds the built wheel and nothing of the checkout, from a
temporary directory. It checks the installed distribution (version, license,
``py.typed``, the explorer's templates and static files), writes the README's minimal project (``rest_framework`` and
``frisian_mcp`` installed, one model and viewset, the endpoint at ``/mcp``)
into a temporary directory, runs ``manage.py check`` and ``migrate`` there,
and speaks MCP to it through ``frisian_mcp.contrib.testing.MCPTestClient`` in both
protocol eras: handshake or discovery, ``tools/list``, and a ``tools/call``
that creates a row. Only the standard library, Django and frisian_mcp with
its dependencies are imported.

``--from-checkout`` skips the check that frisian_mcp comes from an
installed wheel (the test suite runs the script that way).
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, NoReturn

DISTRIBUTION = "drf-frisian-mcp"
SERVER_INFO_META = "io.modelcontextprotocol/serverInfo"
NOTE_TOOLS = {
    f"notes__{action}"
    for action in ("list", "retrieve", "create", "update", "partial_update", "destroy")
}

PROJECT = {
    "manage.py": """\
import os
import sys

from django.core.management import execute_from_command_line

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "smoke_project.settings")
execute_from_command_line(sys.argv)
""",
    "smoke_project/__init__.py": "",
    "smoke_project/settings.py": """\
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent
SECRET_KEY = "smoke-test-only"
DEBUG = False
ALLOWED_HOSTS = ["testserver"]
USE_TZ = True
INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "rest_framework",
    "frisian_mcp",
    "notes",
]
MIDDLEWARE = [
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
]
ROOT_URLCONF = "smoke_project.urls"
DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": BASE_DIR / "db.sqlite3",
    }
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
}
FRISIAN_MCP = {"SERVER_NAME": "smoke"}
""",
    "smoke_project/urls.py": """\
from django.urls import include, path
from rest_framework.routers import DefaultRouter

from notes.views import NoteViewSet

router = DefaultRouter()
router.register("notes", NoteViewSet)
urlpatterns = [
    path("api/", include(router.urls)),
    path("mcp", include("frisian_mcp.urls")),
]
""",
    "notes/__init__.py": "",
    "notes/models.py": """\
from django.db import models


class Note(models.Model):
    title = models.CharField(max_length=100)
    body = models.TextField(blank=True)
""",
    "notes/migrations/__init__.py": "",
    "notes/migrations/0001_initial.py": """\
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True
    dependencies = []
    operations = [
        migrations.CreateModel(
            name="Note",
            fields=[
                ("id", models.BigAutoField(primary_key=True, serialize=False)),
                ("title", models.CharField(max_length=100)),
                ("body", models.TextField(blank=True)),
            ],
        ),
    ]
""",
    "notes/views.py": """\
from rest_framework import serializers, viewsets

from notes.models import Note


class NoteSerializer(serializers.ModelSerializer):
    class Meta:
        model = Note
        fields = ["id", "title", "body"]


class NoteViewSet(viewsets.ModelViewSet):
    queryset = Note.objects.order_by("id")
    serializer_class = NoteSerializer
""",
}


def fail(message: str) -> NoReturn:
    """Stop with ``message``; checks here must survive ``python -O``."""
    sys.exit(f"smoke test FAILED: {message}")


def check_distribution(from_checkout: bool) -> None:
    """The installed distribution: where it is, its version, license, py.typed."""
    import frisian_mcp

    package = Path(frisian_mcp.__file__).resolve().parent
    if not from_checkout and "site-packages" not in package.parts:
        fail(f"frisian_mcp was imported from {package}, not from an installed wheel")
    if not (package / "py.typed").is_file():
        fail(f"{package} has no py.typed")
    explorer = package / "contrib" / "explorer"
    for asset in (
        "templates/frisian_mcp/explorer/page.html",
        "static/frisian_mcp/explorer/explorer.js",
    ):
        if not (explorer / asset).is_file():
            fail(f"the explorer's {asset} is not installed")
    installed = importlib.metadata.version(DISTRIBUTION)
    if installed != frisian_mcp.__version__:
        fail(f"{DISTRIBUTION} {installed} != frisian_mcp.__version__")
    if not from_checkout:
        files = importlib.metadata.files(DISTRIBUTION) or []
        if not any(f.name == "LICENSE" for f in files):
            fail(f"{DISTRIBUTION} {installed} ships no LICENSE")
    print(f"installed: {DISTRIBUTION} {installed} at {package}")


def write_project(root: Path) -> None:
    """Write the minimal project under ``root``."""
    for name, text in PROJECT.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def manage(root: Path, *args: str) -> None:
    """Run the project's ``manage.py`` in a subprocess; stop on failure."""
    done = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode:
        fail(f"manage.py {' '.join(args)}:\n{done.stdout}{done.stderr}")
    print(f"manage.py {' '.join(args)}: ok")


def speak_mcp(root: Path) -> None:
    """Initialize, list tools and create a note in each protocol era."""
    sys.path.insert(0, str(root))
    os.environ["DJANGO_SETTINGS_MODULE"] = "smoke_project.settings"
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.test import Client
    from django.test.utils import setup_test_environment

    from frisian_mcp.contrib.testing import MCPTestClient

    setup_test_environment()
    anonymous = MCPTestClient().post({"jsonrpc": "2.0", "id": 1, "method": "ping"})
    if anonymous.status_code != 403:  # no challenge from SessionAuthentication
        fail(f"an anonymous caller got HTTP {anonymous.status_code}, not 403")

    user = get_user_model().objects.create_user("smoke", password="smoke")
    client = Client()
    client.force_login(user)
    for version in ("2025-11-25", "2026-07-28"):
        mcp = MCPTestClient(client, protocol_version=version)
        info: dict[str, Any] = mcp.initialize()
        # 2026-07-28 carries serverInfo in every result's _meta instead.
        meta = info.get("_meta", {})
        server = info.get("serverInfo") or meta.get(SERVER_INFO_META, {})
        if server.get("name") != "smoke":
            fail(f"{version}: initialize or server/discover returned {info}")
        names = {tool["name"] for tool in mcp.list_tools()}
        if not names >= NOTE_TOOLS:
            fail(f"{version}: tools/list lacks {sorted(NOTE_TOOLS - names)}")
        title = f"Smoke {version}"
        result = mcp.call_tool("notes__create", {"title": title, "body": "over MCP"})
        if result.get("isError") or result["structuredContent"]["title"] != title:
            fail(f"{version}: notes__create returned {result}")
        from notes.models import Note  # type: ignore[import-not-found]

        if not Note.objects.filter(title=title, body="over MCP").exists():
            fail(f"{version}: notes__create wrote no row")
        print(f"MCP {version}: initialize, tools/list ({len(names)}), create: ok")


def main(argv: list[str]) -> None:
    """Check the installation, then the project over MCP."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--from-checkout", action="store_true")
    options = parser.parse_args(argv)
    check_distribution(options.from_checkout)
    with tempfile.TemporaryDirectory(prefix="frisian-smoke-") as tmp:
        root = Path(tmp)
        write_project(root)
        manage(root, "check", "--fail-level", "WARNING")
        manage(root, "migrate", "--no-input", "--verbosity", "0")
        speak_mcp(root)
    print("smoke test passed")


if __name__ == "__main__":
    main(sys.argv[1:])
