"""``python manage.py seed_demo``: fill the demo database with realistic rows.

Idempotent: every row has a stable natural key or id, so running the command
again updates rows instead of duplicating them. Besides a few dozen real
contacts, sites, devices and tags it creates the three empty Contact rows that
REST-style ``{"data": {...}}`` calls left behind before the nested-wrapper
guard existed (ids starting ``6b7e67eb``, ``c123f361`` and ``b1b58efa``), so
``frisian_mcp_cleanup`` has something to find.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.contrib.auth.hashers import get_hasher
from django.contrib.auth.models import Permission, User
from django.core.management.base import BaseCommand
from django.db import transaction
from rest_framework.authtoken.models import Token

from demo_project.contacts.models import Contact
from demo_project.dcim.models import Device, Site, Tag

#: Fixed, public API tokens, so the README can show a working client
#: configuration. Demo only: never use well-known tokens anywhere else.
DEMO_TOKEN = "demo-token-0000000000000000000000000000"
STAFF_TOKEN = "staff-token-000000000000000000000000000"

#: The users' public passwords, hashed once with Django's default hasher:
#: hashing them afresh (PBKDF2, a million rounds) took about a second of
#: every demo start. Another default hasher (the tests' MD5) hashes afresh.
PASSWORD_HASHES = {
    "demo": "pbkdf2_sha256$1000000$5E8JjXnbCz8qrv7PMD5tY4$"
    "BHthRj2umvPMdDXUkZh7cOLfvKqdjIMOyAES+rEtgk8=",
    "staff": "pbkdf2_sha256$1000000$z7zD2yjb3SRQ01qclve0Oy$"
    "XjoK4oRywHHNRBLlBoNkjrhRjgiBffcUx9VSAmo0+4o=",
}

#: The pre-registered OAuth client (public, PKCE): MCP clients that let a
#: person enter a client id use it instead of registering themselves.
DEMO_CLIENT_ID = "frisian-demo-client"
DEMO_CLIENT_REDIRECT_URIS = (
    "http://127.0.0.1/callback",
    "http://localhost:6274/oauth/callback",
    "http://localhost:6274/oauth/callback/debug",
)

#: The empty rows from ADR 007's incident report.
EMPTY_CONTACT_IDS = (
    uuid.UUID("6b7e67eb-3c1d-4f0a-9b6e-2d8f1a4c7e01"),
    uuid.UUID("c123f361-8a2e-4b5c-a7d9-0e3f6b1c2d02"),
    uuid.UUID("b1b58efa-5d4c-4e3b-8f2a-7c9e0d1b3a03"),
)

CONTACTS = [
    ("Ada", "Lovelace", "ada.lovelace@example.com", "+44 20 7946 0001"),
    ("Grace", "Hopper", "grace.hopper@example.com", "+1 202 555 0102"),
    ("Alan", "Turing", "alan.turing@example.com", "+44 20 7946 0003"),
    ("Edsger", "Dijkstra", "edsger.dijkstra@example.nl", "+31 20 555 0104"),
    ("Barbara", "Liskov", "barbara.liskov@example.com", "+1 617 555 0105"),
    ("Donald", "Knuth", "donald.knuth@example.com", "+1 650 555 0106"),
    ("Margaret", "Hamilton", "margaret.hamilton@example.com", "+1 617 555 0107"),
    ("Ken", "Thompson", "ken.thompson@example.com", "+1 908 555 0108"),
    ("Radia", "Perlman", "radia.perlman@example.com", "+1 978 555 0109"),
    ("John", "McCarthy", "john.mccarthy@example.com", "+1 650 555 0110"),
    ("Frances", "Allen", "frances.allen@example.com", "+1 914 555 0111"),
    ("Tim", "Berners-Lee", "tim.berners-lee@example.org", "+44 20 7946 0012"),
    ("Sophie", "Wilson", "sophie.wilson@example.co.uk", "+44 1223 555 013"),
    ("Guido", "van Rossum", "guido.vanrossum@example.nl", "+31 20 555 0114"),
    ("Anita", "Borg", "anita.borg@example.com", "+1 415 555 0115"),
    ("Niklaus", "Wirth", "niklaus.wirth@example.ch", "+41 44 555 0116"),
    ("Hedy", "Lamarr", "hedy.lamarr@example.com", "+1 310 555 0117"),
    ("Dennis", "Ritchie", "dennis.ritchie@example.com", "+1 908 555 0118"),
    ("Adele", "Goldberg", "adele.goldberg@example.com", "+1 650 555 0119"),
    ("Tony", "Hoare", "tony.hoare@example.co.uk", "+44 1865 555 020"),
    ("Karen", "Sparck Jones", "karen.sparckjones@example.co.uk", "+44 1223 555 021"),
    ("Linus", "Torvalds", "linus.torvalds@example.fi", "+358 9 555 0122"),
    ("Jean", "Sammet", "jean.sammet@example.com", "+1 212 555 0123"),
    ("Leslie", "Lamport", "leslie.lamport@example.com", "+1 425 555 0124"),
]

SITES = [
    ("Amsterdam DC1", "ams-dc1", "Primary data centre, Science Park"),
    ("Frankfurt DC2", "fra-dc2", "Secondary data centre"),
    ("Leeuwarden Office", "lwr-office", "Head office, Friesland"),
    ("London Edge", "lon-edge", "Edge point of presence"),
    ("hq-1", "hq-1", "Headquarters lab"),
]

TAGS = [
    ("core", "core"),
    ("edge", "edge"),
    ("storage", "storage"),
    ("monitoring", "monitoring"),
    ("pci", "pci"),
    ("spare", "spare"),
]

# (name, site slug, status, serial, tag slugs)
DEVICES = [
    ("ams-core-01", "ams-dc1", "active", "FOC2231X0A1", ["core"]),
    ("ams-core-02", "ams-dc1", "active", "FOC2231X0A2", ["core"]),
    ("ams-stor-01", "ams-dc1", "active", "SN-ST-77001", ["storage"]),
    ("ams-stor-02", "ams-dc1", "planned", "", ["storage"]),
    ("ams-mon-01", "ams-dc1", "active", "SN-MN-10001", ["monitoring"]),
    ("ams-fw-01", "ams-dc1", "active", "FGT60F0001", ["pci", "core"]),
    ("fra-core-01", "fra-dc2", "active", "FOC2231X0B1", ["core"]),
    ("fra-core-02", "fra-dc2", "offline", "FOC2231X0B2", ["core", "spare"]),
    ("fra-stor-01", "fra-dc2", "active", "SN-ST-77002", ["storage"]),
    ("fra-mon-01", "fra-dc2", "active", "SN-MN-10002", ["monitoring"]),
    ("fra-fw-01", "fra-dc2", "decommissioning", "FGT60F0002", ["pci"]),
    ("lwr-sw-01", "lwr-office", "active", "JN11F2A001", []),
    ("lwr-sw-02", "lwr-office", "active", "JN11F2A002", []),
    ("lwr-ap-01", "lwr-office", "active", "AP-515-0001", ["edge"]),
    ("lwr-ap-02", "lwr-office", "planned", "", ["edge"]),
    ("lwr-printer-01", "lwr-office", "offline", "PRN-0042", []),
    ("lon-edge-01", "lon-edge", "active", "FOC2231X0C1", ["edge"]),
    ("lon-edge-02", "lon-edge", "active", "FOC2231X0C2", ["edge"]),
    ("lon-cache-01", "lon-edge", "active", "SN-CA-30001", ["edge", "storage"]),
    ("lon-mon-01", "lon-edge", "planned", "", ["monitoring"]),
    ("hq-lab-01", "hq-1", "active", "LAB-0001", ["spare"]),
    ("hq-lab-02", "hq-1", "active", "LAB-0002", ["spare"]),
    ("hq-lab-03", "hq-1", "offline", "LAB-0003", []),
    ("hq-mon-01", "hq-1", "active", "SN-MN-10003", ["monitoring"]),
]

#: Namespace of the stable ids of seeded contacts (uuid5 of the email).
CONTACT_NAMESPACE = uuid.UUID("2f6b8f0e-1d2c-4c1a-9a55-3e7d4f0a8b6c")


def set_password(user: User, password: str) -> None:
    """Give ``user`` the public ``password``, from its hash when it fits."""
    encoded, hasher = PASSWORD_HASHES[password], get_hasher()
    if encoded.startswith(f"{hasher.algorithm}$") and not hasher.must_update(encoded):
        user.password = encoded
    else:
        user.set_password(password)


class Command(BaseCommand):
    """Create or update the demo rows; safe to run any number of times."""

    help = "Fill the demo database with contacts, sites, devices and tags."

    @transaction.atomic
    def handle(self, *args: Any, **options: Any) -> None:
        """Write every demo row, keyed so that a second run changes nothing."""
        for first, last, email, phone in CONTACTS:
            Contact.objects.update_or_create(
                id=uuid.uuid5(CONTACT_NAMESPACE, email),
                defaults={
                    "first_name": first,
                    "last_name": last,
                    "email": email,
                    "phone": phone,
                    "notes": f"Seeded demo contact: {first} {last}.",
                },
            )
        for contact_id in EMPTY_CONTACT_IDS:
            Contact.objects.get_or_create(id=contact_id)

        tags = {
            slug: Tag.objects.update_or_create(slug=slug, defaults={"name": name})[0]
            for name, slug in TAGS
        }
        sites = {
            slug: Site.objects.update_or_create(
                slug=slug, defaults={"name": name, "description": description}
            )[0]
            for name, slug, description in SITES
        }
        for name, site_slug, status, serial, tag_slugs in DEVICES:
            device, _ = Device.objects.update_or_create(
                site=sites[site_slug],
                name=name,
                defaults={"status": status, "serial": serial},
            )
            device.tags.set([tags[slug] for slug in tag_slugs])

        self._users()
        self._oauth_client()
        self.stdout.write(
            f"Demo data ready: {Contact.objects.count()} contacts "
            f"({len(EMPTY_CONTACT_IDS)} of them empty), {Site.objects.count()} sites, "
            f"{Device.objects.count()} devices, {Tag.objects.count()} tags.\n"
            f"Users: demo (password demo, may not delete sites), token {DEMO_TOKEN}; "
            f"staff (password staff, may do anything), token {STAFF_TOKEN}.\n"
            "MCP clients send the header  Authorization: Token <token>, or sign "
            f"in with OAuth (pre-registered public client id: {DEMO_CLIENT_ID})."
        )

    def _users(self) -> None:
        """The demo's two users, their permissions and their tokens."""
        demo, _ = User.objects.get_or_create(
            username="demo", defaults={"email": "demo@example.com"}
        )
        set_password(demo, "demo")
        demo.is_staff = demo.is_superuser = False
        demo.save()
        allowed = Permission.objects.filter(
            content_type__app_label__in=["contacts", "dcim"]
        ).exclude(codename="delete_site")
        demo.user_permissions.set(allowed)
        staff, _ = User.objects.get_or_create(
            username="staff", defaults={"email": "staff@example.com"}
        )
        set_password(staff, "staff")
        staff.is_staff = staff.is_superuser = True
        staff.save()
        for user, key in ((demo, DEMO_TOKEN), (staff, STAFF_TOKEN)):
            Token.objects.filter(user=user).exclude(key=key).delete()
            Token.objects.get_or_create(user=user, key=key)

    def _oauth_client(self) -> None:
        """The pre-registered public OAuth client of the demo's server."""
        from oauth2_provider.models import get_application_model

        model = get_application_model()
        model.objects.update_or_create(
            client_id=DEMO_CLIENT_ID,
            defaults={
                "name": "frisian_mcp demo client (pre-registered)",
                "client_type": model.CLIENT_PUBLIC,
                "authorization_grant_type": model.GRANT_AUTHORIZATION_CODE,
                "redirect_uris": " ".join(DEMO_CLIENT_REDIRECT_URIS),
                "skip_authorization": False,
                "user": None,
            },
        )
