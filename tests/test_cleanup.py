"""The frisian_mcp_cleanup management command (issue #5, DESIGN.md §10).

Most tests run the command with ``call_command`` against the seeded demo data
(three empty contacts, ids starting 6b7e67eb, c123f361, b1b58efa) and check
the database afterwards; rows that must survive are made, where it fits, by
real MCP calls through the endpoint. The last tests run ``manage.py`` in a
subprocess on a throw-away demo database for the real exit codes.

This module is also the URLconf of its tests (fixture ``demo_urls``): the
demo API, the test app's publishers and books, and a viewset of
``testapp.CleanupTicket``, a model whose defaults exercise the emptiness
rules (generated values, callable defaults, a serializer default).
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.contrib.contenttypes.models import ContentType
from django.contrib.sessions.models import Session
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import DatabaseError, connection, models
from django.db.models.functions import Now
from django.db.models.signals import pre_delete
from django.test.utils import CaptureQueriesContext
from django.urls import include, path
from rest_framework import serializers, viewsets
from rest_framework.routers import DefaultRouter

from demo_project.contacts.models import Contact
from demo_project.contacts.views import ContactViewSet
from demo_project.dcim.models import Device, Site, Tag
from demo_project.dcim.views import DeviceViewSet, SiteViewSet, TagViewSet
from demo_project.management.commands.seed_demo import EMPTY_CONTACT_IDS
from frisian_mcp.contrib.cleanup import runs as cleanup
from frisian_mcp.contrib.cleanup.management.commands import frisian_mcp_cleanup
from frisian_mcp.contrib.cleanup.plans import ModelPlan, build_plan, field_check
from frisian_mcp.contrib.cleanup.runs import Candidate, id_matches
from frisian_mcp.contrib.testing import MCPTestClient
from tests.live import ROOT, demo_database, demo_sqlite
from tests.testapp import views as testapp_views
from tests.testapp.models import Book, CleanupNote, CleanupTicket, Publisher

EMPTY = {str(pk) for pk in EMPTY_CONTACT_IDS}
CONTACT_FIELDS = ("email", "first_name", "last_name", "phone", "notes")
#: Generic relations that may point at any row: django-guardian's object
#: permissions (installed for the guarded host app) and the test app's note.
GENERIC = [
    "generic.IPAddress.assigned_object",
    "guardian.GroupObjectPermission.content_object",
    "guardian.UserObjectPermission.content_object",
    "testapp.CleanupNote.target",
]


# -- a URLconf exposing CleanupTicket -----------------------------------------


class TicketSerializer(serializers.ModelSerializer[CleanupTicket]):
    """Writes every ticket field; an omitted title becomes "untitled"."""

    title = serializers.CharField(max_length=100, allow_blank=True, default="untitled")

    class Meta:
        model = CleanupTicket
        fields: tuple[str, ...] = (
            "id",
            "title",
            "reference",
            "opened",
            "labels",
            "priority",
            "due",
        )
        fields += ("parent",)


class TicketViewSet(viewsets.ModelViewSet[CleanupTicket]):
    """Tickets, for the cleanup tests only."""

    queryset = CleanupTicket.objects.all()
    serializer_class = TicketSerializer


_router = DefaultRouter()
_router.register("contacts", ContactViewSet)
_router.register("dcim/sites", SiteViewSet)
_router.register("dcim/devices", DeviceViewSet)
_router.register("dcim/tags", TagViewSet)
_router.register("testapp/publishers", testapp_views.PublisherViewSet)
_router.register("testapp/books", testapp_views.BookViewSet)
_router.register("cleanup/tickets", TicketViewSet)
urlpatterns = [
    path("api/", include(_router.urls)),
    path("mcp", include("frisian_mcp.urls")),
]


# -- helpers -------------------------------------------------------------------


def run(*args: str) -> tuple[str, str]:
    """Run the command; return its stdout and stderr."""
    out, err = StringIO(), StringIO()
    call_command("frisian_mcp_cleanup", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def run_json(*args: str) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(run("--format", "json", *args)[0])
    return document


def table_rows(text: str) -> list[tuple[str, str, str]]:
    """(model, pk, status) of each row of the table output."""
    lines = text.splitlines()
    if not lines or not lines[0].startswith("MODEL "):
        return []
    rows = []
    for line in lines[1:]:
        parts = line.split()
        if len(parts) < 5 or parts[3] not in ("candidate", "deleted", "kept", "failed"):
            break
        rows.append((parts[0], parts[1], parts[3]))
    return rows


def found(document: dict[str, Any], model: str = "contacts.Contact") -> set[str]:
    return {str(row["pk"]) for row in document["rows"] if row["model"] == model}


def contact_ids() -> set[str]:
    return {str(pk) for pk in Contact.objects.values_list("pk", flat=True)}


def snapshot() -> dict[str, set[Any]]:
    """Every key of every demo table, to prove nothing else was deleted."""
    return {
        "contacts": contact_ids(),
        "sites": set(Site.objects.values_list("pk", flat=True)),
        "devices": set(Device.objects.values_list("pk", flat=True)),
        "tags": set(Tag.objects.values_list("pk", flat=True)),
        "device_tags": set(Device.tags.through.objects.values_list("pk", flat=True)),
        "users": set(User.objects.values_list("pk", flat=True)),
        "notes": set(CleanupNote.objects.values_list("pk", flat=True)),
    }


def note_on(row: Any) -> CleanupNote:
    """A generic-foreign-key reference to ``row``."""
    return CleanupNote.objects.create(
        content_type=ContentType.objects.get_for_model(row),
        object_id=str(row.pk),
        text="see this",
    )


def between_scan_and_delete(
    monkeypatch: pytest.MonkeyPatch, change: Callable[[Candidate], None]
) -> list[int]:
    """Call ``change`` on each row of a batch after the scan, before its delete.

    Returns the list the batch sizes are appended to.
    """
    original = cleanup.delete_batch
    sizes: list[int] = []

    def delete_batch(
        plan: ModelPlan, batch: list[Candidate], *, using: str, **kwargs: Any
    ) -> tuple[list[Candidate], list[Candidate]]:
        sizes.append(len(batch))
        for candidate in batch:
            change(candidate)
        return original(plan, batch, using=using, **kwargs)

    monkeypatch.setattr(cleanup, "delete_batch", delete_batch)
    return sizes


@pytest.fixture
def demo_urls(settings: Any) -> None:
    """Serve this module's URLconf (demo API + tickets); the registry follows."""
    settings.ROOT_URLCONF = __name__


