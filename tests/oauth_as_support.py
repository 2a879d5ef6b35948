"""Support for the authorization-server tests: documents, PKCE, consent.

``DocumentServer`` serves client ID metadata documents over HTTPS on the
loopback interface with a self-signed certificate made here, and can be
told to answer slowly or with too much; it records every request it gets.
``consent_form`` reads the hidden fields of the demo's consent page, as a
browser would post them back.
"""

from __future__ import annotations

import base64
import datetime
import hashlib
import html
import ipaddress
import re
import secrets
import ssl
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

#: Hidden inputs of a form: name and (escaped) value.
HIDDEN = re.compile(r'<input type="hidden" name="(\w+)" value="([^"]*)"')


def pkce_pair() -> tuple[str, str]:
    """A PKCE code verifier and its S256 challenge (RFC 7636)."""
    verifier = secrets.token_urlsafe(48)
    digest = hashlib.sha256(verifier.encode()).digest()
    return verifier, base64.urlsafe_b64encode(digest).decode().rstrip("=")


def consent_form(page: str) -> dict[str, str]:
    """The hidden fields of the consent page, and the Allow button's value."""
    fields = {name: html.unescape(value) for name, value in HIDDEN.findall(page)}
    fields["allow"] = "Authorize"
    return fields


def make_certificate(directory: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and localhost, and its key."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName(
                [
                    x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
                    x509.DNSName("localhost"),
                ]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = directory / "cimd-cert.pem", directory / "cimd-key.pem"
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


@dataclass
class Route:
    """What the document server answers at one path."""

    body: bytes
    content_type: str = "application/json"
    #: Seconds to wait before the headers.
    delay: float = 0.0
    #: Seconds to wait between bytes of the body (a slow drip).
    drip: float = 0.0


@dataclass
class DocumentServer:
    """An HTTPS server on 127.0.0.1 answering from ``routes``."""

    base: str = ""
    #: The CA certificate (the server's own, self-signed) to trust.
    ca_file: str = ""
    routes: dict[str, Route] = field(default_factory=dict)
    hits: list[str] = field(default_factory=list)

    def url(self, path: str) -> str:
        """The absolute https URL of ``path``."""
        return self.base + path


@contextmanager
def document_server(directory: Path) -> Iterator[tuple[DocumentServer, Path]]:
    """Serve documents over HTTPS; yield the server and its CA certificate."""
    cert, key = make_certificate(directory)
    served = DocumentServer()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            served.hits.append(self.path)
            route = served.routes.get(self.path)
            if route is None:
                self.send_error(404)
                return
            time.sleep(route.delay)
            self.send_response(200)
            self.send_header("Content-Type", route.content_type)
            self.send_header("Content-Length", str(len(route.body)))
            self.end_headers()
            try:
                if not route.drip:
                    self.wfile.write(route.body)
                    return
                for byte in route.body:
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
                    time.sleep(route.drip)
            except (BrokenPipeError, ConnectionResetError, ssl.SSLError):
                pass  # the fetcher gave up, as it should

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    served.base = f"https://127.0.0.1:{server.server_address[1]}"
    served.ca_file = str(cert)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield served, cert
    finally:
        server.shutdown()
        server.server_close()
