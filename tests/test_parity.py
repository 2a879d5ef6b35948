"""REST parity: an MCP call ends as the same REST request does (DESIGN.md §9).

The demo's access policy (token and session authentication, Django model
permissions, ``REQUIRE_AUTHENTICATION`` on) is mounted by ``tests.urls_parity``
with the demo's viewsets, the tag viewset once more behind session
authentication only, and two test-app viewsets: publishers guarded by an
object-level permission (only superusers may change Dutch ones) and books
scoped per user (non-superusers do not see books of restricted publishers, nor
may they refer to those publishers).

For every tool of those viewsets, every caller (anonymous, ``demo`` and
``staff`` from ``seed_demo`` by token, ``demo`` by session login) and
representative payloads (creates valid, invalid and bulk; reads, updates and
deletes of rows the caller may and may not touch, and of a missing row;
lists, plain and filtered), the REST request and the MCP call run on the same
starting data (each inside a savepoint that is rolled back), and must agree
on:

* the verdict: allowed (2xx), invalid (400 / JSON-RPC -32602 argument error),
  denied (401/403; over MCP also the endpoint's own 401, or a tool hidden from
  the caller, which answers as an unknown tool), not found (404);
* the rows stored afterwards (created, changed and deleted rows of every
  model involved);
* what a successful read returns (the same representation, the same rows).

Writes are also run with ``mode: "validate"``: it must reach the same verdict
as the real call and write nothing.
"""

from __future__ import annotations

import datetime
import decimal
import functools
import json
import uuid
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.core.management import call_command
from django.db import models, transaction
from django.test import Client, override_settings
from django.urls import reverse

from demo_project.contacts.models import Contact
from demo_project.dcim.models import Device, Site, Tag
from demo_project.management.commands.seed_demo import DEMO_TOKEN, STAFF_TOKEN
from frisian_mcp.contrib.testing import tool_error
from tests.testapp.models import Book, Publisher
from tests.testapp.views import RESTRICTED_COUNTRY

if TYPE_CHECKING:
    # The stubs' type of a test Client response (with .json()); it exists
    # for type checkers only.
    from django.test.client import _MonkeyPatchedWSGIResponse as TestResponse

pytestmark = pytest.mark.django_db

PROTOCOL_VERSION = "2025-11-25"

#: The demo project's REST_FRAMEWORK policy (demo_project/settings.py).
DEMO_POLICY = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.DjangoModelPermissions"],
}
REQUIRED = {"REQUIRE_AUTHENTICATION": True}
OPEN = {"REQUIRE_AUTHENTICATION": False}

IDENTITIES: dict[str, dict[str, str]] = {
    "anonymous": {},
    "demo": {"Authorization": f"Token {DEMO_TOKEN}"},
    "staff": {"Authorization": f"Token {STAFF_TOKEN}"},
}


@dataclass(frozen=True)
class Caller:
    """Who sends a request: credential headers, or a session login."""

    headers: Mapping[str, str] = field(default_factory=dict)
    login: str | None = None

    def client(self) -> Client:
        client = Client()
        if self.login is not None:
            client.force_login(User.objects.get(username=self.login))
        return client


CALLERS: dict[str, Caller] = {
    **{name: Caller(headers) for name, headers in IDENTITIES.items()},
    "demo (session)": Caller(login="demo"),
}

#: Models whose rows are compared, by app (a call writes within its app).
DCIM: tuple[type[models.Model], ...] = (Site, Device, Tag)
TESTAPP: tuple[type[models.Model], ...] = (Publisher, Book)
MODELS: tuple[type[models.Model], ...] = (Contact, *DCIM, *TESTAPP)

#: JSON-RPC -32602 error codes that stand for "the arguments are invalid".
INPUT_ERROR_CODES = frozenset(
    {
        "invalid_argument",
        "validation_failed",
        "invalid_reference",
        "unknown_argument",
        "nested_wrapper",
        "empty_write",
        "invalid_bulk_body",
    }
)
EXECUTION_VERDICTS = {
    "not_authenticated": "denied",
    "permission_denied": "denied",
    "not_found": "not_found",
}
#: Keys of a representation that differ between two equal writes.
VOLATILE_KEYS = frozenset({"created_at", "updated_at", "uid"})


@pytest.fixture(autouse=True)
def _demo_policy() -> Iterator[None]:
    """The demo's settings: its REST policy, authentication required at /mcp.

    The endpoint authenticates with DEFAULT_AUTHENTICATION_CLASSES, as the
    demo's does; the viewsets of tests.urls_parity carry the policy
    themselves.
    """
    with override_settings(
        ROOT_URLCONF="tests.urls_parity",
        REST_FRAMEWORK={**settings.REST_FRAMEWORK, **DEMO_POLICY},
        FRISIAN_MCP=REQUIRED,
    ):
        yield


