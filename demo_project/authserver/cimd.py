"""Fetching client ID metadata documents, bounded and SSRF-safe.

draft-ietf-oauth-client-id-metadata-document: the ``client_id`` is an https
URL and the authorization server fetches its JSON document. The fetch is a
request to an address the client chose, so it is bounded in size
(``CIMD_MAX_DOCUMENT_SIZE``) and time (``CIMD_FETCH_TIMEOUT_SECONDS``, one
deadline for every attempt), follows no redirect, and connects only to the
addresses it checked: every address the host resolves to must be public.
django-oauth-toolkit then checks that the document's ``client_id`` equals
the URL and stores its redirect URIs for exact matching.

With DEBUG on, two test-only settings relax this for a document served on
the loopback interface: ``DEMO_CIMD_ALLOW_PRIVATE`` and
``DEMO_CIMD_CA_FILE`` (a CA bundle to trust besides the system's).
"""

from __future__ import annotations

import json
import socket
import ssl
import time
from typing import Any

import urllib3
from django.conf import settings
from oauth2_provider import cimd
from oauth2_provider.settings import oauth2_settings

__all__ = ["DemoMetadataFetcher"]


def _test_only(name: str) -> Any:
    """A test-only setting's value, or nothing outside DEBUG."""
    return getattr(settings, name, None) if settings.DEBUG else None


def resolve(hostname: str, port: int) -> list[str]:
    """Every address of ``hostname``; refuse the host if one is not public."""
    try:
        infos = socket.getaddrinfo(hostname, port, proto=socket.IPPROTO_TCP)
    except socket.gaierror as exc:
        raise cimd.CIMDError("client_id host does not resolve") from exc
    addresses = [str(info[4][0]) for info in infos]
    if not addresses:
        raise cimd.CIMDError("client_id host has no address")
    if not _test_only("DEMO_CIMD_ALLOW_PRIVATE"):
        for address in addresses:
            # Loopback, private, link-local (cloud metadata), CGNAT, and IPv4
            # smuggled in IPv6 forms: all refused.
            if not cimd._ip_is_public(address):
                raise cimd.CIMDError("client_id host has a non-public address")
    return addresses


class DemoMetadataFetcher(cimd.SafeMetadataFetcher):
    """django-oauth-toolkit's fetcher with the demo's test-only switches."""

    def fetch(self, client_id: str) -> tuple[dict[str, Any], int]:
        """The document at ``client_id`` and its cache lifetime in seconds."""
        parsed = cimd._validate_client_id_url(client_id)
        hostname = str(parsed.hostname)
        port = parsed.port or 443
        addresses = resolve(hostname, port)
        context = ssl.create_default_context()
        ca_file = _test_only("DEMO_CIMD_CA_FILE")
        if ca_file:
            context.load_verify_locations(cafile=ca_file)
        path = parsed.path + (f"?{parsed.query}" if parsed.query else "")
        headers = {"Host": parsed.netloc, "Accept": "application/json"}
        deadline = time.monotonic() + oauth2_settings.CIMD_FETCH_TIMEOUT_SECONDS
        for address in addresses:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            # Connect to the checked address; SNI, certificate and Host name
            # the real host, so a second lookup cannot rebind the request.
            pool = urllib3.HTTPSConnectionPool(
                host=address,
                port=port,
                timeout=urllib3.Timeout(connect=remaining, read=remaining),
                retries=False,
                maxsize=1,
                ssl_context=context,
                server_hostname=hostname,
                assert_hostname=hostname,
            )
            try:
                response = pool.urlopen(
                    "GET", path, headers=headers, redirect=False, preload_content=False
                )
                try:
                    return read_document(response, deadline)
                finally:
                    response.release_conn()
            except urllib3.exceptions.HTTPError:
                continue
            finally:
                pool.close()
        raise cimd.CIMDError("client_id document could not be fetched in time")


def read_document(response: Any, deadline: float) -> tuple[dict[str, Any], int]:
    """The JSON object of ``response``, read by ``deadline`` and within size.

    A socket timeout bounds each read, not the whole body: before each read
    the socket's timeout is cut to what is left until ``deadline``, so a
    server that drips a byte at a time is stopped there.
    """
    if response.status != 200:
        raise cimd.CIMDError("client_id document answered with an error status")
    media_type = response.headers.get("Content-Type", "").split(";")[0].strip()
    if media_type.lower() != "application/json":
        raise cimd.CIMDError("client_id document is not application/json")
    limit = oauth2_settings.CIMD_MAX_DOCUMENT_SIZE
    body = b""
    sock = getattr(getattr(response, "connection", None), "sock", None)
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise cimd.CIMDError("client_id document took too long")
        if sock is not None:
            sock.settimeout(left)
        try:
            chunk = response.read1(4096)
        except (OSError, urllib3.exceptions.HTTPError) as exc:
            raise cimd.CIMDError("client_id document took too long") from exc
        if not chunk:
            break
        body += chunk
        if len(body) > limit:
            raise cimd.CIMDError("client_id document is too large")
    try:
        document = json.loads(body)
    except ValueError as exc:
        raise cimd.CIMDError("client_id document is not JSON") from exc
    if not isinstance(document, dict):
        raise cimd.CIMDError("client_id document is not a JSON object")
    max_age = cimd._effective_max_age(response.headers.get("Cache-Control"))
    return document, max_age
