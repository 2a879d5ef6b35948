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
from urllib.parse import urlsplit

import dj_database_url

BASE_DIR = Path(__file__).resolve().parent.parent

SECRET_KEY = os.environ.get(
    "DJANGO_SECRET_KEY", "demo-only-insecure-key-0b7c1f4e9a2d4c7b8e1f3a5c7d9e0f12"
)
DEBUG = os.environ.get("DJANGO_DEBUG", "1") == "1"
#: The demo's public origin: the base of the MCP resource URL and of the
#: authorization server's issuer, both from settings, never from ``Host``.
#: ``dev.py demo`` sets it from --host/--port; behind a tunnel, set it to the
#: tunnel's https URL (README, "Connect a hosted client").
PUBLIC_URL = os.environ.get("DEMO_PUBLIC_URL", "http://127.0.0.1:8000").rstrip("/")
ALLOWED_HOSTS = ["127.0.0.1", "localhost", "[::1]", "testserver"]
if urlsplit(PUBLIC_URL).hostname not in ALLOWED_HOSTS:
    ALLOWED_HOSTS.append(str(urlsplit(PUBLIC_URL).hostname))
# The login and consent forms are posted from the public origin.
CSRF_TRUSTED_ORIGINS = [PUBLIC_URL]
if os.environ.get("DEMO_BEHIND_TLS_PROXY") == "1":
    # A tunnel or proxy terminates TLS and says so in this header.
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

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
    "corsheaders",
    "frisian_mcp",
    # Every extra, each working by being installed (ADR 0032).
    # The OAuth resource server (its settings below; docs/authorization.md).
    "frisian_mcp.contrib.oauth",
    # Each caller's visible tools and the built schemas, kept in the default
    # cache (docs/fleet.md); with Redis there, every worker shares them.
    "frisian_mcp.contrib.fleet",
    # The tool explorer: a browser opening /mcp gets the caller's tools (its
    # login is the authorization server's, LOGIN_URL below).
    "frisian_mcp.contrib.explorer",
    # A person confirms the tools CONFIRM names (docs/safety.md); the audit
    # trail (docs/audit.md); stdio (README "Desktop clients"); cleanup.
    "frisian_mcp.contrib.confirm",
    "frisian_mcp.contrib.audit",
    "frisian_mcp.contrib.stdio",
    "frisian_mcp.contrib.cleanup",
    # Dispatcher tools when the API grows past DISPATCHER_THRESHOLD tools.
    "frisian_mcp.contrib.dispatchers",
    # Files through tools (docs/files.md): the attachments' up and downloads.
    "frisian_mcp.contrib.files",
    "oauth2_provider",
    "demo_project",
    "demo_project.contacts",
    "demo_project.dcim",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # CORS for the authorization server's endpoints only (CORS_URLS_REGEX);
    # /mcp answers its own preflights (FRISIAN_MCP["ALLOWED_ORIGINS"]).
    "corsheaders.middleware.CorsMiddleware",
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
# Uploaded attachments (contacts.Attachment), beside the demo's database
# unless DEMO_MEDIA_ROOT names another directory (the live tests' temp dir).
MEDIA_ROOT = os.environ.get("DEMO_MEDIA_ROOT") or BASE_DIR / "media"
MEDIA_URL = "media/"

REST_FRAMEWORK = {
    # Agents send "Authorization: Token <key>" or an OAuth bearer token;
    # people log in to the browsable API (session). seed_demo creates the
    # users and their tokens.
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # OAuth access tokens of the demo's authorization server, at /mcp
        # only; first, so that a 401 carries its Bearer challenge.
        "frisian_mcp.contrib.oauth.authentication.BearerTokenAuthentication",
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
    # OAuth bearer tokens are credentials for /mcp only, not for the REST
    # API this schema describes.
    "AUTHENTICATION_WHITELIST": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
}

#: Browser-based clients allowed to call the demo: the MCP Inspector's UI.
BROWSER_CLIENT_ORIGINS = ["http://localhost:6274", "http://127.0.0.1:6274"]

FRISIAN_MCP = {
    "SERVER_NAME": "frisian-mcp-demo",
    "SERVER_TITLE": "frisian_mcp demo (contacts and DCIM)",
    # Browser-based clients such as the MCP Inspector send an Origin header;
    # these get CORS headers, every other origin 403.
    "ALLOWED_ORIGINS": BROWSER_CLIENT_ORIGINS,
    # A person confirms every delete (docs/safety.md).
    "CONFIRM": ["destroy"],
    # The endpoint as an OAuth resource server (docs/authorization.md); its tokens
    # come from the authorization server below.
    "OAUTH": {
        "RESOURCE": f"{PUBLIC_URL}/mcp",
        "AUTHORIZATION_SERVERS": [f"{PUBLIC_URL}/oauth"],
        "TOKEN_VALIDATOR": "frisian_mcp.contrib.oauth.tokens.DOTTokenValidator",
        "RESOURCE_NAME": "frisian_mcp demo",
    },
}

# The audit trail (docs/audit.md): one JSON line per MCP request, on stderr.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "audit": {"()": "frisian_mcp.contrib.audit.formatters.JSONFormatter"}
    },
    "handlers": {
        "audit": {"class": "logging.StreamHandler", "formatter": "audit"},
    },
    "loggers": {
        "frisian_mcp.audit": {
            "handlers": ["audit"],
            "level": "INFO",
            "propagate": False,
        },
    },
}

