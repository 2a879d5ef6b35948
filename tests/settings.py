"""Settings for the test suite.

SQLite in memory by default; ``DATABASE_URL`` (e.g.
``postgres://postgres@127.0.0.1:5432/frisian_mcp``) runs the same suite on
another database. The demo apps are installed so the suite can drive them.
"""

from __future__ import annotations

import os
import tempfile

import dj_database_url

SECRET_KEY = "tests-only-insecure-key"
DEBUG = False
ALLOWED_HOSTS = ["testserver", "localhost", "127.0.0.1"]
USE_TZ = True
STATIC_URL = "/static/"
TIME_ZONE = "UTC"

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    # tests/hosts/standardized: installed as its documentation asks.
    "drf_standardized_errors",
    "frisian_mcp",
    # The extras are installed (their checks and receivers run); the fleet
    # store is used where a test names it in STORE_BACKEND.
    "frisian_mcp.contrib.oauth",
    "frisian_mcp.contrib.fleet",
    "frisian_mcp.contrib.explorer",
    "frisian_mcp.contrib.confirm",
    "frisian_mcp.contrib.audit",
    "frisian_mcp.contrib.cleanup",
    "frisian_mcp.contrib.dispatchers",
    "frisian_mcp.contrib.stdio",
    "frisian_mcp.contrib.files",
    "demo_project",
    "demo_project.contacts",
    "demo_project.dcim",
    "tests.testapp",
    "tests.scaleapp",
    "tests.zoo",
    "tests.hosts.l10n",
    "tests.hosts.archive",
    "guardian",
    "tests.hosts.guarded",
    "tests.hosts.docsearch",
    "tests.hosts.translations",
    "tests.hosts.ipam",
    "tests.hosts.notebook",
    "tests.hosts.files",
    "tests.hosts.helpdesk",
    "tests.hosts.catalogue",
    "tests.hosts.bulk",
    "tests.hosts.platform",
    "tests.hosts.generic",
    "tests.hosts.lookups",
    "tests.hosts.glossary",
    "tests.hosts.customfields",
]

try:  # django-oauth-toolkit is optional: the OAuth tests skip without it
    import oauth2_provider  # noqa: F401
except ImportError:  # pragma: no cover
    pass
else:
    INSTALLED_APPS.append("oauth2_provider")

MIDDLEWARE = [
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
]

ROOT_URLCONF = "tests.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ]
        },
    }
]

DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL", "sqlite://:memory:")
    )
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_FILTER_BACKENDS": [
        "django_filters.rest_framework.DjangoFilterBackend",
        "rest_framework.filters.SearchFilter",
        "rest_framework.filters.OrderingFilter",
    ],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 25,
}

SPECTACULAR_SETTINGS = {"COMPONENT_SPLIT_REQUEST": True}

# Most tests call as an anonymous user through viewsets without permission
# classes; the tests of authentication switch this back on.
FRISIAN_MCP: dict[str, object] = {
    "REQUIRE_AUTHENTICATION": False,
    "BROWSER_VIEW_CLASS": "frisian_mcp.contrib.explorer.views.ExplorerView",
    "CALL_HOOKS": ["frisian_mcp.contrib.files.hooks.FileHook"],
}

# Uploaded files go to a directory of their own, never into the repository.
MEDIA_ROOT = tempfile.mkdtemp(prefix="frisian-mcp-media-")

# django-guardian's object permissions, as its hosts configure it. Its
# anonymous user is off: it would add a user row to every test database, and
# the guarded app's permission classes refuse anonymous callers first.
AUTHENTICATION_BACKENDS = [
    "django.contrib.auth.backends.ModelBackend",
    "guardian.backends.ObjectPermissionBackend",
]
ANONYMOUS_USER_NAME = None

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