# --- the starting data -------------------------------------------------------


@dataclass
class World:
    """Primary keys of the rows the payloads refer to."""

    contact: uuid.UUID
    site: int
    empty_site: int
    device: int
    tag: int
    other_tag: int
    publisher: int
    dutch_publisher: int
    hidden_publisher: int
    book: int
    hidden_book: int


@pytest.fixture(scope="module")
def seeded(django_db_setup: Any, django_db_blocker: Any) -> Iterator[World]:
    """The starting data, written once for the module and rolled back after it.

    Each test runs in its own transaction nested in this one (pytest-django's
    ``db``), so what a test writes is gone before the next test starts.
    """
    with django_db_blocker.unblock(), transaction.atomic():
        yield build_world()
        transaction.set_rollback(True)


@pytest.fixture
def world(seeded: World, db: Any) -> World:
    """The starting data (see ``seeded``), in the test's transaction."""
    return seeded


def build_world() -> World:
    """The demo's seeded rows and users, plus rows for the test-app viewsets."""
    call_command("seed_demo", stdout=_Null())
    publisher = Publisher.objects.create(name="Parity Press", country="BE")
    dutch = Publisher.objects.create(name="Oranje Uitgevers", country="NL")
    hidden = Publisher.objects.create(name="Hidden House", country=RESTRICTED_COUNTRY)
    return World(
        contact=Contact.objects.get(email="ada.lovelace@example.com").pk,
        site=Site.objects.get(slug="hq-1").pk,
        # Sites with devices are protected from deletion; this one has none.
        empty_site=Site.objects.create(name="Parity Empty", slug="parity-empty").pk,
        device=Device.objects.get(name="hq-lab-01").pk,
        tag=Tag.objects.get(slug="spare").pk,
        other_tag=Tag.objects.get(slug="core").pk,
        publisher=publisher.pk,
        dutch_publisher=dutch.pk,
        hidden_publisher=hidden.pk,
        book=Book.objects.create(
            title="Seen", isbn="9780000000011", publisher=publisher
        ).pk,
        hidden_book=Book.objects.create(
            title="Unseen", isbn="9780000000012", publisher=hidden
        ).pk,
    )


# --- the payloads ------------------------------------------------------------

Body = Callable[[World], dict[str, Any]]
Key = Callable[[World], Any]


@dataclass(frozen=True)
class Resource:
    """One viewset: its tool prefix, REST path and representative payloads.

    ``rows`` name existing rows; ``creates`` are create bodies by variant,
    ``bulk`` two valid bodies (one MCP bulk create against two REST POSTs);
    ``update`` is a full PUT body; ``patches`` are PATCH bodies by variant:
    ``valid`` goes to every row and the missing one, the others to every row;
    ``filters`` is a list filter.
    """

    tool: str
    path: str
    rows: Mapping[str, Key]
    missing: Any
    creates: Mapping[str, Body]
    bulk: Callable[[World], list[dict[str, Any]]]
    update: Body
    patches: Mapping[str, Body]
    #: The models whose rows a call may change (its app's).
    models: tuple[type[models.Model], ...]
    filters: Mapping[str, str] = field(default_factory=dict)


def tag_resource(tool: str, path: str) -> Resource:
    """Payloads of a tag viewset."""
    return Resource(
        tool=tool,
        path=path,
        rows={"existing": lambda w: w.tag},
        missing=987654,
        creates={
            "valid": lambda w: {"name": "parity", "slug": "parity"},
            "invalid": lambda w: {"name": "bad slug", "slug": "bad slug!"},
        },
        bulk=lambda w: [
            {"name": "parity-1", "slug": "parity-1"},
            {"name": "parity-2", "slug": "parity-2"},
        ],
        update=lambda w: {"name": "renamed", "slug": "renamed"},
        patches={
            "valid": lambda w: {"name": "spare-parts"},
            "invalid": lambda w: {"name": "core"},  # taken: a unique field
        },
        models=DCIM,
        filters={"slug": "core"},
    )