@pytest.fixture
def wire(demo_urls: None, db: Any) -> MCPTestClient:
    """An initialized MCP client on this module's URLconf."""
    client = MCPTestClient()
    client.initialize()
    return client


def call_ok(mcp: MCPTestClient, name: str, arguments: dict[str, Any]) -> Any:
    result = mcp.call_tool(name, arguments)
    assert result["isError"] is False, result
    return result["structuredContent"]


pytestmark = pytest.mark.usefixtures("demo_urls")


# -- the seeded demo rows ------------------------------------------------------


def test_dry_run_finds_exactly_the_three_seeded_rows(demo_data: None) -> None:
    before = snapshot()
    out, err = run()
    assert sorted(pk for _, pk, _ in table_rows(out)) == sorted(EMPTY)
    assert {(model, status) for model, _, status in table_rows(out)} == {
        ("contacts.Contact", "candidate")
    }
    assert "3 orphaned empty row(s) in 1 model(s); dry run, nothing deleted" in out
    assert err == ""
    assert snapshot() == before


def test_delete_yes_removes_exactly_the_seeded_rows(
    demo_data: None,
) -> None:
    before = snapshot()
    out, _ = run("--delete", "--yes")
    assert sorted(pk for _, pk, _ in table_rows(out)) == sorted(EMPTY)
    assert {status for _, _, status in table_rows(out)} == {"deleted"}
    assert "Deleted 3 of 3 orphaned empty row(s)" in out
    after = snapshot()
    assert after["contacts"] == before["contacts"] - EMPTY
    assert {k: v for k, v in after.items() if k != "contacts"} == {
        k: v for k, v in before.items() if k != "contacts"
    }
    # A second run finds nothing left.
    assert run_json()["counts"]["candidates"] == 0


def test_no_input_is_an_alias_of_yes(demo_data: None) -> None:
    run("--delete", "--no-input")
    assert not contact_ids() & EMPTY


def test_json_output_parses_and_matches(demo_data: None) -> None:
    document = run_json()
    assert document["database"] == "default"
    assert document["mode"] == "dry-run"
    assert found(document) == EMPTY
    assert {row["status"] for row in document["rows"]} == {"candidate"}
    created = {str(c.pk): c.created_at for c in Contact.objects.filter(pk__in=EMPTY)}
    for row in document["rows"]:
        assert dt.datetime.fromisoformat(row["created"]) == created[row["pk"]]
        assert row["reason"].startswith("no content in email, first_name")
    assert document["counts"] == {
        "candidates": 3,
        "deleted": 0,
        "kept": 0,
        "failed": 0,
        "remaining": 3,
    }
    models = {m["model"]: m for m in document["models"]}
    assert models["contacts.Contact"]["fields"] == dict.fromkeys(CONTACT_FIELDS, "''")
    assert models["contacts.Contact"]["created_field"] == "created_at"
    assert models["contacts.Contact"]["references"] == [
        "contacts.Attachment.contact",
        *GENERIC,
    ]
    assert models["dcim.Device"]["skipped"] == "field site always holds a value"
    assert models["dcim.Site"]["references"] == ["dcim.Device.site", *GENERIC]
    assert document["errors"] == []
    assert document["unmatched_ids"] == []

    deleted = run_json("--delete", "--yes")
    assert deleted["mode"] == "delete"
    assert found(deleted) == EMPTY
    assert {row["status"] for row in deleted["rows"]} == {"deleted"}
    assert deleted["counts"]["deleted"] == 3
    assert deleted["counts"]["remaining"] == 0


