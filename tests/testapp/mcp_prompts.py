"""The test app's prompts: one per argument type, permission and failure.

Discovered by frisian_mcp's ``ready()`` as any app's ``mcp_prompts`` is;
tests/test_prompts.py drives them through the endpoint.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from typing import Annotated, Any, Literal

from rest_framework.permissions import AllowAny, BasePermission, IsAdminUser

from frisian_mcp.prompts import (
    PromptContext,
    Record,
    RecordValue,
    assistant,
    embed,
    prompt,
    user,
)
from tests.testapp.models import Book


class Mood(enum.Enum):
    """A plain enum: its values are the choices."""

    CALM = "calm"
    CROSS = "cross"


class Undecided(BasePermission):
    """A permission class that fails instead of deciding."""

    def has_permission(self, request: Any, view: Any) -> bool:
        raise RuntimeError("cannot decide without an object")


def _words(context: PromptContext, value: str) -> Iterable[str]:
    return (w for w in ("apple", "apricot", "banana") if w.startswith(value))


@prompt(title="Describe a book", complete={"topic": _words})
def describe_book(
    context: PromptContext,
    *,
    title: Annotated[str, "The book's title"],
    copies: int = 1,
    signed: bool = False,
    genre: Book.Genre = Book.Genre.FICTION,
    tone: Literal["brief", "full"] = "brief",
    mood: Mood | None = None,
    topic: str = "",
) -> str:
    """Ask for a description of a book.

    This second paragraph is not part of the description.
    """
    parts = [title, str(copies), str(signed), genre.value, tone]
    parts += [mood.value if mood else "-", topic or "-"]
    return " | ".join(parts)


@prompt
def conversation(context: PromptContext) -> list[Any]:
    """A user turn, an assistant turn, an embedded resource and a bare block."""
    return [
        user("Hello"),
        assistant("Hello, how can I help?"),
        user(embed("urn:example:note", "a note")),
        embed("urn:example:bytes", blob=b"\x00\x01", mime_type="application/x-demo"),
        {"type": "image", "data": "AAAA", "mimeType": "image/png"},
    ]


@prompt
def book_stats(context: PromptContext) -> str:
    """Counts read through the stats tool, as the caller."""
    counts = context.call_tool("testapp__stats__get", {})
    return f"{counts['books']} books, {counts['publishers']} publishers"


@prompt
def missing_tool(context: PromptContext) -> str:
    """Calls a tool that does not exist."""
    context.call_tool("testapp__nothing__here", {})
    return "unreachable"


@prompt(permission_classes=[IsAdminUser])
def staff_report(context: PromptContext) -> str:
    """Only staff see this prompt."""
    return f"report for {context.user.username}"


@prompt(name="undecided-prompt", permission_classes=[Undecided])
def undecided(context: PromptContext) -> str:
    """Its permission class cannot decide, so it is listed."""
    return "shown"


@prompt
def broken(context: PromptContext, *, secret: str = "") -> str:
    """The host's function fails."""
    raise ValueError("host failure with " + secret)


@prompt
def bad_block(context: PromptContext) -> list[Any]:
    """Returns an image whose data is not base64."""
    return [{"type": "image", "data": "not base64!", "mimeType": "image/png"}]


@prompt(permission_classes=[AllowAny])
def book_card(
    context: PromptContext,
    *,
    book: Annotated[RecordValue, Record("testapp__books", "The book")],
) -> list[Any]:
    """A book embedded as the caller reads it, and read again by its URI."""
    again: RecordValue = context.read(book.uri)
    return [embed(book), user(f"Title: {book.data['title']}"), assistant(again)]


@prompt(permission_classes=[AllowAny])
def private_shelf(
    context: PromptContext,
    *,
    shelf: Annotated[RecordValue, Record("testapp__private-shelves")],
) -> list[Any]:
    """A shelf whose records only signed-in callers may read."""
    return [embed(shelf)]


@prompt
def no_such_record(
    context: PromptContext, *, row: Annotated[RecordValue, Record("testapp__nothing")]
) -> str:
    """Its Record names no resource: never listed."""
    return "unreachable"


@prompt
def read_uri(context: PromptContext, *, uri: str) -> list[Any]:
    """Reads whatever URI it is given, as the caller."""
    return [embed(context.read(uri))]