# -- The demo's OAuth 2.1 authorization server (django-oauth-toolkit) ---------
# demo_project/authserver: login and consent pages, RFC 8414 metadata, client
# ID metadata documents, dynamic client registration. docs/authorization.md, "The
# demo's authorization server", lists what to change for production.
LOGIN_URL = "oauth2_provider:login"
OAUTH2_PROVIDER = {
    # The issuer, verbatim in the metadata and in the RFC 9207 "iss" of
    # every authorization response; endpoint URLs are built on its origin.
    "OIDC_ISS_ENDPOINT": f"{PUBLIC_URL}/oauth",
    # A replayed authorization code revokes the tokens issued from it.
    "OAUTH2_VALIDATOR_CLASS": "demo_project.authserver.validators.DemoValidator",
    "SCOPES": {
        "mcp:read": "Read contacts, sites, devices and tags",
        "mcp:write": "Create, change and delete contacts, sites, devices and tags",
    },
    "DEFAULT_SCOPES": ["mcp:read"],
    # Authorization code with PKCE, S256 only; no implicit, no password.
    "PKCE_REQUIRED": True,
    "COMPLIANT_BCP_RFC9700_PKCE_METHOD": True,
    "COMPLIANT_BCP_RFC9700_IMPLICIT_GRANT": True,
    "COMPLIANT_BCP_RFC9700_PASSWORD_GRANT": True,
    "COMPLIANT_BCP_RFC9700_AUTHZ_RESPONSE_ISS": True,
    "COMPLIANT_BCP_RFC9700_ACCESS_TOKEN_TRANSPORT": True,
    "COMPLIANT_BCP_RFC9700_TOKEN_STORAGE": True,
    "OAUTH2_RESPONSE_TYPES_SUPPORTED": ["code"],
    "OAUTH2_GRANT_TYPES_SUPPORTED": ["authorization_code", "refresh_token"],
    "OAUTH2_TOKEN_ENDPOINT_AUTH_METHODS_SUPPORTED": [
        "none",
        "client_secret_basic",
        "client_secret_post",
    ],
    "AUTHORIZATION_CODE_EXPIRE_SECONDS": 60,
    "ACCESS_TOKEN_EXPIRE_SECONDS": 3600,
    "REFRESH_TOKEN_EXPIRE_SECONDS": 14 * 24 * 3600,
    # Each refresh token works once; presenting a used one again revokes
    # the whole family (RFC 9700 section 4.14.2).
    "ROTATE_REFRESH_TOKEN": True,
    "REFRESH_TOKEN_GRACE_PERIOD_SECONDS": 0,
    "REFRESH_TOKEN_REUSE_PROTECTION": True,
    # The consent page every time: no silent re-authorization.
    "REQUEST_APPROVAL_PROMPT": "force",
    # Dynamic Client Registration (RFC 7591), open as MCP clients expect,
    # throttled per address by demo_project.authserver.views.
    "DCR_ENABLED": True,
    "DCR_REGISTRATION_PERMISSION_CLASSES": (
        "oauth2_provider.dcr.AllowAllDCRPermission",
    ),
    # Client ID Metadata Documents: an https client_id is fetched, 5 KB and
    # 3 s at most, never from a private address (unless DEBUG and
    # DEMO_CIMD_ALLOW_PRIVATE, for local tests).
    "CIMD_ENABLED": True,
    "CIMD_METADATA_FETCHER": "demo_project.authserver.cimd.DemoMetadataFetcher",
    "CIMD_FETCH_TIMEOUT_SECONDS": 3,
    "CIMD_MAX_DOCUMENT_SIZE": 5 * 1024,
}
# The same browser clients finish the OAuth flow from their own page: the
# discovery documents, registration, token and revocation endpoints answer
# their CORS preflights and let them read the answers (django-cors-headers).
# The authorization page itself is a top-level navigation, not CORS.
CORS_ALLOWED_ORIGINS = BROWSER_CLIENT_ORIGINS
CORS_URLS_REGEX = (
    r"^/(oauth/(token|register|revoke_token)/.*"
    r"|\.well-known/oauth-(authorization-server|protected-resource)(/.*)?)$"
)
# django-cors-headers' defaults, and the header MCP clients send on discovery.
CORS_ALLOW_HEADERS = (
    "accept",
    "authorization",
    "content-type",
    "user-agent",
    "x-csrftoken",
    "x-requested-with",
    "mcp-protocol-version",
)
CORS_PREFLIGHT_MAX_AGE = 7200

#: Registrations one address may make per window (DCR), and the window.
DEMO_REGISTRATION_RATE = (int(os.environ.get("DEMO_REGISTRATION_RATE", "10")), 3600)
#: Test-only: fetch client metadata documents from private and loopback
#: addresses. Honoured only with DEBUG on.
DEMO_CIMD_ALLOW_PRIVATE = os.environ.get("DEMO_CIMD_ALLOW_PRIVATE") == "1"
#: Test-only: an extra CA bundle to trust when fetching metadata documents
#: (the tests' self-signed certificate). Honoured only with DEBUG on.
DEMO_CIMD_CA_FILE = os.environ.get("DEMO_CIMD_CA_FILE", "")