def test_json_delete_needs_yes(demo_data: None) -> None:
    with pytest.raises(CommandError, match="cannot ask for confirmation"):
        run("--format", "json", "--delete")
    assert contact_ids() >= EMPTY


# -- what counts as an orphaned empty record -----------------------------------


@pytest.mark.parametrize("field", CONTACT_FIELDS)
def test_row_with_one_non_default_field_is_kept(demo_data: None, field: str) -> None:
    Contact.objects.filter(pk=EMPTY_CONTACT_IDS[0]).update(**{field: "x"})
    assert found(run_json()) == EMPTY - {str(EMPTY_CONTACT_IDS[0])}
    run("--delete", "--yes")
    assert contact_ids() & EMPTY == {str(EMPTY_CONTACT_IDS[0])}


def test_row_with_content_from_an_mcp_call_is_kept(
    demo_data: None, wire: MCPTestClient
) -> None:
    made = call_ok(wire, "contacts__create", {"phone": "+31 58 555 0199"})
    assert found(run_json()) == EMPTY
    run("--delete", "--yes")
    assert made["id"] in contact_ids()


def test_referenced_empty_rows_are_kept(demo_data: None, wire: MCPTestClient) -> None:
    site = Site.objects.create(name="", slug="", description="")
    tag = Tag.objects.create(name="", slug="")
    contact = Contact.objects.get(pk=EMPTY_CONTACT_IDS[1])
    unreferenced = run_json()
    assert found(unreferenced, "dcim.Site") == {str(site.pk)}
    assert found(unreferenced, "dcim.Tag") == {str(tag.pk)}

    call_ok(wire, "dcim__devices__create", {"name": "new-01", "site": site.pk})
    other_site = Site.objects.exclude(pk=site.pk).values_list("pk", flat=True)[0]
    device = call_ok(
        wire, "dcim__devices__create", {"name": "new-02", "site": other_site}
    )
    Device.objects.get(pk=device["id"]).tags.add(tag)
    note_on(contact)
    document = run_json()
    assert found(document, "dcim.Site") == set()  # a foreign key
    assert found(document, "dcim.Tag") == set()  # a many-to-many row
    assert found(document) == EMPTY - {str(contact.pk)}  # a generic foreign key

    run("--delete", "--yes")
    assert Site.objects.filter(pk=site.pk).exists()
    assert Tag.objects.filter(pk=tag.pk).exists()
    assert contact_ids() & EMPTY == {str(contact.pk)}


def test_generic_reference_by_hex_key_counts(demo_data: None) -> None:
    row = Contact.objects.get(pk=EMPTY_CONTACT_IDS[2])
    CleanupNote.objects.create(
        content_type=ContentType.objects.get_for_model(Contact),
        object_id=row.pk.hex,  # a UUID stored without hyphens
    )
    assert found(run_json()) == EMPTY - {str(row.pk)}


def test_nullable_and_referenced_publisher(db: None) -> None:
    publisher = Publisher.objects.create(name="", country="", code=None)
    document = run_json("--model", "testapp.Publisher")
    assert found(document, "testapp.Publisher") == {str(publisher.pk)}
    assert document["models"][0]["fields"]["code"] == "NULL or ''"
    Publisher.objects.filter(pk=publisher.pk).update(code="")
    assert found(run_json("--model", "testapp.Publisher"), "testapp.Publisher") == {
        str(publisher.pk)
    }
    Book.objects.create(title="t", isbn="1", publisher=publisher)
    assert run_json("--model", "testapp.Publisher")["rows"] == []


@pytest.mark.parametrize(
    "change",
    [
        {},
        {"pages": 100, "in_print": True, "metadata": {}, "genre": "fiction"},
        {"genre": ""},
    ],
)
def test_book_with_only_defaults_is_empty(db: None, change: dict[str, Any]) -> None:
    book = Book.objects.create(title="", isbn="", **change)
    document = run_json("--model", "testapp.Book")
    assert found(document, "testapp.Book") == {str(book.pk)}
    fields = document["models"][0]["fields"]
    assert fields["pages"] == "default 100"
    assert fields["metadata"] == "default {}"
    assert fields["genre"] == "'' or default 'fiction'"
    assert fields["publisher"] == "NULL"


@pytest.mark.parametrize(
    "change",
    [
        {"pages": 101},
        {"in_print": False},
        {"metadata": {"a": 1}},
        {"metadata": []},
        {"genre": "history"},
        {"price": "0.00"},
        {"rating": 0.0},
        {"published": dt.date(2026, 1, 1)},
        {"website": "https://example.com"},
    ],
)
def test_book_with_one_non_default_field_is_kept(
    db: None, change: dict[str, Any]
) -> None:
    Book.objects.create(title="", isbn="", **change)
    document = run_json("--model", "testapp.Book")
    [plan] = document["models"]
    assert plan["model"] == "testapp.Book"
    assert plan["skipped"] is None  # the model was scanned...
    assert plan["counts"]["candidate"] == 0
    assert document["rows"] == []  # ...and the row is not a candidate


