"""Records as resources (ADR 0043), through the wire, in both eras.

tests/urls_resources.py serves read-only publishers under each refusal the
ADR names; every request goes through the mounted endpoint.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from io import StringIO
from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser, User
from django.core import checks
from django.core.management import call_command
from django.test import Client, RequestFactory, override_settings

from frisian_mcp import resources
from frisian_mcp.checks import check_settings, check_tools
from frisian_mcp.contrib.testing import MCPTestClient
from frisian_mcp.types import CallContext
from tests.callers import ERAS, SETTINGS, client_as, error
from tests.mounted import mounted
from tests.testapp.models import Book, Publisher

pytestmark = pytest.mark.django_db

URLCONF = "tests.urls_resources"
MODERN = "2026-07-28"
NOT_FOUND = {"2025-11-25": -32002, MODERN: -32602}
TEMPLATES = {
    "coded": "drf://coded/{code}",
    "dutch": "drf://dutch/{id}",
    "guarded": "drf://guarded/{id}",
    "houses__books": "drf://houses__books/{publisher}/{isbn}",
    "staff": "drf://staff/{id}",
    "throttled": "drf://throttled/{id}",
}


@pytest.fixture(autouse=True)
def _mounted(db: None) -> Iterator[None]:
    with mounted(URLCONF, SETTINGS):
        yield


@pytest.fixture
def rows() -> dict[str, Publisher]:
    dutch = Publisher.objects.create(name="Dutch", country="NL", code="A/B")
    german = Publisher.objects.create(name="German", country="DE", code="DE")
    secret = Publisher.objects.create(name="Secret", country="XX", code="XX")
    Book.objects.create(title="Kaas", isbn="9780000000001", publisher=dutch)
    return {"dutch": dutch, "german": german, "secret": secret}


def every_page(mcp: MCPTestClient, method: str, key: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    params: dict[str, Any] = {}
    while True:
        result = mcp.request(method, params)
        found.extend(result[key])
        if "nextCursor" not in result:
            return found
        params = {"cursor": result["nextCursor"]}


# -- capability -----------------------------------------------------------------


@pytest.mark.parametrize("era", ERAS)
def test_the_capability_is_declared_with_a_retrieve_tool(era: str) -> None:
    capabilities = client_as("user", era).initialize()["capabilities"]
    assert capabilities["resources"] == {}


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize(
    "method", ["resources/list", "resources/templates/list", "resources/read"]
)
def test_without_retrieve_tools_the_methods_stay_unknown(era: str, method: str) -> None:
    excluded = {**SETTINGS, "EXCLUDE": ["*__retrieve"]}
    with override_settings(FRISIAN_MCP=excluded):
        mcp = client_as("user", era)
        assert "resources" not in mcp.initialize()["capabilities"]
        refused = error(mcp, method, {"uri": "drf://first"})
    assert refused.code == -32601
    assert refused.response.status_code == (404 if era == MODERN else 200)


@pytest.mark.parametrize("era", ERAS)
def test_subscribe_stays_unknown(era: str) -> None:
    refused = error(client_as("user", era), "resources/subscribe", {"uri": "x"})
    assert refused.code == -32601


# -- listing --------------------------------------------------------------------


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize("kind", ["anonymous", "user", "staff"])
def test_templates_are_listed_per_caller(era: str, kind: str) -> None:
    mcp = client_as(kind, era)
    listed = every_page(mcp, "resources/templates/list", "resourceTemplates")
    expected = {k: v for k, v in TEMPLATES.items() if kind == "staff" or k != "staff"}
    assert {t["name"]: t["uriTemplate"] for t in listed} == expected
    tools = {t["name"] for t in mcp.list_tools()}
    assert {f"{t['name']}__retrieve" for t in listed} <= tools
    assert ("staff__retrieve" in tools) is (kind == "staff")
    dutch = next(t for t in listed if t["name"] == "dutch")
    assert dutch == {
        "uriTemplate": "drf://dutch/{id}",
        "name": "dutch",
        "title": "Get publisher",
        "description": dutch["description"],
        "mimeType": "application/json",
    }
    assert dutch["description"].startswith("Get one publisher by id.")


def test_the_oldest_revision_lists_no_titles() -> None:
    listed = client_as("user", "2025-03-26").request("resources/templates/list")
    assert listed["resourceTemplates"]
    assert all("title" not in t for t in listed["resourceTemplates"])


@pytest.mark.parametrize("era", ERAS)
def test_resources_lists_the_routes_without_variables(era: str) -> None:
    listed = client_as("user", era).request("resources/list")["resources"]
    assert listed == [
        {
            "uri": "drf://first",
            "name": "first",
            "title": "Get publisher",
            "description": listed[0]["description"],
            "mimeType": "application/json",
        },
        {
            "uri": "drf://me",
            "name": "me",
            "title": "Get user",
            "description": listed[1]["description"],
            "mimeType": "application/json",
        },
    ]
    assert "The first publisher" in listed[0]["description"]
    # No path variable, no lookup: not "Get one user by id."
    assert listed[1]["description"].startswith("Get one user.")
    anonymous = client_as("anonymous", era).request("resources/list")["resources"]
    assert [entry["uri"] for entry in anonymous] == ["drf://first"]
    assert "me__retrieve" not in {
        t["name"] for t in client_as("anonymous", era).list_tools()
    }


@pytest.mark.parametrize("kind", ["anonymous", "user", "staff"])
def test_listed_is_what_resources_list_lists(kind: str) -> None:
    mcp = client_as(kind, MODERN)
    wire = [entry["uri"] for entry in mcp.request("resources/list")["resources"]]
    request = RequestFactory().post("/mcp")
    request.user = (
        User.objects.get(username=kind) if kind != "anonymous" else AnonymousUser()
    )
    context = CallContext(request=request, user=request.user, protocol_version=MODERN)
    assert [t.uri(()) for t in resources.listed(context)] == wire
    assert all(not t.variables for t in resources.listed(context))
    expected = ["drf://first"] if kind == "anonymous" else ["drf://first", "drf://me"]
    assert wire == expected


@pytest.mark.parametrize("era", ERAS)
def test_resources_page_with_their_own_signed_cursor(era: str) -> None:
    with override_settings(FRISIAN_MCP={**SETTINGS, "TOOLS_LIST_PAGE_SIZE": 1}):
        mcp = client_as("user", era)
        first = mcp.request("resources/list")
        listed = every_page(mcp, "resources/list", "resources")
        forged = error(mcp, "resources/templates/list", {"cursor": first["nextCursor"]})
        anonymous = client_as("anonymous", era).request("resources/list")
    assert [entry["uri"] for entry in first["resources"]] == ["drf://first"]
    assert [entry["uri"] for entry in listed] == ["drf://first", "drf://me"]
    assert (forged.code, forged.data) == (-32602, {"code": "invalid_token"})
    # The hidden route after the last one listed leaves no cursor behind.
    assert [entry["uri"] for entry in anonymous["resources"]] == ["drf://first"]
    assert "nextCursor" not in anonymous


def test_the_dispatcher_layout_lists_the_same_templates() -> None:
    flat = client_as("user", MODERN).request("resources/templates/list")
    with override_settings(FRISIAN_MCP={**SETTINGS, "TOOL_LAYOUT": "dispatcher"}):
        arranged = client_as("staff2", MODERN).request("resources/templates/list")
    assert flat["resourceTemplates"] == [
        t for t in arranged["resourceTemplates"] if t["name"] != "staff"
    ]


@pytest.mark.parametrize("era", ERAS)
def test_templates_page_with_a_signed_cursor(era: str) -> None:
    with override_settings(FRISIAN_MCP={**SETTINGS, "TOOLS_LIST_PAGE_SIZE": 2}):
        mcp = client_as("staff", era)
        first = mcp.request("resources/templates/list")
        assert len(first["resourceTemplates"]) == 2
        listed = every_page(mcp, "resources/templates/list", "resourceTemplates")
        tools_cursor = mcp.request("tools/list")["nextCursor"]
        foreign = error(mcp, "resources/templates/list", {"cursor": tools_cursor})
        forged = error(mcp, "resources/list", {"cursor": first["nextCursor"]})
        typed = error(mcp, "resources/templates/list", {"cursor": 7})
    assert [t["name"] for t in listed] == sorted(TEMPLATES)
    for refused in (foreign, forged):
        assert refused.code == -32602
        assert refused.data == {"code": "invalid_token"}
    assert typed.code == -32602


@pytest.mark.parametrize("method", ["resources/list", "resources/templates/list"])
def test_lists_carry_caching_hints_in_2026_07_28(method: str) -> None:
    modern = client_as("user", MODERN).request(method)
    assert (modern["ttlMs"], modern["cacheScope"]) == (60_000, "private")
    assert modern["resultType"] == "complete"
    old = client_as("user2", "2025-11-25").request(method)
    assert "ttlMs" not in old
    assert "cacheScope" not in old


# -- reading --------------------------------------------------------------------


@pytest.mark.parametrize("era", ERAS)
def test_reading_answers_the_rest_representation(
    era: str, rows: dict[str, Publisher]
) -> None:
    mcp = client_as("user", era)
    pk = rows["dutch"].pk
    result = mcp.request("resources/read", {"uri": f"drf://dutch/{pk}"})
    [content] = result["contents"]
    assert content["uri"] == f"drf://dutch/{pk}"
    assert content["mimeType"] == "application/json"
    rest = mcp.client.get(f"/api/dutch/{pk}/", headers={"Accept": "application/json"})
    assert rest.status_code == 200
    assert json.loads(content["text"]) == rest.json()
    if era == MODERN:
        assert (result["ttlMs"], result["cacheScope"]) == (0, "private")
    else:
        assert "ttlMs" not in result


@pytest.mark.parametrize("era", ERAS)
def test_the_uri_answered_is_canonical(era: str, rows: dict[str, Publisher]) -> None:
    mcp = client_as("user", era)
    result = mcp.request("resources/read", {"uri": "DRF://Coded/A%2fB"})
    [content] = result["contents"]
    assert content["uri"] == "drf://coded/A%2FB"
    assert json.loads(content["text"])["code"] == "A/B"


@pytest.mark.parametrize("era", ERAS)
def test_two_variables_and_a_route_without_any(
    era: str, rows: dict[str, Publisher]
) -> None:
    mcp = client_as("user", era)
    uri = f"drf://houses__books/{rows['dutch'].pk}/9780000000001"
    [book] = mcp.request("resources/read", {"uri": uri})["contents"]
    assert json.loads(book["text"])["title"] == "Kaas"
    [first] = mcp.request("resources/read", {"uri": "drf://first"})["contents"]
    assert json.loads(first["text"])["name"] == "Dutch"


@pytest.mark.parametrize("era", ERAS)
def test_a_route_without_variables_reads_as_each_caller_gets_it(era: str) -> None:
    read = {}
    for kind in ("user", "staff"):
        mcp = client_as(kind, era)
        [content] = mcp.request("resources/read", {"uri": "drf://me"})["contents"]
        read[kind] = json.loads(content["text"])
    assert read == {
        "user": {"username": "user", "is_staff": False},
        "staff": {"username": "staff", "is_staff": True},
    }
    anonymous = client_as("anonymous", era)
    hidden = error(anonymous, "resources/read", {"uri": "drf://me"})
    missing = error(anonymous, "resources/read", {"uri": "drf://nothing"})
    assert hidden.code == NOT_FOUND[era]
    assert (hidden.code, hidden.message, hidden.data) == (
        missing.code,
        missing.message,
        missing.data,
    )


def _missing_uris(rows: dict[str, Publisher]) -> dict[str, str]:
    """What answers "not found" to a signed-in non-staff caller, by why."""
    dutch, german = rows["dutch"].pk, rows["german"].pk
    return {
        "hidden template": f"drf://staff/{dutch}",
        "hidden row (queryset)": f"drf://dutch/{german}",
        "no such row": "drf://dutch/999999",
        "value the pattern refuses": "drf://houses__books/abc/9780000000001",
        "no such key": "drf://nothing/1",
        "other scheme": f"https://dutch/{dutch}",
        "no scheme": f"dutch/{dutch}",
        "userinfo": f"drf://me@dutch/{dutch}",
        "port": f"drf://dutch:80/{dutch}",
        "query": f"drf://dutch/{dutch}?expand=all",
        "empty query": f"drf://dutch/{dutch}?",
        "fragment": f"drf://dutch/{dutch}#top",
        "trailing slash": f"drf://dutch/{dutch}/",
        "extra segment": f"drf://dutch/{dutch}/more",
        "missing segment": "drf://dutch",
        "empty segment": "drf://houses__books//9780000000001",
        "bad percent": "drf://coded/A%2",
        "not UTF-8": "drf://coded/%FF",
        "not ASCII": "drf://coded/é",
        "space": "drf://coded/A B",
        "control": "drf://coded/A\nB",
        "variables on a route without": "drf://first/1",
        "empty": "",
    }


@pytest.mark.parametrize("era", ERAS)
def test_not_found_is_one_answer_that_echoes_nothing(
    era: str, rows: dict[str, Publisher]
) -> None:
    mcp = client_as("user", era)
    bodies = {}
    for why, uri in _missing_uris(rows).items():
        refused = error(mcp, "resources/read", {"uri": uri})
        assert refused.response.status_code == 200, why
        body = json.loads(refused.response.content)
        body.pop("id")
        bodies[why] = json.dumps(body, sort_keys=True)
        if uri:
            assert uri not in refused.response.content.decode(), why
    assert set(bodies.values()) == {
        json.dumps(
            {
                "jsonrpc": "2.0",
                "error": {
                    "code": NOT_FOUND[era],
                    "message": "Resource not found.",
                    "data": {"code": "not_found"},
                },
            },
            sort_keys=True,
        )
    }


@pytest.mark.parametrize("era", ERAS)
def test_a_uri_that_is_no_string_is_invalid_params(era: str) -> None:
    refused = error(client_as("user", era), "resources/read", {})
    assert refused.code == -32602
    assert refused.message.startswith("Invalid params: resources/read needs")


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize(
    ("kind", "row", "code"),
    [
        ("user", "secret", "permission_denied"),
        ("anonymous", "dutch", "not_authenticated"),
    ],
)
def test_a_listed_template_refusing_the_caller_says_why(
    era: str, kind: str, row: str, code: str, rows: dict[str, Publisher]
) -> None:
    mcp = client_as(kind, era)
    refused = error(mcp, "resources/read", {"uri": f"drf://guarded/{rows[row].pk}"})
    assert (refused.code, refused.data["code"]) == (-32602, code)
    assert refused.response.status_code == 200
    rest = mcp.client.get(f"/api/guarded/{rows[row].pk}/")
    assert rest.status_code == {"permission_denied": 403}.get(code, 401)


@pytest.mark.parametrize("era", ERAS)
def test_a_throttled_read_says_how_long_to_wait(
    era: str, rows: dict[str, Publisher]
) -> None:
    mcp = client_as("user", era)
    uri = f"drf://throttled/{rows['dutch'].pk}"
    refused = error(mcp, "resources/read", {"uri": uri})
    assert refused.code == -32602
    assert refused.data["code"] == "throttled"
    assert refused.data["retry_after"] == 30.0


def test_staff_read_what_others_may_not(rows: dict[str, Publisher]) -> None:
    mcp = client_as("staff", MODERN)
    for uri in (f"drf://staff/{rows['dutch'].pk}", f"drf://dutch/{rows['german'].pk}"):
        [content] = mcp.request("resources/read", {"uri": uri})["contents"]
        assert content["uri"] == uri


# -- 2026-07-28 headers ---------------------------------------------------------


def _modern_read(uri: str, name: str | None) -> Any:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "resources/read",
        "params": {
            "uri": uri,
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientCapabilities": {},
            },
        },
    }
    headers = {
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": MODERN,
        "Mcp-Method": "resources/read",
    }
    if name is not None:
        headers["Mcp-Name"] = name
    return Client().post(
        "/mcp", json.dumps(body), content_type="application/json", headers=headers
    )


@pytest.mark.parametrize("name", [None, "drf://dutch/2", "drf://DUTCH/1"])
def test_mcp_name_must_mirror_the_uri(name: str | None, rows: Any) -> None:
    response = _modern_read("drf://dutch/1", name)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == -32020


def test_a_mirrored_uri_reads(rows: dict[str, Publisher]) -> None:
    uri = f"drf://dutch/{rows['dutch'].pk}"
    response = _modern_read(uri, uri)
    assert response.status_code == 200
    assert response.json()["result"]["contents"][0]["uri"] == uri


# -- RESOURCE_SCHEME and the checks ---------------------------------------------


def test_the_scheme_is_a_setting(rows: dict[str, Publisher]) -> None:
    with override_settings(FRISIAN_MCP={**SETTINGS, "RESOURCE_SCHEME": "com.ex.crm"}):
        mcp = client_as("user", MODERN)
        listed = mcp.request("resources/templates/list")["resourceTemplates"]
        uri = f"com.ex.crm://dutch/{rows['dutch'].pk}"
        [content] = mcp.request("resources/read", {"uri": uri})["contents"]
        old = error(mcp, "resources/read", {"uri": f"drf://dutch/{rows['dutch'].pk}"})
    assert {t["uriTemplate"].partition("://")[0] for t in listed} == {"com.ex.crm"}
    assert content["uri"] == uri
    assert old.data == {"code": "not_found"}


@pytest.mark.parametrize(
    "scheme", ["HTTP", "https", "file", "git", "data", "urn", "mcp", "1x", "a b", ""]
)
def test_a_scheme_that_is_not_ours_to_take_is_refused(scheme: str) -> None:
    with override_settings(FRISIAN_MCP={"RESOURCE_SCHEME": scheme}):
        found = check_settings()
    assert [m.id for m in found] == ["frisian_mcp.E007"]
    assert "RESOURCE_SCHEME" in found[0].msg


@pytest.mark.parametrize("scheme", ["drf", "crm", "com.example.crm", "x-api+v2"])
def test_a_private_scheme_passes(scheme: str) -> None:
    with override_settings(FRISIAN_MCP={"RESOURCE_SCHEME": scheme}):
        assert check_settings() == []
        call_command("check", stdout=StringIO())


def test_keys_that_differ_only_in_case_are_reported_and_not_served() -> None:
    names = {
        "tests.urls_resources.StaffPublisherViewSet": {"name": "Pubs"},
        "tests.urls_resources.DutchPublisherViewSet": {"name": "pubs"},
    }
    with override_settings(FRISIAN_MCP={**SETTINGS, "VIEWSET_OPTIONS": names}):
        found = [m for m in check_tools() if m.id == "frisian_mcp.W016"]
        listed = client_as("staff", MODERN).request("resources/templates/list")
    assert len(found) == 1
    assert found[0].level == checks.WARNING
    assert "'pubs__retrieve'" in found[0].msg
    names_listed = {t["name"] for t in listed["resourceTemplates"]}
    assert not any(n.startswith("pubs") for n in names_listed)
    assert "guarded" in names_listed
