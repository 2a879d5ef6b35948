"""Host prompts through the endpoint, in both eras (ADR 0044, issue 28 item 2).

The test app's ``mcp_prompts.py`` declares one prompt per argument type,
permission and failure; ``prompts/list`` and ``prompts/get`` are posted as
a client does, under 2025-11-25's handshake and 2026-07-28's per-request
``_meta`` with mirrored headers.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client, override_settings

from frisian_mcp import prompts
from frisian_mcp.contrib.testing import MCPError, MCPTestClient
from frisian_mcp.exceptions import HostError
from frisian_mcp.types import CallContext

pytestmark = pytest.mark.django_db

ERAS = ["2025-11-25", "2026-07-28"]
#: A value no error may repeat.
SECRET = "Zq7SecretValue"
ANONYMOUS = [
    "bad_block",
    "book_card",
    "book_stats",
    "broken",
    "contact_summary",  # the demo's
    "conversation",
    "describe_book",
    "missing_tool",
    "read_uri",
    "site_review",  # the demo's
    "undecided-prompt",
]


class PromptClient(MCPTestClient):
    """The test client, with shorthands for prompts."""

    def get(self, name: Any, arguments: Any = None) -> dict[str, Any]:
        params: dict[str, Any] = {"name": name}
        if arguments is not None:
            params["arguments"] = arguments
        result: dict[str, Any] = self.request("prompts/get", params)
        return result

    def fails(self, name: Any, arguments: Any = None) -> MCPError:
        with pytest.raises(MCPError) as caught:
            self.get(name, arguments)
        assert SECRET not in caught.value.response.content.decode()
        return caught.value

    def names(self) -> list[str]:
        return [p["name"] for p in self.request("prompts/list")["prompts"]]


@pytest.fixture(params=ERAS)
def era(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def client_for(era: str) -> Any:
    def make(client: Client | None = None) -> PromptClient:
        mcp = PromptClient(client, protocol_version=era)
        mcp.initialize()
        return mcp

    return make


@pytest.fixture
def anonymous(client_for: Any) -> PromptClient:
    made: PromptClient = client_for()
    return made


def staff_client(client_for: Any) -> PromptClient:
    client = Client()
    client.force_login(User.objects.create_user("staff", is_staff=True))
    made: PromptClient = client_for(client)
    return made


@pytest.fixture
def no_prompts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(prompts, "_DECLARED", [])


# -- the capability -------------------------------------------------------------


def test_the_capability_is_declared_when_a_prompt_is(era: str) -> None:
    found = PromptClient(protocol_version=era).initialize()
    assert found["capabilities"]["prompts"] == {}


@pytest.mark.usefixtures("no_prompts")
@pytest.mark.parametrize("method", ["prompts/list", "prompts/get"])
def test_a_host_without_prompts_serves_none(era: str, method: str) -> None:
    mcp = PromptClient(protocol_version=era)
    assert "prompts" not in mcp.initialize()["capabilities"]
    with pytest.raises(MCPError) as caught:
        mcp.request(method, {"name": "describe_book"})
    assert caught.value.code == -32601
    assert caught.value.response.status_code == (404 if era == ERAS[1] else 200)


# -- prompts/list ---------------------------------------------------------------


def test_the_listing_shows_the_callers_prompts_in_name_order(
    anonymous: PromptClient, client_for: Any
) -> None:
    assert anonymous.names() == ANONYMOUS
    signed_in = sorted([*ANONYMOUS, "private_shelf", "staff_report"])
    assert staff_client(client_for).names() == signed_in


def test_the_listing_describes_each_argument(anonymous: PromptClient) -> None:
    listed = anonymous.request("prompts/list")["prompts"]
    found = next(p for p in listed if p["name"] == "describe_book")
    assert found["title"] == "Describe a book"
    assert found["description"] == "Ask for a description of a book."
    arguments = {a["name"]: a for a in found["arguments"]}
    assert list(arguments) == [
        "title",
        "copies",
        "signed",
        "genre",
        "tone",
        "mood",
        "topic",
    ]
    assert arguments["title"] == {
        "name": "title",
        "description": "The book's title",
        "required": True,
    }
    assert arguments["copies"] == {"name": "copies", "required": False}
    assert arguments["tone"]["description"] == "One of: brief, full."
    assert arguments["genre"]["description"] == "One of: fiction, science, history."


def test_2025_03_26_lists_no_titles() -> None:
    mcp = PromptClient(protocol_version="2025-03-26")
    mcp.initialize()
    listed = mcp.request("prompts/list")["prompts"]
    assert all("title" not in p for p in listed)


def test_the_modern_listing_is_cacheable_and_a_get_is_not(
    anonymous: PromptClient, era: str
) -> None:
    listed = anonymous.request("prompts/list")
    got = anonymous.get("conversation")
    if era == "2026-07-28":
        assert (listed["ttlMs"], listed["cacheScope"]) == (60_000, "private")
        assert listed["resultType"] == got["resultType"] == "complete"
    else:
        assert "ttlMs" not in listed
    assert "ttlMs" not in got
    assert "cacheScope" not in got


@override_settings(
    FRISIAN_MCP={"REQUIRE_AUTHENTICATION": False, "TOOLS_LIST_PAGE_SIZE": 4}
)
def test_the_listing_pages_with_a_signed_cursor(anonymous: PromptClient) -> None:
    seen: list[str] = []
    params: dict[str, Any] = {}
    pages = 0
    while True:
        page = anonymous.request("prompts/list", params)
        seen.extend(p["name"] for p in page["prompts"])
        pages += 1
        if "nextCursor" not in page:
            break
        params = {"cursor": page["nextCursor"]}
    assert (seen, pages) == (ANONYMOUS, 3)
    with pytest.raises(MCPError) as caught:
        anonymous.request("prompts/list", {"cursor": params["cursor"] + "x"})
    assert caught.value.code == -32602
    assert caught.value.data["code"] == "invalid_token"


# -- prompts/get ----------------------------------------------------------------


def _text(result: dict[str, Any]) -> str:
    [message] = result["messages"]
    assert message["role"] == "user"
    assert message["content"]["type"] == "text"
    return str(message["content"]["text"])


def test_each_argument_type_is_converted(anonymous: PromptClient) -> None:
    result = anonymous.get(
        "describe_book",
        {
            "title": "Dune",
            "copies": "-3",
            "signed": "TRUE",
            "genre": "science",
            "tone": "full",
            "mood": "cross",
            "topic": "sand",
        },
    )
    assert _text(result) == "Dune | -3 | True | science | full | cross | sand"
    assert result["description"] == "Ask for a description of a book."


def test_defaults_fill_the_optional_arguments(anonymous: PromptClient) -> None:
    result = anonymous.get("describe_book", {"title": "Dune"})
    assert _text(result) == "Dune | 1 | False | fiction | brief | - | -"


def test_messages_of_every_role_and_block(anonymous: PromptClient) -> None:
    messages = anonymous.get("conversation")["messages"]
    assert [m["role"] for m in messages] == [
        "user",
        "assistant",
        "user",
        "user",
        "user",
    ]
    assert messages[2]["content"] == {
        "type": "resource",
        "resource": {
            "uri": "urn:example:note",
            "mimeType": "text/plain",
            "text": "a note",
        },
    }
    assert messages[3]["content"]["resource"]["blob"] == "AAE="
    assert messages[4]["content"]["type"] == "image"


def test_a_prompt_calls_tools_as_the_caller(anonymous: PromptClient) -> None:
    assert _text(anonymous.get("book_stats")) == "0 books, 0 publishers"
    refused = anonymous.fails("missing_tool")
    assert refused.code == -32602
    assert refused.data["code"] == "unknown_tool"


@pytest.mark.parametrize(
    ("argument", "form"),
    [
        ("copies", "an integer"),
        ("signed", "true or false"),
        ("genre", "one of fiction, science, history"),
        ("tone", "one of brief, full"),
        ("mood", "one of calm, cross"),
    ],
)
def test_a_value_of_the_wrong_form_names_the_argument_and_form(
    anonymous: PromptClient, argument: str, form: str
) -> None:
    refused = anonymous.fails("describe_book", {"title": "x", argument: SECRET})
    assert refused.code == -32602
    assert refused.data == {"code": "invalid_argument", "argument": argument}
    assert f"`{argument}` must be {form}" in refused.message


def test_a_value_that_is_not_a_string_is_refused(anonymous: PromptClient) -> None:
    refused = anonymous.fails("describe_book", {"title": "x", "copies": 3})
    assert refused.data == {"code": "invalid_argument", "argument": "copies"}


def test_a_missing_required_argument_is_named(anonymous: PromptClient) -> None:
    refused = anonymous.fails("describe_book", {"copies": "2"})
    assert refused.code == -32602
    assert refused.data == {"code": "invalid_argument", "arguments": ["title"]}
    assert "title" in refused.message


def test_an_unknown_argument_is_refused(anonymous: PromptClient) -> None:
    refused = anonymous.fails("describe_book", {"title": "x", "titel": SECRET})
    assert refused.data == {"code": "unknown_argument"}
    assert "titel" in refused.message
    refused = anonymous.fails("describe_book", ["title"])
    assert refused.data == {"code": "invalid_argument"}


@pytest.mark.parametrize("name", [None, "", 7, ["describe_book"]])
def test_a_get_without_a_name_is_refused(anonymous: PromptClient, name: Any) -> None:
    if anonymous.modern and name is not None:
        pytest.skip("2026-07-28: a name no header can mirror is -32020 first")
    refused = anonymous.fails(name)
    assert refused.code == -32602
    assert refused.data["code"] == "unknown_prompt"


def test_an_unknown_prompt_suggests_the_callers_own(anonymous: PromptClient) -> None:
    refused = anonymous.fails("describe_bok")
    assert refused.code == -32602
    assert refused.data == {
        "code": "unknown_prompt",
        "suggestions": ["describe_book"],
    }
    assert anonymous.fails(SECRET).data["suggestions"] == []


def test_a_hidden_prompt_answers_as_an_unknown_one(
    anonymous: PromptClient, client_for: Any
) -> None:
    hidden = anonymous.fails("staff_report")
    unknown = anonymous.fails("staff_reportx")
    assert (hidden.code, hidden.message) == (unknown.code, unknown.message)
    assert hidden.data == {"code": "unknown_prompt", "suggestions": []}
    assert anonymous.fails("staff_repor").data["suggestions"] == []
    staff = staff_client(client_for)
    assert _text(staff.get("staff_report")) == "report for staff"
    assert _text(staff.get("undecided-prompt")) == "shown"


def test_a_failing_prompt_is_an_internal_error(
    anonymous: PromptClient, caplog: pytest.LogCaptureFixture
) -> None:
    for name, arguments in [("broken", {"secret": SECRET}), ("bad_block", None)]:
        refused = anonymous.fails(name, arguments)
        assert refused.code == -32603
        assert refused.data["code"] == "internal_error"
        assert refused.data["correlation_id"] in caplog.text
    assert "ValueError" in caplog.text
    assert "whose data is not base64" in caplog.text


def test_a_modern_get_mirrors_the_prompt_name() -> None:
    mcp = MCPTestClient(protocol_version="2026-07-28")
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "prompts/get",
        "params": {"name": "conversation", "_meta": meta},
    }
    response = mcp.post(body, headers={"Mcp-Method": "prompts/get"})  # no Mcp-Name
    assert response.status_code == 400
    assert json.loads(response.content)["error"]["code"] == -32020


# -- for completion ---------------------------------------------------------------


def _context(user: Any = None) -> CallContext:
    from django.contrib.auth.models import AnonymousUser
    from django.test import RequestFactory

    return CallContext(RequestFactory().post("/mcp"), user or AnonymousUser())


def test_argument_values_complete_choices_and_declared_callables() -> None:
    values = prompts.argument_values
    context = _context()
    assert values(context, "describe_book", "genre", "S") == ["science"]
    assert values(context, "describe_book", "tone", "") == ["brief", "full"]
    assert values(context, "describe_book", "topic", "ap") == ["apple", "apricot"]
    assert values(context, "describe_book", "title", "a") == []
    assert values(context, "describe_book", "nope", "a") is None
    assert values(context, "nope", "title", "a") is None
    assert values(context, "staff_report", "x", "") is None
    assert prompts.record_argument("describe_book", "title") is None


def test_a_failing_completion_callable_is_the_hosts_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def fails(context: Any, value: str) -> list[str]:
        raise RuntimeError(value)

    found = prompts.declared()["describe_book"]
    topic = next(a for a in found.arguments if a.name == "topic")
    patched = type(topic)(**{**topic.__dict__, "complete": fails})
    swapped = type(found)(**{**found.__dict__, "arguments": (patched,)})
    monkeypatch.setattr(prompts, "_DECLARED", [swapped])
    with pytest.raises(HostError):
        prompts.argument_values(_context(), "describe_book", "topic", "a")
