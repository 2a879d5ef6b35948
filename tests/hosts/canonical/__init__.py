"""A host whose middleware fixes the canonical URL and the URLconf (issue 18 item 8).

Behind a proxy the ``Host`` header names an internal name; the host's
middleware sets ``request._current_scheme_host`` to its public origin, as
some hosts do, and picks the request's ``urlconf``. Absolute URLs in results
must be REST's, byte for byte.
"""