RESOURCES: tuple[Resource, ...] = (
    Resource(
        tool="contacts",
        path="/api/contacts/",
        rows={"existing": lambda w: w.contact},
        missing=uuid.UUID("00000000-0000-4000-8000-00000000dead"),
        creates={
            "valid": lambda w: {"email": "new@example.com", "first_name": "New"},
            "invalid": lambda w: {"email": "not-an-email", "first_name": "Bad"},
        },
        bulk=lambda w: [{"email": "one@example.com"}, {"first_name": "Two"}],
        update=lambda w: {
            "email": "put@example.com",
            "first_name": "Put",
            "last_name": "Row",
            "phone": "+31 58 555 0100",
            "notes": "replaced",
        },
        patches={
            "valid": lambda w: {"notes": "patched"},
            "invalid": lambda w: {"email": "not-an-email"},
        },
        models=(Contact,),
        filters={"last_name": "Hopper"},
    ),
    Resource(
        tool="dcim__sites",
        path="/api/dcim/sites/",
        rows={"existing": lambda w: w.empty_site},
        missing=987654,
        creates={
            "valid": lambda w: {"name": "Parity New", "slug": "parity-new"},
            "invalid": lambda w: {"name": "No Slug"},
        },
        bulk=lambda w: [
            {"name": "Parity One", "slug": "parity-one"},
            {"name": "Parity Two", "slug": "parity-two", "description": "2"},
        ],
        update=lambda w: {
            "name": "Parity Put",
            "slug": "parity-put",
            "description": "replaced",
        },
        patches={
            "valid": lambda w: {"description": "patched"},
            "invalid": lambda w: {"slug": "hq-1"},  # taken: a unique field
        },
        models=DCIM,
        filters={"slug": "hq-1"},
    ),
    Resource(
        tool="dcim__devices",
        path="/api/dcim/devices/",
        rows={"existing": lambda w: w.device},
        missing=987654,
        creates={
            "valid": lambda w: {
                "name": "parity-new-01",
                "site": w.site,
                "status": "planned",
                "tags": [w.tag, w.other_tag],
            },
            "invalid": lambda w: {
                "name": "parity-bad-01",
                "site": w.site,
                "status": "exploded",
            },
        },
        bulk=lambda w: [
            {"name": "parity-bulk-01", "site": w.site, "tags": [w.tag]},
            {"name": "parity-bulk-02", "site": w.empty_site, "status": "offline"},
        ],
        update=lambda w: {
            "name": "parity-put-01",
            "site": w.empty_site,
            "status": "offline",
            "serial": "SN-PUT",
            "tags": [w.other_tag],
        },
        patches={
            "valid": lambda w: {"status": "offline", "tags": []},
            "invalid": lambda w: {"site": 987654},
        },
        models=DCIM,
        filters={"status": "offline"},
    ),
    tag_resource("dcim__tags", "/api/dcim/tags/"),
    # The same tags behind session authentication only: a token is no
    # credential there, over REST or MCP.
    tag_resource("dcim__session-tags", "/api/dcim/session-tags/"),
    Resource(
        tool="testapp__guarded-publishers",
        path="/api/testapp/guarded-publishers/",
        rows={"existing": lambda w: w.publisher, "dutch": lambda w: w.dutch_publisher},
        missing=987654,
        creates={
            # Creating a Dutch publisher involves no object, so it is allowed.
            "valid": lambda w: {"name": "Nieuwe Uitgever", "country": "NL"},
            "invalid": lambda w: {"name": "Lower Case", "country": "nl"},
        },
        bulk=lambda w: [
            {"name": "Bulk Een", "country": "NL"},
            {"name": "Bulk Two", "code": "B2"},
        ],
        update=lambda w: {"name": "Renamed Press", "country": "DE", "code": None},
        patches={
            "valid": lambda w: {"country": "DE"},
            # Refused by the serializer (validate_country)...
            "invalid": lambda w: {"country": "de"},
            # ...and by the inputSchema (maxLength 100).
            "too-long": lambda w: {"name": "x" * 101},
        },
        models=TESTAPP,
    ),
    Resource(
        tool="testapp__scoped-books",
        path="/api/testapp/scoped-books/",
        rows={"existing": lambda w: w.book, "hidden": lambda w: w.hidden_book},
        missing=987654,
        creates={
            "valid": lambda w: {
                "title": "Fresh",
                "isbn": "9780000000021",
                "publisher": w.publisher,
                "price": "12.50",
            },
            "invalid": lambda w: {"title": "No ISBN"},
            # The publisher exists, but only superusers may see it.
            "hidden-publisher": lambda w: {
                "title": "Smuggled",
                "isbn": "9780000000022",
                "publisher": w.hidden_publisher,
            },
        },
        bulk=lambda w: [
            {"title": "Bulk A", "isbn": "9780000000024", "publisher": w.publisher},
            {"title": "Bulk B", "isbn": "9780000000025", "pages": 321},
        ],
        update=lambda w: {
            "title": "Replaced",
            "isbn": "9780000000023",
            "publisher": w.dutch_publisher,
            "genre": "history",
        },
        patches={
            "valid": lambda w: {"title": "Retitled"},
            "invalid": lambda w: {"pages": 20000},
            "hidden-publisher": lambda w: {"publisher": w.hidden_publisher},
        },
        models=TESTAPP,
    ),
)
ACTIONS = ("list", "retrieve", "create", "update", "partial_update", "destroy")
METHODS = {
    "list": "GET",
    "retrieve": "GET",
    "create": "POST",
    "update": "PUT",
    "partial_update": "PATCH",
    "destroy": "DELETE",
}
WRITES = frozenset({"create", "update", "partial_update"})