def test_ticket_rules_generated_values_and_serializer_defaults(
    wire: MCPTestClient,
) -> None:
    # The endpoint refuses a create with no content at all; values equal to
    # the defaults still make a row that holds nothing the caller chose.
    empty = call_ok(wire, "cleanup__tickets__create", {"priority": 3})
    assert empty["title"] == "untitled"  # the serializer's default is not content
    blank = call_ok(wire, "cleanup__tickets__create", {"title": "", "priority": 3})
    kept = [
        call_ok(wire, "cleanup__tickets__create", {"labels": ["urgent"]}),
        call_ok(wire, "cleanup__tickets__create", {"priority": 1}),
        call_ok(wire, "cleanup__tickets__create", {"due": "2026-01-31"}),
        call_ok(wire, "cleanup__tickets__create", {"title": "printer on fire"}),
    ]
    parent = call_ok(wire, "cleanup__tickets__create", {"priority": 3})
    child = call_ok(wire, "cleanup__tickets__create", {"parent": parent["id"]})

    document = run_json("--model", "testapp.CleanupTicket")
    assert found(document, "testapp.CleanupTicket") == {
        str(empty["id"]),
        str(blank["id"]),
    }
    plan = document["models"][0]
    assert plan["fields"] == {
        "title": "'' or default 'untitled'",
        "labels": "default []",
        "priority": "default 3",
        "due": "NULL",
        "parent": "NULL",
    }
    assert plan["ignored"] == {
        "opened": "generated default (now)",
        "reference": "generated default (uuid4)",
    }
    assert plan["references"] == ["testapp.CleanupTicket.parent", *GENERIC]
    assert plan["created_field"] is None

    run("--model", "testapp.CleanupTicket", "--delete", "--yes")
    left = set(CleanupTicket.objects.values_list("pk", flat=True))
    assert left == {t["id"] for t in [*kept, parent, child]}


# -- scope ---------------------------------------------------------------------


def test_id_prefixes_select_rows(demo_data: None) -> None:
    first, second, third = (str(pk) for pk in EMPTY_CONTACT_IDS)
    assert found(run_json("--id", "6b7e67eb")) == {first}
    assert found(run_json("--id", "C123F361-8A2E")) == {second}
    assert found(run_json("--id", "c123f3618a2e4b")) == {second}
    assert found(run_json("--id", third)) == {third}
    assert found(run_json("--id", "6b7e67eb", "--id", "b1b5")) == {first, third}
    run("--id", "6b7e67eb", "--delete", "--yes")
    assert contact_ids() & EMPTY == {second, third}


def test_id_of_a_row_with_content_matches_nothing(demo_data: None) -> None:
    real = Contact.objects.exclude(pk__in=EMPTY_CONTACT_IDS).first()
    assert real is not None
    prefix = str(real.pk)[:13]
    document = run_json("--id", prefix)
    assert document["rows"] == []
    assert document["unmatched_ids"] == [prefix]
    out, _ = run("--id", prefix, "--delete", "--yes")
    assert f"--id {prefix} matched no orphaned empty row." in out
    assert Contact.objects.filter(pk=real.pk).exists()


def test_id_that_fits_no_key_is_an_error(demo_data: None) -> None:
    with pytest.raises(CommandError, match="not an id or id prefix") as info:
        run("--id", "6b7e67eb", "--id", "not-a-key!")
    assert "--id number 2 " in str(info.value)
    assert "not-a-key" not in str(info.value)  # the caller's value is not echoed


def test_integer_ids_match_exactly(demo_data: None) -> None:
    site = Site.objects.create(pk=1234, name="", slug="")
    assert found(run_json("--id", "1234"), "dcim.Site") == {str(site.pk)}
    assert found(run_json("--id", "12"), "dcim.Site") == set()


def test_model_narrows_the_scan(demo_data: None) -> None:
    site = Site.objects.create(name="", slug="")
    document = run_json("--model", "dcim.Site")
    assert found(document, "dcim.Site") == {str(site.pk)}
    assert found(document) == set()
    assert [m["model"] for m in document["models"]] == ["dcim.Site"]
    run("--model", "dcim.Site", "--delete", "--yes")
    assert contact_ids() >= EMPTY
    assert not Site.objects.filter(pk=site.pk).exists()
    both = run_json("--model", "contacts.Contact", "--model", "dcim.Site")
    assert [m["model"] for m in both["models"]] == ["contacts.Contact", "dcim.Site"]


@pytest.mark.parametrize(
    ("label", "message"),
    [
        ("nope.Nope", "Unknown model 'nope.Nope'; use app_label.ModelName"),
        ("Contact", "Unknown model 'Contact'"),
        ("auth.User", "auth.User is not exposed through frisian_mcp"),
    ],
)
def test_unknown_or_unexposed_model_is_an_error(
    demo_data: None, label: str, message: str
) -> None:
    with pytest.raises(CommandError, match=message) as info:
        run("--model", label, "--delete", "--yes")
    assert info.value.returncode == 1
    assert contact_ids() >= EMPTY


