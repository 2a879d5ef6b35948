"""A host that renders its errors with drf-standardized-errors (issue 18 item 1).

Configured as that library's documentation tells its users, with
``DEBUG = False`` as in production: every exception that is not a DRF
``APIException`` becomes a 500 and is reported as a server error
(``got_request_exception``, the ``django.request`` logger). :data:`SETTINGS`
are the overrides; ``tests.hosts.standardized.urls`` is the URLconf.
"""

from __future__ import annotations

from typing import Any

#: ``REST_FRAMEWORK`` keys the host adds (``drf_standardized_errors`` is in
#: tests/settings.py's ``INSTALLED_APPS``, as the library asks).
REST_FRAMEWORK: dict[str, Any] = {
    "EXCEPTION_HANDLER": "drf_standardized_errors.handler.exception_handler",
}