@dataclass(frozen=True)
class Request:
    """One request, as REST sends it and as MCP arguments."""

    variant: str
    action: str
    pk: Any = None
    body: dict[str, Any] | None = None
    #: A bulk create: one MCP call, one REST POST per item.
    items: list[dict[str, Any]] | None = None
    #: List filters: the query string over REST, ``filters`` over MCP.
    query: dict[str, str] | None = None

    def path(self, resource: Resource) -> str:
        path = resource.path if self.pk is None else f"{resource.path}{self.pk}/"
        return f"{path}?{urlencode(self.query)}" if self.query else path

    def bodies(self) -> list[dict[str, Any] | None]:
        return list(self.items) if self.items is not None else [self.body]

    def arguments(self) -> dict[str, Any]:
        if self.items is not None:
            return {"objects": self.items}
        arguments = dict(self.body or {})
        if self.pk is not None:
            arguments["id"] = (
                str(self.pk) if isinstance(self.pk, uuid.UUID) else self.pk
            )
        if self.action == "list":
            arguments["page_size"] = 200
        if self.query:
            arguments["filters"] = self.query
        return arguments


def requests_for(resource: Resource, action: str, world: World) -> list[Request]:
    """The representative payloads of one tool."""
    rows = {name: key(world) for name, key in resource.rows.items()}
    if action == "list":
        requests = [Request("all", action)]
        if resource.filters:
            requests.append(Request("filtered", action, query=dict(resource.filters)))
        return requests
    if action == "create":
        return [
            *(Request(n, action, body=b(world)) for n, b in resource.creates.items()),
            Request("bulk", action, items=resource.bulk(world)),
        ]
    if action == "partial_update":
        return [
            *(
                Request(f"{patch}:{name}", action, pk, body(world))
                for patch, body in resource.patches.items()
                for name, pk in rows.items()
            ),
            Request(
                "missing", action, resource.missing, resource.patches["valid"](world)
            ),
        ]
    body = resource.update(world) if action == "update" else None
    return [
        *(Request(f"row:{name}", action, pk, body) for name, pk in rows.items()),
        Request("missing", action, resource.missing, body),
    ]


# --- outcomes ----------------------------------------------------------------


@dataclass
class Outcome:
    """What one request ended in: verdict, wire detail, row changes, payload."""

    verdict: str
    detail: str
    changes: dict[str, Any] = field(default_factory=dict)
    payload: Any = None

    def __str__(self) -> str:
        return f"{self.verdict} ({self.detail}) rows={self.changes or 'unchanged'}"


def rest_verdict(status: int) -> str:
    if 200 <= status < 300:
        return "ok"
    return {400: "invalid", 401: "denied", 403: "denied", 404: "not_found"}.get(
        status, f"HTTP {status}"
    )


def rest_request(
    client: Client,
    headers: Mapping[str, str],
    method: str,
    path: str,
    body: Any = None,
) -> TestResponse:
    return client.generic(
        method,
        path,
        data=json.dumps(body) if body is not None else "",
        content_type="application/json",
        headers={"Accept": "application/json", **headers},
    )


def rest_outcome(
    client: Client, headers: Mapping[str, str], resource: Resource, request: Request
) -> Outcome:
    method, path = METHODS[request.action], request.path(resource)
    outcome = Outcome("ok", "")
    for body in request.bodies():
        response = rest_request(client, headers, method, path, body)
        verdict = rest_verdict(response.status_code)
        payload = response.json() if response.content else None
        outcome = Outcome(verdict, f"HTTP {response.status_code}", payload=payload)
        if verdict != "ok":
            return outcome
    if request.action == "list":
        # Every page, so the whole visible set is compared.
        rows = list(outcome.payload["results"])
        page = 1
        while outcome.payload.get("next"):
            page += 1
            paged = f"{path}{'&' if '?' in path else '?'}page={page}"
            outcome.payload = rest_request(client, headers, "GET", paged).json()
            rows.extend(outcome.payload["results"])
        outcome.payload = rows
    return outcome


