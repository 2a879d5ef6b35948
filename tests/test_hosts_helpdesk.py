"""No dead end where the schema was guessed (issue 25 item 1, ADR 0030).

The helpdesk host (``tests.hosts.helpdesk``) reads keys and a query
parameter nobody declared, and a DELETE action and an overridden destroy
read a body. Each such call goes through its tool as it goes through REST
(``DEBUG = False``: same status, rows and answer), and the result names the
keys sent unchecked, never their values. Where the schema is authoritative
(a stock action's own serializer, a serializer chosen for the action) a typo
is still refused with a "did you mean"; the wrapper, empty-write and
protocol-argument guards hold on guessed tools too.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import transaction
from django.test import Client, override_settings
from jsonschema import Draft202012Validator

from frisian_mcp.contrib.testing import MCPError, MCPTestClient
from tests.hosts.helpdesk.models import Comment, Member, Removal, Ticket

pytestmark = pytest.mark.django_db

#: The tools whose schema is a guess, and where they send other arguments.
OPEN = {
    "imports__post": "body",
    "members__create": "body",
    "members__invite": "body",
    "register__post": "body",
    "tickets__close": "body",
    "tickets__comments": "body",
    "tickets__destroy": "body",
    "tickets__search": "query",
}


@pytest.fixture(autouse=True)
def _host() -> Iterator[None]:
    with override_settings(
        ROOT_URLCONF="tests.hosts.helpdesk.urls",
        DEBUG=False,
        FRISIAN_MCP={"REQUIRE_AUTHENTICATION": False, "TOOL_LAYOUT": "flat"},
    ):
        yield


@pytest.fixture
def ticket() -> Ticket:
    """A ticket with two comments, beside another ticket."""
    Ticket.objects.create(title="Printer jams")
    ticket = Ticket.objects.create(title="Printer offline")
    for text in ("seen", "again", "fixed?"):
        Comment.objects.create(ticket=ticket, text=text)
    return ticket


@pytest.fixture
def mcp() -> MCPTestClient:
    client = MCPTestClient()
    client.initialize()
    return client


def rows() -> dict[str, list[Any]]:
    """Every row of the helpdesk, without generated keys."""
    return {
        "tickets": sorted(Ticket.objects.values_list("title", "status", "note")),
        "comments": sorted(Comment.objects.values_list("ticket__title", "text")),
        "removals": sorted(Removal.objects.values_list("title", "reason")),
        "members": sorted(
            Member.objects.values_list("username", "email", "role", "secret")
        ),
    }


def rest(
    method: str, path: str, body: Any = None, query: dict[str, Any] | None = None
) -> tuple[int, bytes, dict[str, list[Any]]]:
    """REST's status, body and rows for one call, then rolled back."""
    with transaction.atomic():
        client = getattr(Client(), method)
        if body is None:
            response = client(path, query or {})
        else:
            response = client(path, json.dumps(body), content_type="application/json")
        written = rows()
        transaction.set_rollback(True)
    return response.status_code, response.content, written


def without_ids(value: Any) -> Any:
    """``value`` with no ``id`` keys (sequences move on PostgreSQL)."""
    if isinstance(value, dict):
        return {k: without_ids(v) for k, v in value.items() if k != "id"}
    return value


def as_rest(
    mcp: MCPTestClient, tool: str, arguments: dict[str, Any], method: str, path: str
) -> dict[str, Any]:
    """Call ``tool`` and the same REST call; both do the same. The result."""
    path_keys = {"id"}
    sent = {k: v for k, v in arguments.items() if k not in path_keys}
    if method == "get":
        status, content, written = rest(method, path, query=sent)
    else:
        status, content, written = rest(method, path, body=sent)
    assert status < 300, content
    result = mcp.call_tool(tool, arguments)
    assert result["isError"] is False, result
    structured = dict(result["structuredContent"])
    structured.pop("unchecked", None)
    answer = json.loads(content) if content else None
    if answer is None:
        assert structured == {"deleted": True}
    elif answer == without_ids(answer):  # the same bytes as REST's
        encoded = json.dumps(structured, separators=(",", ":"), ensure_ascii=False)
        assert encoded.encode() == content
    else:
        assert without_ids(structured) == without_ids(answer)
    assert rows() == written
    return result


@pytest.fixture
def tools(mcp: MCPTestClient) -> dict[str, dict[str, Any]]:
    return {tool["name"]: tool for tool in mcp.list_tools()}