def test_created_window(demo_data: None) -> None:
    first, second, third = EMPTY_CONTACT_IDS
    when = dt.datetime(2026, 1, 10, 12, tzinfo=dt.UTC)
    for pk, days in ((first, -5), (second, 0), (third, 5)):
        Contact.objects.filter(pk=pk).update(created_at=when + dt.timedelta(days=days))
    after = ("--created-after", "2026-01-10T12:00:00Z")
    before = ("--created-before", "2026-01-10T12:00:00+00:00")
    assert found(run_json(*after)) == {str(second), str(third)}
    assert found(run_json(*before)) == {str(first)}
    assert found(run_json("--created-after", "2026-01-05", *before)) == {str(first)}
    assert found(run_json("--created-after", "2026-01-05T12:00:01")) == {
        str(second),
        str(third),
    }
    document = run_json(*after)
    skipped = {m["model"]: m["skipped"] for m in document["models"]}
    assert skipped["dcim.Site"] == (
        "no creation timestamp for --created-after/--created-before"
    )
    run(*before, "--delete", "--yes")
    assert contact_ids() & EMPTY == {str(second), str(third)}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--created-after", "yesterday"), "--created-after wants an ISO date"),
        (("--created-before", "2026-02-30"), "--created-before wants an ISO date"),
        (
            ("--created-after", "2026-02-01", "--created-before", "2026-01-01"),
            "--created-after must be earlier",
        ),
        (
            ("--model", "dcim.Site", "--created-after", "2026-01-01"),
            "dcim.Site has no creation timestamp",
        ),
        (("--batch-size", "0"), "--batch-size must be between 1 and 10000"),
        (("--batch-size", "10001"), "--batch-size must be between 1 and 10000"),
        (("--database", "nope"), "Unknown database alias 'nope'"),
    ],
)
def test_bad_options_are_errors(
    demo_data: None, args: tuple[str, ...], message: str
) -> None:
    with pytest.raises(CommandError, match=message):
        run(*args, "--delete", "--yes")
    assert contact_ids() >= EMPTY


# -- exit codes, batches, output -----------------------------------------------


def test_fail_if_found_exits_2_until_deleted(demo_data: None) -> None:
    with pytest.raises(CommandError, match=r"3 orphaned empty row\(s\) found") as info:
        run("--fail-if-found")
    assert info.value.returncode == 2
    with pytest.raises(CommandError) as info:
        run("--fail-if-found", "--format", "json", "--id", "6b7e67eb")
    assert info.value.returncode == 2
    run("--fail-if-found", "--delete", "--yes")  # all deleted: success
    run("--fail-if-found")  # nothing found: success
    assert not contact_ids() & EMPTY


