"""Host-like test apps: one package per pattern real hosts rely on.

Each app has its own URLconf (``tests.hosts.<name>.urls``) mounting its API
under /api/ and frisian_mcp at /mcp, so a test switches to it with
``override_settings(ROOT_URLCONF=...)`` and leaves the rest of the suite
untouched.
"""