def test_the_listing_says_which_schemas_are_guesses(
    tools: dict[str, dict[str, Any]],
) -> None:
    opened = {
        name: tool["inputSchema"]["additionalProperties"]
        for name, tool in tools.items()
        if tool["inputSchema"]["additionalProperties"] is not False
    }
    assert set(opened) == set(OPEN)
    for name, where in OPEN.items():
        description = tools[name]["description"]
        if where == "body":
            assert "not declared: other arguments are sent in it" in description
        else:
            assert (
                "Query not declared: other arguments are sent as query" in description
            )
        assert "object" not in opened[name]["type"], name  # a wrapper never
    assert "Body guessed, not declared" in tools["tickets__close"]["description"]
    assert "Body not declared" in tools["tickets__comments"]["description"]
    for name in set(tools) - set(OPEN):
        assert "not declared" not in tools[name]["description"], name


def test_a_key_an_action_reads_by_hand_reaches_it(
    mcp: MCPTestClient, ticket: Ticket
) -> None:
    arguments = {"id": ticket.pk, "reason": "cable"}
    path = f"/api/tickets/{ticket.pk}/close/"
    result = as_rest(mcp, "tickets__close", arguments, "post", path)
    assert result["structuredContent"]["unchecked"] == ["reason"]
    assert result["structuredContent"]["note"] == "cable"


def test_the_views_own_validation_decides_what_goes_unchecked(
    mcp: MCPTestClient, ticket: Ticket
) -> None:
    before = rows()
    path = f"/api/tickets/{ticket.pk}/close/"
    status, content, _ = rest("post", path, {"reson": "cable"})
    assert (status, json.loads(content)) == (
        400,
        {"reason": ["This field is required."]},
    )
    with pytest.raises(MCPError) as info:
        mcp.call_tool("tickets__close", {"id": ticket.pk, "reson": "cable"})
    error = info.value.data
    assert (info.value.code, error["code"]) == (-32602, "validation_failed")
    assert error["recoverable"] is True  # the agent can send "reason"
    assert [f["field"] for f in error["fields"]] == ["reason"]
    assert rows() == before


def test_a_query_parameter_nobody_declared_reaches_the_view(
    mcp: MCPTestClient, ticket: Ticket
) -> None:
    result = as_rest(
        mcp, "tickets__search", {"q": "jam"}, "get", "/api/tickets/search/"
    )
    assert result["structuredContent"] == {
        "titles": ["Printer jams"],
        "unchecked": ["q"],
    }


def test_a_delete_action_that_reads_a_body(mcp: MCPTestClient, ticket: Ticket) -> None:
    ids = list(ticket.comments.order_by("pk").values_list("pk", flat=True))[:2]
    arguments = {"id": ticket.pk, "ids": ids}
    path = f"/api/tickets/{ticket.pk}/comments/"
    result = as_rest(mcp, "tickets__comments", arguments, "delete", path)
    assert result["structuredContent"] == {"deleted": 2, "unchecked": ["ids"]}
    assert list(ticket.comments.values_list("text", flat=True)) == ["fixed?"]


def test_a_destroy_that_reads_a_body(mcp: MCPTestClient, ticket: Ticket) -> None:
    arguments = {"id": ticket.pk, "reason": "duplicate"}
    path = f"/api/tickets/{ticket.pk}/"
    result = as_rest(mcp, "tickets__destroy", arguments, "delete", path)
    assert result["structuredContent"] == {"deleted": True, "unchecked": ["reason"]}
    assert rows()["removals"] == [("Printer offline", "duplicate")]


def test_a_generic_post_reads_its_serializer(mcp: MCPTestClient) -> None:
    arguments = {"username": "ada", "email": "ada@example.org"}
    result = as_rest(mcp, "register__post", arguments, "post", "/api/register/")
    assert "unchecked" not in result["structuredContent"]
    assert rows()["members"] == [("ada", "ada@example.org", "agent", "")]


def test_a_typo_sent_to_a_guessed_body_is_the_views_to_judge(
    mcp: MCPTestClient,
) -> None:
    """REST ignores ``emial`` and asks for ``email``; so does the tool. A key
    the view ignores while it succeeds is named in the result."""
    status, content, _ = rest(
        "post", "/api/register/", {"username": "ada", "emial": "x"}
    )
    assert (status, json.loads(content)) == (
        400,
        {"email": ["This field is required."]},
    )
    with pytest.raises(MCPError) as info:
        mcp.call_tool("register__post", {"username": "ada", "emial": "x"})
    assert info.value.data["code"] == "validation_failed"
    assert Member.objects.count() == 0
    arguments = {"username": "ada", "email": "ada@example.org", "nick": "A"}
    result = as_rest(mcp, "register__post", arguments, "post", "/api/register/")
    assert result["structuredContent"]["unchecked"] == ["nick"]


def test_a_list_goes_to_the_view_as_sent(mcp: MCPTestClient) -> None:
    arguments = {"titles": ["Desk wobbles", "Lamp out"]}
    result = as_rest(mcp, "imports__post", arguments, "post", "/api/imports/")
    assert result["structuredContent"] == {"created": 2, "unchecked": ["titles"]}