def test_batches_hold_at_most_batch_size_rows(
    demo_data: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    Contact.objects.bulk_create(Contact() for _ in range(25))
    total = len(EMPTY) + 25
    sizes = between_scan_and_delete(monkeypatch, lambda candidate: None)
    before = snapshot()
    document = run_json("--delete", "--yes", "--batch-size", "4")
    assert sizes == [4] * (total // 4) + ([total % 4] if total % 4 else [])
    assert document["counts"]["deleted"] == total
    assert len(document["rows"]) == total
    assert contact_ids() == before["contacts"] - found(document)
    assert Contact.objects.filter(email="", first_name="", phone="").count() == 0


def test_batch_size_one_on_a_streamed_scan(demo_data: None) -> None:
    """Deleting while the scan's cursor is still open loses and repeats nothing."""
    Contact.objects.bulk_create(Contact() for _ in range(12))
    document = run_json("--delete", "--yes", "--batch-size", "1")
    assert document["counts"] == {
        "candidates": 15,
        "deleted": 15,
        "kept": 0,
        "failed": 0,
        "remaining": 0,
    }
    assert len(found(document)) == 15


def test_verbosity_0_is_silent(demo_data: None) -> None:
    assert run("-v", "0") == ("", "")
    with pytest.raises(CommandError) as info:
        run("-v", "0", "--fail-if-found")
    assert info.value.returncode == 2
    assert run("-v", "0", "--delete", "--yes") == ("", "")
    assert not contact_ids() & EMPTY


def test_verbosity_0_still_prints_requested_json(demo_data: None) -> None:
    out, err = run("-v", "0", "--format", "json")
    assert found(json.loads(out)) == EMPTY
    assert err == ""


def test_json_models_carry_each_models_rule(demo_data: None) -> None:
    models = {m["model"]: m for m in run_json()["models"]}
    assert models["dcim.Device"]["skipped"] == "field site always holds a value"
    site = models["dcim.Site"]
    assert site["skipped"] is None
    assert site["fields"] == {"name": "''", "slug": "''", "description": "''"}
    assert site["ignored"] == {}
    assert site["references"] == ["dcim.Device.site", *GENERIC]


def test_progress_lines_on_stderr(
    demo_data: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(frisian_mcp_cleanup, "PROGRESS_INTERVAL", 0.0)
    _, err = run("--batch-size", "2")
    lines = err.splitlines()
    assert lines[-1].startswith("frisian_mcp_cleanup: contacts.Contact: 3 found, ")
    assert lines[-1].endswith(" done")
    _, err = run("--delete", "--yes", "--batch-size", "2")
    assert "3 found, 3 deleted, 0 kept, 0 failed" in err.splitlines()[-1]
    assert run("-v", "0", "--batch-size", "2")[1] == ""


def test_explicit_default_database(demo_data: None) -> None:
    assert found(run_json("--database", "default")) == EMPTY


def test_interactive_confirmation(
    demo_data: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    answers = iter(["no", "yes"])
    monkeypatch.setattr("builtins.input", lambda: next(answers))
    out, err = run("--delete")
    assert "Cancelled; nothing was deleted." in out
    assert "Delete 3 orphaned empty row(s) of 1 model(s)" in err
    assert contact_ids() >= EMPTY
    out, _ = run("--delete")
    assert "Deleted 3 of 3 orphaned empty row(s)" in out
    # The preview lists the rows; the deleting pass lists only surprises.
    assert {status for _, _, status in table_rows(out)} == {"candidate"}
    assert not contact_ids() & EMPTY
    out, err = run("--delete")  # nothing found: nothing to ask
    assert "No orphaned empty rows found in database 'default'." in out
    assert "Delete" not in err


def test_no_answer_on_stdin_is_an_error(
    demo_data: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    def eof() -> str:
        raise EOFError

    monkeypatch.setattr("builtins.input", eof)
    with pytest.raises(CommandError, match="pass --yes"):
        run("--delete")
    assert contact_ids() >= EMPTY


@pytest.mark.parametrize(("batch_size", "survivors"), [("1", 1), ("10", 3)])
def test_failed_batch_is_rolled_back_and_exits_1(
    demo_data: None, batch_size: str, survivors: int
) -> None:
    refused = EMPTY_CONTACT_IDS[2]

    def refuse(sender: Any, instance: Contact, **kwargs: Any) -> None:
        if instance.pk == refused:
            raise DatabaseError("a trigger said no")

    pre_delete.connect(refuse, sender=Contact, dispatch_uid="cleanup-test")
    try:
        with pytest.raises(CommandError, match=r"1 batch\(es\) could not") as info:
            run("--delete", "--yes", "--batch-size", batch_size)
    finally:
        pre_delete.disconnect(sender=Contact, dispatch_uid="cleanup-test")
    assert info.value.returncode == 1
    left = contact_ids() & EMPTY
    assert str(refused) in left
    assert len(left) == survivors  # the whole failed batch was rolled back


def test_failed_batch_reports_only_the_first_line_of_the_error(
    demo_data: None,
) -> None:
    """PostgreSQL's DETAIL line can quote row values: it is not shown."""

    def refuse(sender: Any, instance: Contact, **kwargs: Any) -> None:
        raise DatabaseError(
            "update or delete violates a constraint\n"
            "DETAIL:  Key (id)=(secret-value) is still referenced."
        )

    out, err = StringIO(), StringIO()
    pre_delete.connect(refuse, sender=Contact, dispatch_uid="cleanup-detail")
    try:
        with pytest.raises(CommandError, match=r"1 batch\(es\) could not"):
            call_command(
                "frisian_mcp_cleanup", "--delete", "--yes", stdout=out, stderr=err
            )
    finally:
        pre_delete.disconnect(sender=Contact, dispatch_uid="cleanup-detail")
    assert (
        "contacts.Contact: 3 rows not deleted: "
        "DatabaseError: update or delete violates a constraint" in err.getvalue()
    )
    assert "secret-value" not in err.getvalue() + out.getvalue()
    assert "DETAIL" not in err.getvalue()
    assert contact_ids() >= EMPTY


@pytest.mark.parametrize("delete", [False, True])
def test_a_batch_costs_the_same_queries_whatever_its_rows(
    demo_data: None, delete: bool
) -> None:
    """No per-row queries: not for the re-check, the generic references or the delete."""

    def queries() -> int:
        args = [
            "--model",
            "contacts.Contact",
            *(["--delete", "--yes"] if delete else []),
        ]
        with CaptureQueriesContext(connection) as captured:
            assert run_json(*args)["counts"]["candidates"] > 1
        return len(captured.captured_queries)

    few = queries()  # the 3 seeded rows, in one batch
    Contact.objects.bulk_create(Contact() for _ in range(25))
    assert queries() == few  # 25 or 28 rows, in one batch


def test_models_with_delete_receivers_go_through_the_orm(demo_data: None) -> None:
    seen: list[Any] = []

    def receiver(sender: Any, instance: Contact, **kwargs: Any) -> None:
        seen.append(instance.pk)

    pre_delete.connect(receiver, sender=Contact, dispatch_uid="cleanup-seen")
    try:
        run("--delete", "--yes")
    finally:
        pre_delete.disconnect(sender=Contact, dispatch_uid="cleanup-seen")
    assert {str(pk) for pk in seen} == EMPTY
    assert not contact_ids() & EMPTY


# -- audit log -----------------------------------------------------------------


def test_audit_log_has_counts_and_keys_never_values(
    demo_data: None,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    wire: MCPTestClient,
) -> None:
    marker = "Marker-7f3a@example.com"
    target = str(EMPTY_CONTACT_IDS[0])

    def fill(candidate: Candidate) -> None:
        if str(candidate.pk) == target:
            call_ok(wire, "contacts__partial_update", {"id": target, "email": marker})

    between_scan_and_delete(monkeypatch, fill)
    caplog.set_level(logging.INFO, logger="frisian_mcp.cleanup")
    run("--delete", "--yes")
    records = [r for r in caplog.records if r.name == "frisian_mcp.cleanup"]
    messages = [r.getMessage() for r in records]
    assert messages[-1] == (
        "frisian_mcp_cleanup run: database=default mode=delete models=6 "
        "candidates=3 deleted=2 kept=1 failed=0"
    )
    assert sorted(messages[:-1]) == sorted(
        f"frisian_mcp_cleanup deleted contacts.Contact pk={pk}"
        for pk in EMPTY - {target}
    )
    assert all(marker not in m for m in messages)

    caplog.clear()
    run("--format", "json")
    assert [r.getMessage() for r in caplog.records] == [
        "frisian_mcp_cleanup run: database=default mode=dry-run models=6 "
        "candidates=0 deleted=0 kept=0 failed=0"
    ]


# -- the race: rows that change between the scan and the delete ----------------


def test_row_filled_between_scan_and_delete_survives(
    demo_data: None,
    monkeypatch: pytest.MonkeyPatch,
    wire: MCPTestClient,
) -> None:
    filled, noted = str(EMPTY_CONTACT_IDS[0]), str(EMPTY_CONTACT_IDS[1])

    def change(candidate: Candidate) -> None:
        if str(candidate.pk) == filled:
            call_ok(wire, "contacts__partial_update", {"id": filled, "notes": "hi"})
        elif str(candidate.pk) == noted:
            note_on(Contact.objects.get(pk=noted))

    between_scan_and_delete(monkeypatch, change)
    document = run_json("--delete", "--yes")
    status = {row["pk"]: row["status"] for row in document["rows"]}
    assert status == {
        filled: "kept",
        noted: "kept",
        str(EMPTY_CONTACT_IDS[2]): "deleted",
    }
    assert document["counts"]["kept"] == 2
    assert document["counts"]["remaining"] == 0
    assert contact_ids() & EMPTY == {filled, noted}
    assert Contact.objects.get(pk=filled).notes == "hi"


def test_row_referenced_between_scan_and_delete_survives(
    demo_data: None,
    monkeypatch: pytest.MonkeyPatch,
    wire: MCPTestClient,
) -> None:
    site = Site.objects.create(name="", slug="")

    def reference(candidate: Candidate) -> None:
        if candidate.pk == site.pk:
            call_ok(wire, "dcim__devices__create", {"name": "late", "site": site.pk})

    between_scan_and_delete(monkeypatch, reference)
    document = run_json("--model", "dcim.Site", "--delete", "--yes")
    assert [(r["pk"], r["status"]) for r in document["rows"]] == [(site.pk, "kept")]
    assert Device.objects.filter(name="late", site=site).exists()


# -- manage.py in a subprocess -------------------------------------------------


def manage(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture
def demo_env(tmp_path: Path) -> Iterator[dict[str, str]]:
    """A migrated, seeded demo database of its own (SQLite or PostgreSQL)."""
    with demo_database(tmp_path, "cleanup") as env:
        yield {**env, "DJANGO_DEBUG": "0"}


@pytest.mark.subprocess
def test_manage_py_exit_codes(demo_env: dict[str, str]) -> None:
    command = "frisian_mcp_cleanup"
    dry = manage(demo_env, command, "--fail-if-found")
    assert dry.returncode == 2, dry.stderr
    assert len(table_rows(dry.stdout)) == 3
    assert "3 orphaned empty row(s) found and not deleted" in dry.stderr

    bad = manage(demo_env, command, "--model", "nope.Nope", "--delete", "--yes")
    assert bad.returncode == 1
    assert "Unknown model 'nope.Nope'" in bad.stderr

    deleted = manage(demo_env, command, "--delete", "--yes", "--batch-size", "1")
    assert deleted.returncode == 0, deleted.stderr
    assert sorted(pk for _, pk, _ in table_rows(deleted.stdout)) == sorted(EMPTY)

    after = manage(demo_env, command, "--fail-if-found", "--format", "json")
    assert after.returncode == 0, after.stderr
    assert json.loads(after.stdout)["counts"]["candidates"] == 0


@pytest.mark.subprocess
def test_manage_py_database_option(tmp_path: Path, demo_env: dict[str, str]) -> None:
    """``--database other`` reads and deletes there and nowhere else."""
    (tmp_path / "two_databases.py").write_text(
        "import os\n"
        "import dj_database_url\n"
        "from demo_project.settings import *  # noqa: F403\n"
        "DATABASES = {\n"
        "    'default': dj_database_url.parse(os.environ['CLEANUP_DEFAULT_URL']),\n"
        "    'other': dj_database_url.parse(os.environ['DATABASE_URL']),\n"
        "}\n"
    )
    env = {
        **demo_env,
        "DJANGO_SETTINGS_MODULE": "two_databases",
        "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)]),
        # A second seeded demo database, with the same empty rows.
        "CLEANUP_DEFAULT_URL": demo_sqlite(tmp_path / "default.sqlite3"),
    }
    command = ("frisian_mcp_cleanup", "--format", "json")

    other = manage(env, *command, "--database", "other", "--delete", "--yes")
    assert other.returncode == 0, other.stderr
    document = json.loads(other.stdout)
    assert document["database"] == "other"
    assert found(document) == EMPTY
    assert document["counts"]["deleted"] == 3

    again = manage(env, *command, "--database", "other", "--fail-if-found")
    assert again.returncode == 0, again.stderr
    untouched = manage(env, *command, "--fail-if-found")
    assert untouched.returncode == 2
    assert json.loads(untouched.stdout)["database"] == "default"
    assert found(json.loads(untouched.stdout)) == EMPTY


# -- the rules, unit by unit ---------------------------------------------------


def _side_effect() -> str:
    """A callable default that must never be called to judge emptiness."""
    raise AssertionError("called")


def _field(field: Any, name: str = "x") -> Any:
    field.set_attributes_from_name(name)
    return field


@pytest.mark.parametrize(
    ("field", "extra", "expected"),
    [
        (Book._meta.get_field("id"), (), "primary key or generated column"),
        (Book._meta.get_field("updated_at"), (), "automatic timestamp"),
        (Book._meta.get_field("uid"), (), "generated default (uuid4)"),
        (CleanupTicket._meta.get_field("opened"), (), "generated default (now)"),
        (Book._meta.get_field("pages"), (), "default 100"),
        (Book._meta.get_field("metadata"), (), "default {}"),
        (Book._meta.get_field("genre"), (), "'' or default 'fiction'"),
        (Publisher._meta.get_field("code"), (), "NULL or ''"),
        (CleanupTicket._meta.get_field("labels"), (), "default []"),
        (CleanupTicket._meta.get_field("priority"), (2,), "default 2 or default 3"),
        (_field(models.IntegerField(default=int)), (), "default 0"),
        (_field(models.IntegerField(db_default=5)), (), "default 5"),
        (
            _field(models.CharField(db_default=models.Value("n/a"))),
            (),
            "'' or default 'n/a'",
        ),
        (
            _field(models.DateTimeField(db_default=Now())),
            (),
            "database default expression",
        ),
        (_field(models.CharField(default=_side_effect)), (), "''"),
        (_field(models.IntegerField(default="many")), (), "always holds a value"),
        (_field(models.IntegerField()), (), "always holds a value"),
        (_field(models.IntegerField(null=True)), ("x",), "NULL"),
    ],
)
def test_field_check_rules(field: Any, extra: tuple[Any, ...], expected: str) -> None:
    result = field_check(field, extra)
    assert (result if isinstance(result, str) else result.description) == expected


class _PlainSerializer(serializers.Serializer[Any]):
    first_name = serializers.CharField()


class _StarSerializer(serializers.ModelSerializer[Contact]):
    everything = serializers.JSONField(source="*")
    owner = serializers.HiddenField(default="server")

    class Meta:
        model = Contact
        fields = ("email", "everything", "owner")


def test_build_plan_widens_to_every_field_when_unsure() -> None:
    plain = build_plan(Contact, [_PlainSerializer()])
    assert plain.notes == ("_PlainSerializer is not a ModelSerializer",)
    assert [c.name for c in plain.checks] == list(CONTACT_FIELDS)
    star = build_plan(Contact, [_StarSerializer()])
    assert star.notes == (
        "_StarSerializer.everything is not a field of contacts.Contact",
    )
    assert [c.name for c in star.checks] == list(CONTACT_FIELDS)
    assert dict(star.ignored) == {
        "created_at": "automatic timestamp",
        "id": "primary key or generated column",
        "owner": "set by the server (HiddenField)",
    }


def test_build_plan_skips_models_nothing_can_leave_empty() -> None:
    assert build_plan(Contact, []).skip == "no create tool writes this model"

    class IdOnly(serializers.ModelSerializer[Book]):
        class Meta:
            model = Book
            fields = ("id", "uid", "updated_at")

    assert build_plan(Book, [IdOnly()]).skip == (
        "the create serializer writes no field to judge"
    )


@pytest.mark.parametrize(
    ("model", "pk", "value", "matches"),
    [
        (Contact, EMPTY_CONTACT_IDS[0], "6B7E-67EB", True),
        (Contact, EMPTY_CONTACT_IDS[0], "6b7e67ec", False),
        (Contact, EMPTY_CONTACT_IDS[0], "xyz", False),
        (Site, 1234, "1234", True),
        (Site, 1234, "12", False),
        (Session, "abc123", "abc", True),
        (Session, "abc123", "bc", False),
    ],
)
def test_id_matches(model: Any, pk: Any, value: str, matches: bool) -> None:
    assert id_matches(model, pk, value) is matches
