"""Settings for the frisian_mcp demo project.

SQLite in ``db.sqlite3`` beside ``manage.py`` by default; set ``DATABASE_URL``
(e.g. ``postgres://postgres@127.0.0.1:5432/frisian_demo``) to use another
database. SQLite is set up for several writers at once (immediate
transactions, a busy timeout, WAL). Not for production: DEBUG is on and the
secret key is public.
"""

from __future__ import annotations

import os
from pathlib import Path

import dj_database_url

BASE_DIR = Path(__file__).resolve().parent.parent

SECRET_KEY = os.environ.get(
    "DJANGO_SECRET_KEY", "demo-only-insecure-key-0b7c1f4e9a2d4c7b8e1f3a5c7d9e0f12"
)
DEBUG = os.environ.get("DJANGO_DEBUG", "1") == "1"
ALLOWED_HOSTS = ["127.0.0.1", "localhost", "[::1]", "testserver"]

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
    "frisian_mcp",
    "demo_project",
    "demo_project.contacts",
    "demo_project.dcim",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "demo_project.urls"
WSGI_APPLICATION = "demo_project.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL", f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
        # demo_project.asgi sets 0: Django's docs say to turn persistent
        # connections off under ASGI (each request runs in its own thread).
        conn_max_age=int(os.environ.get("DJANGO_CONN_MAX_AGE", "60")),
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DATABASES["default"]["OPTIONS"] = {
        # Take the write lock when a transaction begins: a deferred one that
        # reads first cannot upgrade under contention and fails at once with
        # "database is locked" instead of waiting.
        "transaction_mode": "IMMEDIATE",
        # Seconds a writer waits for the lock before giving up.
        "timeout": 20,
        # WAL: readers never block the writer, nor it them.
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True
STATIC_URL = "static/"

REST_FRAMEWORK = {
    # Agents send "Authorization: Token <key>"; people log in to the
    # browsable API (session). seed_demo creates the users and their tokens.
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    # Django's model permissions: the "demo" user may do everything but
    # delete sites; the "staff" user may do everything.
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.DjangoModelPermissions"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_FILTER_BACKENDS": [
        "django_filters.rest_framework.DjangoFilterBackend",
        "rest_framework.filters.SearchFilter",
        "rest_framework.filters.OrderingFilter",
    ],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 25,
}

SPECTACULAR_SETTINGS = {
    "TITLE": "frisian_mcp demo API",
    "COMPONENT_SPLIT_REQUEST": True,
}

FRISIAN_MCP = {
    "SERVER_NAME": "frisian-mcp-demo",
    "SERVER_TITLE": "frisian_mcp demo (contacts and DCIM)",
    # Browser-based clients such as the MCP Inspector send an Origin header.
    "ALLOWED_ORIGINS": ["http://localhost:6274", "http://127.0.0.1:6274"],
}