def test_an_action_given_the_default_serializer_reads_its_own_keys(
    mcp: MCPTestClient,
) -> None:
    arguments = {"address": "grace@example.org"}
    result = as_rest(mcp, "members__invite", arguments, "post", "/api/members/invite/")
    assert result["structuredContent"]["unchecked"] == ["address"]
    assert rows()["members"] == [("grace", "grace@example.org", "agent", "")]


def test_a_create_whose_declared_body_is_not_the_views(
    mcp: MCPTestClient, tools: dict[str, dict[str, Any]]
) -> None:
    """``secret`` is a field of the serializer the view validates with; the
    outputSchema (too large to list: ``help`` gives it) covers the result."""
    arguments = {"username": "ada", "email": "ada@example.org", "secret": "k"}
    result = as_rest(mcp, "members__create", arguments, "post", "/api/members/")
    structured = result["structuredContent"]
    assert structured["unchecked"] == ["secret"]
    assert rows()["members"] == [("ada", "ada@example.org", "agent", "k")]
    assert "outputSchema" not in tools["members__create"]
    doc = mcp.call_tool("members__create", {"help": True})["structuredContent"]
    output = doc["help"]["output_schema"]
    Draft202012Validator(output).validate(structured)
    shapes = [s["properties"] for s in output["anyOf"] if "help" not in s["properties"]]
    assert all("unchecked" in shape for shape in shapes)


@pytest.mark.parametrize("arguments", [{}, {"username": "  ", "email": ""}])
def test_the_empty_write_guard_holds_on_a_guessed_create(
    mcp: MCPTestClient, arguments: dict[str, Any]
) -> None:
    with pytest.raises(MCPError) as info:
        mcp.call_tool("members__create", arguments)
    assert (info.value.code, info.value.data["code"]) == (-32602, "empty_write")
    assert Member.objects.count() == 0


@pytest.mark.parametrize(
    ("tool", "arguments", "typo", "meant"),
    [
        ("tickets__create", {"titel": "Fan loud"}, "titel", "title"),
        ("tickets__partial_update", {"stauts": "closed"}, "stauts", "status"),
        ("members__promote", {"rol": "lead"}, "rol", "role"),
    ],
)
def test_a_typo_is_refused_where_the_schema_is_authoritative(
    mcp: MCPTestClient,
    ticket: Ticket,
    tool: str,
    arguments: dict[str, Any],
    typo: str,
    meant: str,
) -> None:
    member = Member.objects.create(username="ada")
    path = {"id": member.pk} if tool.startswith("members") else {"id": ticket.pk}
    if tool == "tickets__create":
        path = {}
    before = rows()
    with pytest.raises(MCPError) as info:
        mcp.call_tool(tool, {**path, **arguments})
    error = info.value.data
    assert (info.value.code, error["code"]) == (-32602, "unknown_argument")
    assert error["suggestions"] == {typo: meant}
    assert f"did you mean {meant!r}" in info.value.message.lower()
    assert rows() == before


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("tickets__close", {"data": {"reason": "cable"}}),
        ("tickets__close", {"data": '{"reason": "cable"}'}),
        ("tickets__comments", {"body": {"ids": [1]}}),
        ("tickets__destroy", {"ticket": {"reason": "duplicate"}}),
        ("members__create", {"member": {"username": "ada"}}),
    ],
)
def test_a_wrapper_is_refused_on_a_guessed_tool(
    mcp: MCPTestClient, ticket: Ticket, tool: str, arguments: dict[str, Any]
) -> None:
    path = {} if tool == "members__create" else {"id": ticket.pk}
    before = rows()
    with pytest.raises(MCPError) as info:
        mcp.call_tool(tool, {**path, **arguments})
    assert (info.value.code, info.value.data["code"]) == (-32602, "nested_wrapper")
    assert rows() == before


def test_a_protocol_argument_of_another_kind_is_never_passed_on(
    mcp: MCPTestClient, ticket: Ticket
) -> None:
    """``mode: "validate"`` must not close the ticket for real."""
    with pytest.raises(MCPError) as info:
        mcp.call_tool(
            "tickets__close", {"id": ticket.pk, "reason": "x", "mode": "validate"}
        )
    assert info.value.data["code"] == "unknown_argument"
    assert Ticket.objects.get(pk=ticket.pk).status == "open"


def test_no_value_sent_unchecked_comes_back(mcp: MCPTestClient, ticket: Ticket) -> None:
    secret = "k7Mq-s3cr3t-value"
    arguments = {"id": ticket.pk, "reason": "cable", "apiKey": secret}
    arguments["x-Token9a"] = secret + "-2"
    response = mcp.post(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "tickets__close", "arguments": arguments},
        }
    )
    text = response.content.decode()
    assert "s3cr3t" not in text
    assert "Token9a" not in text
    result = json.loads(text)["result"]
    assert result["structuredContent"]["unchecked"] == ["reason", "apiKey", "<key>"]