def mcp_post(
    client: Client, headers: Mapping[str, str], method: str, params: dict[str, Any]
) -> TestResponse:
    return client.post(
        reverse("frisian_mcp:endpoint"),
        data=json.dumps(
            {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
        ),
        content_type="application/json",
        headers={
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": PROTOCOL_VERSION,
            **headers,
        },
    )


def mcp_outcome(
    client: Client, headers: Mapping[str, str], name: str, arguments: dict[str, Any]
) -> Outcome:
    response = mcp_post(
        client, headers, "tools/call", {"name": name, "arguments": arguments}
    )
    body = response.json()
    if response.status_code != 200:
        code = (body.get("error", {}).get("data") or {}).get("code")
        verdict = "denied" if response.status_code in (401, 403) else "error"
        return Outcome(verdict, f"endpoint HTTP {response.status_code} {code}")
    if "error" in body:
        error = body["error"]
        code = (error.get("data") or {}).get("code")
        detail = f"JSON-RPC {error['code']} {code}"
        if code == "unknown_tool":
            # Every tool here exists (staff sees it): unknown means hidden.
            return Outcome("denied", detail)
        if error["code"] == -32602 and code in INPUT_ERROR_CODES:
            return Outcome("invalid", detail)
        return Outcome(detail, detail)
    result = body["result"]
    structured = result.get("structuredContent")
    if result.get("isError"):
        code = tool_error(result)["code"]
        return Outcome(EXECUTION_VERDICTS.get(code, code), f"isError {code}")
    return Outcome("ok", "result", payload=structured)


# --- rows --------------------------------------------------------------------


_JSON_TYPES = frozenset({str, int, bool, type(None)})


def _plain(value: Any) -> Any:
    if isinstance(value, uuid.UUID | decimal.Decimal):
        return str(value)
    if isinstance(value, datetime.date | datetime.datetime):
        return value.isoformat()
    return value


def _volatile(f: models.Field[Any, Any]) -> bool:
    return bool(getattr(f, "auto_now", False) or getattr(f, "auto_now_add", False))


def _generated(f: models.Field[Any, Any]) -> bool:
    """A value the database or a default makes up for each new row."""
    return bool(f.primary_key or (not f.editable and f.has_default()))


def snapshot(
    models_: tuple[type[models.Model], ...] = MODELS,
) -> dict[str, dict[Any, dict[str, Any]]]:
    """Every row of ``models_``: concrete fields (timestamps aside) and M2M ids."""
    state: dict[str, dict[Any, dict[str, Any]]] = {}
    for model in models_:
        names = [f.attname for f in model._meta.concrete_fields if not _volatile(f)]
        pk = model._meta.pk.attname
        rows = {
            row[pk]: {
                k: v if type(v) in _JSON_TYPES else _plain(v) for k, v in row.items()
            }
            for row in model._base_manager.values(*names)
        }
        for f in model._meta.many_to_many:
            for row in rows.values():
                row[f.name] = []
            through = f.remote_field.through
            assert through is not None  # set on every M2M once the apps load
            pairs = through._base_manager.values_list(
                f.m2m_field_name(), f.m2m_reverse_field_name()
            )
            for owner, other in pairs.order_by(f.m2m_reverse_field_name()):
                rows[owner][f.name].append(other)
        state[model._meta.label] = rows
    return state


def changes(
    before: dict[str, dict[Any, dict[str, Any]]],
    after: dict[str, dict[Any, dict[str, Any]]],
) -> dict[str, Any]:
    """Created (without generated values), changed and deleted rows per model."""
    result: dict[str, Any] = {}
    for model in (m for m in MODELS if m._meta.label in before):
        label = model._meta.label
        old, new = before[label], after[label]
        generated = {f.attname for f in model._meta.concrete_fields if _generated(f)}
        entry: dict[str, Any] = {}
        deleted = sorted(str(pk) for pk in old.keys() - new.keys())
        changed = {
            str(pk): {k: v for k, v in new[pk].items() if old[pk].get(k) != v}
            for pk in old.keys() & new.keys()
            if old[pk] != new[pk]
        }
        created = sorted(
            (
                {k: v for k, v in new[pk].items() if k not in generated}
                for pk in new.keys() - old.keys()
            ),
            key=repr,
        )
        if deleted:
            entry["deleted"] = deleted
        if changed:
            entry["changed"] = changed
        if created:
            entry["created"] = created
        if entry:
            result[label] = entry
    return result


def in_savepoint(
    run: Callable[[], Outcome],
    before: dict[str, dict[Any, dict[str, Any]]],
    models_: tuple[type[models.Model], ...] = MODELS,
) -> Outcome:
    """Run ``run`` on the starting data; record its row changes; undo them."""
    with transaction.atomic():
        outcome = run()
        outcome.changes = changes(before, snapshot(models_))
        transaction.set_rollback(True)
    return outcome


# --- comparing -------------------------------------------------------------


def _comparable(payload: Any, *, created: bool) -> Any:
    drop = VOLATILE_KEYS | ({"id"} if created else set())
    if isinstance(payload, dict):
        return {k: v for k, v in payload.items() if k not in drop}
    return payload


def payload_mismatch(action: str, rest: Outcome, mcp: Outcome) -> str | None:
    """How successful payloads differ, or ``None``."""
    if rest.verdict != "ok" or mcp.verdict != "ok" or action == "destroy":
        return None
    if action == "list":
        rest_rows = {str(row["id"]): row for row in rest.payload}
        mcp_rows = {str(row["id"]): row for row in mcp.payload["results"]}
        if mcp.payload["count"] != len(rest_rows) or mcp.payload["has_more"]:
            return f"list count REST {len(rest_rows)} != MCP {mcp.payload['count']}"
        if rest_rows.keys() != mcp_rows.keys():
            only_rest = sorted(rest_rows.keys() - mcp_rows.keys())
            only_mcp = sorted(mcp_rows.keys() - rest_rows.keys())
            return f"list rows differ: only REST {only_rest}, only MCP {only_mcp}"
        if rest_rows != mcp_rows:
            return "list representations differ"
        return None
    created = action == "create"
    if _comparable(rest.payload, created=created) != _comparable(
        mcp.payload, created=created
    ):
        return f"payload REST {rest.payload!r} != MCP {mcp.payload!r}"
    return None


def compare(
    resource: Resource, action: str, world: World, callers: Mapping[str, Caller]
) -> list[str]:
    """Run every payload of one tool as every caller; list the disagreements."""
    tool = f"{resource.tool}__{action}"
    before = snapshot(resource.models)
    mismatches: list[str] = []
    for identity, caller in callers.items():
        client, headers = caller.client(), caller.headers
        for request in requests_for(resource, action, world):
            run = functools.partial(
                in_savepoint, before=before, models_=resource.models
            )
            rest = run(
                functools.partial(rest_outcome, client, headers, resource, request)
            )
            arguments = request.arguments()
            mcp = run(functools.partial(mcp_outcome, client, headers, tool, arguments))
            where = f"{tool} as {identity}, {request.variant}"
            if (rest.verdict, rest.changes) != (mcp.verdict, mcp.changes):
                mismatches.append(f"{where}: REST {rest} but MCP {mcp}")
                continue
            # A bulk create answers differently from its POSTs; rows suffice.
            problem = None if request.items else payload_mismatch(action, rest, mcp)
            if problem:
                mismatches.append(f"{where}: {problem}")
            if action in WRITES:
                arguments = {**arguments, "mode": "validate"}
                checked = run(
                    functools.partial(mcp_outcome, client, headers, tool, arguments)
                )
                if checked.verdict != rest.verdict or checked.changes:
                    mismatches.append(
                        f"{where}: REST {rest} but MCP mode=validate {checked}"
                    )
    return mismatches


# --- the matrix --------------------------------------------------------------


@pytest.mark.parametrize("action", ACTIONS)
@pytest.mark.parametrize("resource", RESOURCES, ids=lambda r: r.tool)
def test_mcp_outcome_equals_rest_outcome(
    world: World, resource: Resource, action: str
) -> None:
    mismatches = compare(resource, action, world, CALLERS)
    assert not mismatches, "\n".join(mismatches)


@pytest.mark.parametrize("filtered", [True, False], ids=["hidden", "viewset-refuses"])
@pytest.mark.parametrize("resource", RESOURCES, ids=lambda r: r.tool)
def test_anonymous_outcome_equals_rest_when_the_endpoint_lets_anyone_in(
    world: World, resource: Resource, filtered: bool
) -> None:
    # REQUIRE_AUTHENTICATION off: the tools are hidden from the anonymous
    # caller, or, with filtering off, the viewsets' own permission classes
    # must refuse it, as they do over REST (also before argument errors).
    mismatches: list[str] = []
    options = {**OPEN, "FILTER_TOOLS_BY_PERMISSION": filtered}
    with override_settings(FRISIAN_MCP=options):
        for action in ACTIONS:
            mismatches += compare(
                resource, action, world, {"anonymous": CALLERS["anonymous"]}
            )
    assert not mismatches, "\n".join(mismatches)


def tool_names(headers: Mapping[str, str], client: Client | None = None) -> set[str]:
    client = client or Client()
    names: set[str] = set()
    params: dict[str, Any] = {}
    while True:
        response = mcp_post(client, headers, "tools/list", params)
        assert response.status_code == 200, response.content
        result = response.json()["result"]
        names |= {tool["name"] for tool in result["tools"]}
        if not result.get("nextCursor"):
            return names
        params = {"cursor": result["nextCursor"]}


def test_the_matrix_covers_every_tool_staff_can_see(world: World) -> None:
    # A session login passes every view's authentication classes.
    listed = tool_names({}, Caller(login="staff").client())
    covered = {f"{r.tool}__{a}" for r in RESOURCES for a in ACTIONS}
    assert listed == covered
    assert {n.split("__")[0] for n in listed} == {"contacts", "dcim", "testapp"}


# --- tools/list per caller ---------------------------------------------------


def test_demo_user_is_not_shown_the_site_destroy_tool(world: World) -> None:
    staff = tool_names(IDENTITIES["staff"])
    demo = tool_names(IDENTITIES["demo"])
    assert "dcim__sites__destroy" in staff
    # demo has every contacts and dcim permission but dcim.delete_site.
    assert staff - demo == {"dcim__sites__destroy"}
    assert demo <= staff


def test_anonymous_tools_list_is_401_with_token_challenge(world: World) -> None:
    response = mcp_post(Client(), {}, "tools/list", {})
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"
    body = response.json()
    assert body["jsonrpc"] == "2.0"
    assert body["error"]["code"] == -32600
    assert body["error"]["data"] == {"code": "not_authenticated"}
    rest = rest_request(Client(), {}, "GET", "/api/dcim/sites/")
    assert rest.status_code == 401
    assert rest["WWW-Authenticate"] == response["WWW-Authenticate"]


def test_a_session_login_sees_the_tools_of_its_permissions(world: World) -> None:
    staff = tool_names({}, Caller(login="staff").client())
    demo = tool_names({}, Caller(login="demo").client())
    assert staff - demo == {"dcim__sites__destroy"}


# --- a hidden tool is an unknown tool ----------------------------------------


def call_error(headers: Mapping[str, str], name: str, arguments: Any) -> Any:
    response = mcp_post(
        Client(), headers, "tools/call", {"name": name, "arguments": arguments}
    )
    assert response.status_code == 200
    body = response.json()
    assert "error" in body, body
    return body["error"]


@pytest.mark.parametrize("valid", [True, False], ids=["valid-arguments", "no-id"])
def test_hidden_tool_answers_exactly_as_an_unknown_tool(
    world: World, valid: bool
) -> None:
    demo = IDENTITIES["demo"]
    arguments = {"id": world.empty_site} if valid else {}
    before = snapshot()
    hidden = call_error(demo, "dcim__sites__destroy", arguments)
    unknown = call_error(demo, "dcim__sites__obliterate", arguments)
    assert changes(before, snapshot()) == {}
    assert hidden["code"] == unknown["code"] == -32602
    assert hidden["data"]["code"] == unknown["data"]["code"] == "unknown_tool"
    assert hidden.keys() == unknown.keys()
    assert hidden["data"].keys() == unknown["data"].keys()
    assert hidden["data"]["tool"] is unknown["data"]["tool"] is None
    assert hidden["data"]["hint"] == unknown["data"]["hint"]
    assert hidden["message"].split(".")[0] == unknown["message"].split(".")[0]
    for error in (hidden, unknown):
        assert "dcim__sites__destroy" not in json.dumps(error)
    rest = rest_request(
        Client(), demo, "DELETE", f"/api/dcim/sites/{world.empty_site}/"
    )
    assert rest.status_code == 403
    assert changes(before, snapshot()) == {}


# --- foreign keys respect the related queryset -------------------------------

BOOKS = "testapp__scoped-books"


def test_lookup_object_cannot_resolve_a_publisher_the_caller_cannot_see(
    world: World,
) -> None:
    demo, staff = IDENTITIES["demo"], IDENTITIES["staff"]
    before = snapshot()

    def create(headers: Mapping[str, str], publisher: Any) -> Any:
        arguments = {"title": "Via Lookup", "isbn": "9780000000031"}
        return mcp_post(
            Client(),
            headers,
            "tools/call",
            {
                "name": f"{BOOKS}__create",
                "arguments": {**arguments, "publisher": publisher},
            },
        ).json()

    hidden = create(demo, {"name": "Hidden House"})
    nowhere = create(demo, {"name": "No Such House"})
    assert changes(before, snapshot()) == {}
    assert hidden["error"]["data"]["code"] == "invalid_reference"
    # Nothing tells a hidden row from a missing one: no existence oracle.
    assert hidden["error"] == nowhere["error"]
    assert "Hidden House" not in json.dumps(hidden)

    allowed = create(staff, {"name": "Hidden House"})
    assert allowed["result"]["isError"] is False
    assert Book.objects.get(isbn="9780000000031").publisher_id == world.hidden_publisher


def test_id_of_a_publisher_the_caller_cannot_see_fails_as_over_rest(
    world: World,
) -> None:
    demo = IDENTITIES["demo"]
    before = snapshot()
    arguments = {"title": "Via Id", "isbn": "9780000000032"}
    errors = {}
    for name, pk in (("hidden", world.hidden_publisher), ("missing", 987654)):
        errors[name] = call_error(
            demo, f"{BOOKS}__create", {**arguments, "publisher": pk}
        )
        rest = rest_request(
            Client(),
            demo,
            "POST",
            "/api/testapp/scoped-books/",
            {**arguments, "publisher": pk},
        )
        assert rest.status_code == 400
        assert rest.json()["publisher"]
        field = errors[name]["data"]["fields"][0]
        assert (field["field"], field["code"]) == ("publisher", "does_not_exist")
    assert changes(before, snapshot()) == {}
    assert errors["hidden"] == errors["missing"]


def test_updates_cannot_point_at_a_hidden_publisher_through_a_lookup(
    world: World,
) -> None:
    before = snapshot()
    error = call_error(
        IDENTITIES["demo"],
        f"{BOOKS}__partial_update",
        {"id": world.book, "publisher": {"name": "Hidden House"}},
    )
    assert error["data"]["code"] == "invalid_reference"
    assert changes(before, snapshot()) == {}


# --- the dispatcher layout ---------------------------------------------------


@pytest.fixture
def dispatchers() -> Iterator[None]:
    with override_settings(FRISIAN_MCP={**REQUIRED, "TOOL_LAYOUT": "dispatcher"}):
        yield


def dispatcher_help(headers: Mapping[str, str], name: str) -> dict[str, list[str]]:
    response = mcp_post(
        Client(), headers, "tools/call", {"name": name, "arguments": {"help": True}}
    )
    resources: dict[str, list[str]] = response.json()["result"]["structuredContent"][
        "help"
    ]["resources"]
    return resources


def test_dispatchers_list_only_what_the_caller_may_do(
    world: World, dispatchers: None
) -> None:
    demo, staff = IDENTITIES["demo"], IDENTITIES["staff"]
    assert tool_names(demo) == tool_names(staff) == {"contacts", "dcim", "testapp"}
    staff_routes = dispatcher_help(staff, "dcim")
    demo_routes = dispatcher_help(demo, "dcim")
    assert "destroy" in staff_routes["sites"]
    assert demo_routes["sites"] == [a for a in staff_routes["sites"] if a != "destroy"]
    assert {k: v for k, v in demo_routes.items() if k != "sites"} == {
        k: v for k, v in staff_routes.items() if k != "sites"
    }
    listed = {
        tool["name"]: tool
        for tool in mcp_post(Client(), demo, "tools/list", {}).json()["result"]["tools"]
    }
    description = listed["dcim"]["description"]
    assert "offers create, list, partial_update, retrieve, update." in description
    assert "sites also" not in description


def test_dispatcher_refuses_a_hidden_action_as_any_unknown_action(
    world: World, dispatchers: None
) -> None:
    demo = IDENTITIES["demo"]
    before = snapshot()
    target = {"resource": "sites", "id": world.empty_site}
    hidden = call_error(demo, "dcim", {**target, "action": "destroy"})
    unknown = call_error(demo, "dcim", {**target, "action": "obliterate"})
    assert changes(before, snapshot()) == {}
    assert hidden == unknown
    assert hidden["data"]["code"] == "invalid_argument"

    response = mcp_post(
        Client(),
        IDENTITIES["staff"],
        "tools/call",
        {"name": "dcim", "arguments": {**target, "action": "destroy"}},
    )
    assert response.json()["result"]["isError"] is False
    assert not Site.objects.filter(pk=world.empty_site).exists()


def test_dispatcher_applies_object_permissions_as_rest_does(
    world: World, dispatchers: None
) -> None:
    demo = IDENTITIES["demo"]
    before = snapshot()
    arguments = {
        "resource": "guarded-publishers",
        "action": "partial_update",
        "id": world.dutch_publisher,
        "country": "DE",
    }
    response = mcp_post(
        Client(), demo, "tools/call", {"name": "testapp", "arguments": arguments}
    )
    result = response.json()["result"]
    assert result["isError"] is True
    assert tool_error(result)["code"] == "permission_denied"
    assert changes(before, snapshot()) == {}
    rest = rest_request(
        Client(),
        demo,
        "PATCH",
        f"/api/testapp/guarded-publishers/{world.dutch_publisher}/",
        {"country": "DE"},
    )
    assert rest.status_code == 403
    assert changes(before, snapshot()) == {}


class _Null:
    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        pass
