"""``Record`` arguments and ``context.read``: records read as the caller
(ADR 0044 "Records are read as the caller", ADR 0043)."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import AnonymousUser, User
from django.test import Client, RequestFactory

from frisian_mcp import prompts
from frisian_mcp.types import CallContext
from tests.test_prompts import SECRET, PromptClient
from tests.testapp.models import Book, Shelf

pytestmark = pytest.mark.django_db


@pytest.fixture(params=["2025-11-25", "2026-07-28"])
def mcp(request: pytest.FixtureRequest) -> PromptClient:
    client = PromptClient(protocol_version=request.param)
    client.initialize()
    return client


@pytest.fixture
def book() -> Book:
    return Book.objects.create(title="Dune", isbn="9780441013593")


def test_a_record_argument_is_embedded_as_the_caller_reads_it(
    mcp: PromptClient, book: Book
) -> None:
    listed = mcp.request("prompts/list")["prompts"]
    card = next(p for p in listed if p["name"] == "book_card")
    assert card["arguments"] == [
        {"name": "book", "description": "The book", "required": True}
    ]
    messages = mcp.get("book_card", {"book": str(book.pk)})["messages"]
    embedded = messages[0]["content"]
    assert embedded["type"] == "resource"
    resource = embedded["resource"]
    assert resource["uri"] == f"drf://testapp__books/{book.pk}"
    assert resource["mimeType"] == "application/json"
    assert json.loads(resource["text"])["title"] == "Dune"
    assert messages[1]["content"]["text"] == "Title: Dune"
    assert messages[2] == {"role": "assistant", "content": embedded}


@pytest.mark.parametrize("value", ["999999", SECRET, "a/b?c#d"])
def test_a_record_the_caller_cannot_see_names_the_argument(
    mcp: PromptClient, value: str
) -> None:
    refused = mcp.fails("book_card", {"book": value})
    assert refused.code == -32602
    assert refused.data == {"code": "invalid_argument", "argument": "book"}
    assert refused.message == (
        "Invalid params: argument `book` names no record you can see."
    )


def test_a_prompt_whose_record_names_no_template_is_never_listed(
    mcp: PromptClient,
) -> None:
    assert "no_such_record" not in mcp.names()
    assert mcp.fails("no_such_record", {"row": "1"}).data["code"] == "unknown_prompt"


def test_a_prompt_is_hidden_with_its_record_template() -> None:
    shelf = Shelf.objects.create(room="A", number=1)
    anonymous = PromptClient(protocol_version="2025-11-25")
    anonymous.initialize()
    assert "private_shelf" not in anonymous.names()
    hidden = anonymous.fails("private_shelf", {"shelf": str(shelf.pk)})
    assert hidden.data == {"code": "unknown_prompt", "suggestions": []}
    client = Client()
    client.force_login(User.objects.create_user("reader"))
    reader = PromptClient(client, protocol_version="2025-11-25")
    reader.initialize()
    assert "private_shelf" in reader.names()
    [message] = reader.get("private_shelf", {"shelf": str(shelf.pk)})["messages"]
    assert message["content"]["resource"]["uri"] == (
        f"drf://testapp__private-shelves/{shelf.pk}"
    )


def test_context_read_answers_as_resources_read(mcp: PromptClient, book: Book) -> None:
    uri = f"drf://testapp__books/{book.pk}"
    [message] = mcp.get("read_uri", {"uri": uri})["messages"]
    assert message["content"]["resource"]["uri"] == uri
    refused = mcp.fails("read_uri", {"uri": f"drf://testapp__books/{SECRET}"})
    assert refused.code == (-32602 if mcp.modern else -32002)
    assert refused.data == {"code": "not_found"}


def test_completion_sees_a_record_argument_by_its_key() -> None:
    context = CallContext(RequestFactory().post("/mcp"), AnonymousUser())
    assert prompts.record_argument("book_card", "book") == "testapp__books"
    assert prompts.record_argument("book_card", "nope") is None
    assert prompts.record_argument("describe_book", "title") is None
    assert prompts.argument_values(context, "book_card", "book", "") == []
    assert prompts.argument_values(context, "no_such_record", "row", "") is None
