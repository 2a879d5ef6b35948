"""The demo's authorization server, through its HTTP endpoints (issue 12).

Django's test client drives the discovery documents, the login and consent
pages, the token, revocation and registration endpoints and ``/mcp`` with
the demo's ``OAUTH2_PROVIDER`` settings; client ID metadata documents are
fetched over real HTTPS from a server on the loopback interface. Every
refusal is checked for its error and for what it did not write: no grant,
no token, no application.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from datetime import timedelta
from io import StringIO
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.forms.models import model_to_dict
from django.test import Client, override_settings
from django.utils import timezone
from oauth2_provider.models import AccessToken, Application, Grant, RefreshToken

from demo_project import settings as demo
from demo_project.contacts.models import Contact
from demo_project.management.commands.seed_demo import (
    DEMO_CLIENT_ID,
    DEMO_CLIENT_REDIRECT_URIS,
    DEMO_TOKEN,
)
from frisian_mcp.contrib.testing import MCPError, MCPTestClient, tool_error
from tests.oauth_as_support import (
    DocumentServer,
    Route,
    consent_form,
    document_server,
    pkce_pair,
)

if TYPE_CHECKING:
    from django.test.client import _MonkeyPatchedWSGIResponse as TestResponse

pytestmark = pytest.mark.django_db

PUBLIC = "http://testserver"
RESOURCE = f"{PUBLIC}/mcp"
ISSUER = f"{PUBLIC}/oauth"
METADATA = f"{PUBLIC}/.well-known/oauth-protected-resource/mcp"
REDIRECT = "http://127.0.0.1/callback"
AGENT_REDIRECT = "http://127.0.0.1:8765/callback"
RATE = 5


def as_settings() -> dict[str, Any]:
    """The demo's OAuth settings, on ``testserver``, with the test URLconf."""
    oauth: dict[str, Any] = {**demo.FRISIAN_MCP["OAUTH"]}  # type: ignore[dict-item]
    oauth.update(RESOURCE=RESOURCE, AUTHORIZATION_SERVERS=[ISSUER])
    return {
        "ROOT_URLCONF": "tests.urls_oauth_as",
        "LOGIN_URL": demo.LOGIN_URL,
        "OAUTH2_PROVIDER": {
            **demo.OAUTH2_PROVIDER,
            "OIDC_ISS_ENDPOINT": ISSUER,
            "ALWAYS_RELOAD_OAUTHLIB_CORE": True,
        },
        "FRISIAN_MCP": {
            "REQUIRE_AUTHENTICATION": True,
            "AUTHENTICATION_CLASSES": [
                "frisian_mcp.contrib.oauth.authentication.BearerTokenAuthentication",
                "rest_framework.authentication.TokenAuthentication",
            ],
            "OAUTH": oauth,
        },
        "DEMO_REGISTRATION_RATE": (RATE, 3600),
        "DEMO_CIMD_ALLOW_PRIVATE": False,
        "DEMO_CIMD_CA_FILE": "",
    }


@pytest.fixture(autouse=True)
def _demo_as(demo_data: None) -> Iterator[None]:
    with override_settings(**as_settings()):
        yield


def written() -> tuple[int, int, int, int]:
    """How many grants, access tokens, refresh tokens and applications exist."""
    return (
        Grant.objects.count(),
        AccessToken.objects.count(),
        RefreshToken.objects.count(),
        Application.objects.count(),
    )


# -- helpers: the browser's part and the client's part -------------------------


def signed_in(username: str = "demo") -> Client:
    """A browser session after the login page accepted the demo password."""
    browser = Client()
    response = browser.post(
        "/oauth/login/", {"username": username, "password": username}
    )
    assert response.status_code == 302, response.content
    return browser


def authorize_params(challenge: str, **overrides: str) -> dict[str, str]:
    params = {
        "response_type": "code",
        "client_id": DEMO_CLIENT_ID,
        "redirect_uri": REDIRECT,
        "state": "state-1",
        "code_challenge": challenge,
        "code_challenge_method": "S256",
        "resource": RESOURCE,
        "scope": "mcp:read mcp:write",
    }
    params.update(overrides)
    return params


def consent(browser: Client, params: dict[str, str]) -> TestResponse:
    """Open the consent page and press Allow; return the last response."""
    url = "/oauth/authorize/?" + urlencode(params)
    page: TestResponse = browser.get(url)
    if page.status_code != 200:
        return page
    answer: TestResponse = browser.post(url, consent_form(page.content.decode()))
    return answer


def redirect_query(response: TestResponse) -> dict[str, str]:
    """The query of a redirect back to the client, one value per key."""
    assert response.status_code == 302, response.content
    return {k: v[0] for k, v in parse_qs(urlsplit(response["Location"]).query).items()}


def token_request(**data: str) -> TestResponse:
    response: TestResponse = Client().post("/oauth/token/", data)
    return response


def code_for(username: str = "demo", **overrides: str) -> tuple[str, str]:
    """An authorization code and its PKCE verifier, after login and consent."""
    verifier, challenge = pkce_pair()
    query = redirect_query(
        consent(signed_in(username), authorize_params(challenge, **overrides))
    )
    assert query["state"] == overrides.get("state", "state-1")
    assert query["iss"] == ISSUER  # RFC 9207
    return query["code"], verifier


def exchange(
    code: str, verifier: str, client_id: str = DEMO_CLIENT_ID, **extra: str
) -> TestResponse:
    return token_request(
        grant_type="authorization_code",
        code=code,
        redirect_uri=extra.pop("redirect_uri", REDIRECT),
        client_id=client_id,
        code_verifier=verifier,
        resource=RESOURCE,
        **extra,
    )


def tokens_for(username: str = "demo") -> dict[str, Any]:
    """An access and a refresh token for ``username``, the whole way round."""
    code, verifier = code_for(username)
    response = exchange(code, verifier)
    assert response.status_code == 200, response.content
    body: dict[str, Any] = json.loads(response.content)
    return body


def mcp_with(access_token: str, version: str = "2025-11-25") -> MCPTestClient:
    mcp = MCPTestClient(
        Client(),
        headers={"Authorization": f"Bearer {access_token}"},
        protocol_version=version,
    )
    mcp.initialize()
    return mcp


def mcp_status(access_token: str) -> TestResponse:
    body = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    response: TestResponse = Client().post(
        "/mcp",
        json.dumps(body),
        content_type="application/json",
        headers={
            "Accept": "application/json, text/event-stream",
            "Authorization": f"Bearer {access_token}",
        },
    )
    return response


def assert_refused_token(response: TestResponse, error: str) -> None:
    assert response.status_code in (400, 401), response.content
    assert json.loads(response.content)["error"] == error


# -- discovery ------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "/.well-known/oauth-authorization-server/oauth",
        "/.well-known/oauth-authorization-server",
    ],
)
def test_metadata_advertises_s256_cimd_registration_and_scopes(path: str) -> None:
    document = Client().get(path).json()
    assert document["issuer"] == ISSUER
    assert document["authorization_endpoint"] == f"{PUBLIC}/oauth/authorize/"
    assert document["token_endpoint"] == f"{PUBLIC}/oauth/token/"
    assert document["registration_endpoint"] == f"{PUBLIC}/oauth/register/"
    assert document["code_challenge_methods_supported"] == ["S256"]
    assert document["client_id_metadata_document_supported"] is True
    assert document["authorization_response_iss_parameter_supported"] is True
    assert document["response_types_supported"] == ["code"]
    assert document["grant_types_supported"] == ["authorization_code", "refresh_token"]
    assert document["scopes_supported"] == ["mcp:read", "mcp:write"]


def test_metadata_ignores_the_host_header() -> None:
    response = Client().get(
        "/.well-known/oauth-authorization-server/oauth",
        headers={"Host": "localhost"},
    )
    assert json.loads(response.content)["issuer"] == ISSUER
    assert json.loads(response.content)["token_endpoint"].startswith(PUBLIC)


def test_resource_metadata_points_to_the_demo_server() -> None:
    document = Client().get("/.well-known/oauth-protected-resource/mcp").json()
    assert document["resource"] == RESOURCE
    assert document["authorization_servers"] == [ISSUER]


def test_demo_settings_point_the_resource_at_the_demo_server() -> None:
    """demo_project/settings.py itself: one origin for resource and issuer."""
    oauth: Any = demo.FRISIAN_MCP["OAUTH"]
    assert oauth["RESOURCE"] == f"{demo.PUBLIC_URL}/mcp"
    assert oauth["AUTHORIZATION_SERVERS"] == [demo.OAUTH2_PROVIDER["OIDC_ISS_ENDPOINT"]]
    assert (
        oauth["TOKEN_VALIDATOR"] == "frisian_mcp.contrib.oauth.tokens.DOTTokenValidator"
    )


def test_seed_registers_the_public_client_once() -> None:
    call_command("seed_demo", stdout=StringIO())
    client = Application.objects.get()
    assert client.client_id == DEMO_CLIENT_ID
    assert client.client_type == "public"
    assert client.authorization_grant_type == "authorization-code"
    assert client.redirect_uris.split() == list(DEMO_CLIENT_REDIRECT_URIS)


# -- the happy path, and what the token may see ----------------------------------


def test_login_page_then_consent_page_then_code() -> None:
    _, challenge = pkce_pair()
    url = "/oauth/authorize/?" + urlencode(authorize_params(challenge))
    browser = Client()
    to_login = browser.get(url)
    assert to_login.status_code == 302
    assert to_login["Location"].startswith("/oauth/login/?next=")
    login_page = browser.get(to_login["Location"])
    assert b'name="password"' in login_page.content
    wrong = browser.post(
        to_login["Location"], {"username": "demo", "password": "nope", "next": url}
    )
    assert wrong.status_code == 200
    assert b"did not match" in wrong.content
    back = browser.post(
        to_login["Location"], {"username": "demo", "password": "demo", "next": url}
    )
    assert back["Location"] == url
    page = browser.get(url)
    text = page.content.decode()
    assert "Allow frisian_mcp demo client (pre-registered)" in text
    assert "Read contacts, sites, devices and tags" in text
    assert written()[:2] == (0, 0)
    query = redirect_query(browser.post(url, consent_form(text)))
    assert set(query) == {"code", "state", "iss"}
    assert Grant.objects.count() == 1


def test_deny_returns_access_denied_and_writes_nothing() -> None:
    _, challenge = pkce_pair()
    browser = signed_in()
    url = "/oauth/authorize/?" + urlencode(authorize_params(challenge))
    form = consent_form(browser.get(url).content.decode())
    del form["allow"]
    query = redirect_query(browser.post(url, form))
    assert query["error"] == "access_denied"
    assert "code" not in query
    assert written()[:3] == (0, 0, 0)


@pytest.mark.parametrize("version", ["2025-11-25", "2026-07-28"])
def test_token_is_bound_to_the_resource_and_runs_tools(version: str) -> None:
    tokens = tokens_for()
    assert tokens["scope"] == "mcp:read mcp:write"
    stored = AccessToken.objects.get()
    assert stored.resource == [RESOURCE]
    assert stored.token == ""  # hashed at rest (RFC 9700)
    mcp = mcp_with(tokens["access_token"], version)
    names = {t["name"] for t in mcp.list_tools()}
    assert {"contacts__create", "accounts__list"} <= names
    created = mcp.call_tool("contacts__create", {"email": f"{version}@example.com"})
    assert created["isError"] is False
    assert Contact.objects.filter(email=f"{version}@example.com").exists()


def test_read_scope_only_cannot_create() -> None:
    code, verifier = code_for(scope="mcp:read")
    tokens = json.loads(exchange(code, verifier).content)
    mcp = mcp_with(tokens["access_token"])
    assert "contacts__create" not in {t["name"] for t in mcp.list_tools()}
    with pytest.raises(MCPError) as refused:
        mcp.call_tool("contacts__create", {"email": "no@example.com"})
    assert refused.value.response.status_code == 403
    assert not Contact.objects.filter(email="no@example.com").exists()


def test_demo_token_never_sees_staff_rows() -> None:
    staff = User.objects.get(username="staff")
    demo_mcp = mcp_with(tokens_for("demo")["access_token"])
    staff_mcp = mcp_with(tokens_for("staff")["access_token"])
    rows = demo_mcp.call_tool("accounts__list", {})["structuredContent"]["results"]
    assert [r["username"] for r in rows] == ["demo"]
    hidden = demo_mcp.call_tool("accounts__retrieve", {"id": staff.pk})
    assert hidden["isError"] is True
    assert tool_error(hidden)["code"] == "not_found"
    rows = staff_mcp.call_tool("accounts__list", {})["structuredContent"]["results"]
    assert [r["username"] for r in rows] == ["demo", "staff"]


def test_create_through_oauth_stores_the_same_row_as_through_a_drf_token() -> None:
    arguments = {"first_name": "Ada", "last_name": "Lovelace", "phone": "+44 1"}
    oauth = mcp_with(tokens_for()["access_token"])
    drf = MCPTestClient(Client(), headers={"Authorization": f"Token {DEMO_TOKEN}"})
    drf.initialize()
    rows = []
    for mcp, email in ((oauth, "oauth@example.com"), (drf, "drf@example.com")):
        result = mcp.call_tool("contacts__create", {**arguments, "email": email})
        assert result["isError"] is False
        row = Contact.objects.get(pk=result["structuredContent"]["id"])
        rows.append(model_to_dict(row, exclude=["id", "email"]))
    assert rows[0] == rows[1]
    assert rows[0] == {**arguments, "notes": ""}


# -- refresh, rotation, revocation, expiry ------------------------------------------


def refresh(refresh_token: str) -> TestResponse:
    return token_request(
        grant_type="refresh_token",
        refresh_token=refresh_token,
        client_id=DEMO_CLIENT_ID,
        resource=RESOURCE,
    )


def test_refresh_rotates_and_a_used_refresh_token_revokes_the_family() -> None:
    first = tokens_for()
    second = refresh(first["refresh_token"])
    assert second.status_code == 200, second.content
    rotated = json.loads(second.content)
    assert rotated["refresh_token"] != first["refresh_token"]
    assert AccessToken.objects.get(source_refresh_token__isnull=False).resource == [
        RESOURCE
    ]
    assert mcp_status(rotated["access_token"]).status_code == 200
    assert mcp_status(first["access_token"]).status_code == 401  # replaced
    live = written()

    reused = refresh(first["refresh_token"])
    assert_refused_token(reused, "invalid_grant")
    assert AccessToken.objects.count() <= live[1]
    # Reuse means theft (RFC 9700 section 4.14.2): the rotated pair dies too.
    assert mcp_status(rotated["access_token"]).status_code == 401
    assert_refused_token(refresh(rotated["refresh_token"]), "invalid_grant")


def test_revoked_token_gets_401_with_the_challenge() -> None:
    tokens = tokens_for()
    revoked = Client().post(
        "/oauth/revoke_token/",
        {"token": tokens["access_token"], "client_id": DEMO_CLIENT_ID},
    )
    assert revoked.status_code == 200
    response = mcp_status(tokens["access_token"])
    assert response.status_code == 401
    assert response["WWW-Authenticate"].startswith(
        f'Bearer error="invalid_token", resource_metadata="{METADATA}"'
    )
    assert tokens["access_token"] not in response.content.decode()


def test_expired_token_gets_401_with_the_challenge() -> None:
    tokens = tokens_for()
    AccessToken.objects.update(expires=timezone.now() - timedelta(seconds=1))
    response = mcp_status(tokens["access_token"])
    assert response.status_code == 401
    assert 'error="invalid_token"' in response["WWW-Authenticate"]


def test_missing_token_gets_401_naming_the_metadata() -> None:
    response = Client().post(
        "/mcp",
        json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
        content_type="application/json",
    )
    assert response.status_code == 401
    assert response["WWW-Authenticate"].startswith(
        f'Bearer resource_metadata="{METADATA}", scope="mcp:read mcp:write"'
    )


# -- hostile input at the authorization and token endpoints ---------------------------


def test_wrong_pkce_verifier_is_refused_and_issues_nothing() -> None:
    code, _ = code_for()
    other, _ = pkce_pair()
    assert_refused_token(exchange(code, other), "invalid_grant")
    assert written()[1:3] == (0, 0)


def test_missing_verifier_is_refused() -> None:
    code, _ = code_for()
    response = token_request(
        grant_type="authorization_code",
        code=code,
        redirect_uri=REDIRECT,
        client_id=DEMO_CLIENT_ID,
    )
    assert response.status_code == 400
    assert written()[1:3] == (0, 0)


def test_plain_pkce_is_refused_and_writes_no_grant() -> None:
    verifier = pkce_pair()[0]
    response = consent(
        signed_in(),
        authorize_params(verifier, code_challenge_method="plain"),
    )
    query = redirect_query(response)
    assert query["error"] == "invalid_request"
    assert "code" not in query
    assert verifier not in response["Location"]
    assert written()[:3] == (0, 0, 0)


def test_missing_code_challenge_is_refused() -> None:
    params = authorize_params("")
    del params["code_challenge"], params["code_challenge_method"]
    response = consent(signed_in(), params)
    assert redirect_query(response)["error"] == "invalid_request"
    assert written()[:3] == (0, 0, 0)


def test_reused_code_is_refused_and_revokes_its_tokens() -> None:
    code, verifier = code_for()
    first = exchange(code, verifier).json()
    assert mcp_status(first["access_token"]).status_code == 200
    assert_refused_token(exchange(code, verifier), "invalid_grant")
    assert AccessToken.objects.count() == 0
    assert not RefreshToken.objects.filter(revoked__isnull=True).exists()
    # RFC 6749 section 4.1.2: the replay means the code leaked.
    assert mcp_status(first["access_token"]).status_code == 401
    assert_refused_token(refresh(first["refresh_token"]), "invalid_grant")


def test_replayed_code_leaves_other_sessions_alone() -> None:
    other = tokens_for()
    code, verifier = code_for()
    assert exchange(code, verifier).status_code == 200
    assert_refused_token(exchange(code, verifier), "invalid_grant")
    assert mcp_status(other["access_token"]).status_code == 200


def test_unregistered_redirect_uri_gets_an_error_page_not_a_redirect() -> None:
    _, challenge = pkce_pair()
    evil = "https://evil.example.com/callback"
    response = consent(signed_in(), authorize_params(challenge, redirect_uri=evil))
    assert response.status_code == 400
    assert "Location" not in response
    assert b"evil.example.com" not in response.content
    assert written()[:3] == (0, 0, 0)


@pytest.mark.parametrize(
    "variant",
    [
        "http://127.0.0.1/callback/",
        "http://127.0.0.1/callback?x=1",
        "https://127.0.0.1/callback",
        "http://127.0.0.1/Callback",
    ],
)
def test_redirect_uris_match_exactly(variant: str) -> None:
    _, challenge = pkce_pair()
    response = consent(signed_in(), authorize_params(challenge, redirect_uri=variant))
    assert response.status_code == 400
    assert written()[:3] == (0, 0, 0)


def test_token_request_with_another_redirect_uri_is_refused() -> None:
    code, verifier = code_for()
    response = exchange(code, verifier, redirect_uri="http://127.0.0.1/other")
    assert response.status_code in (400, 401)
    assert written()[1:3] == (0, 0)


@pytest.mark.parametrize(
    "resource", ["https://other.example.com/mcp", "http://testserver/api", "no-uri"]
)
def test_tokens_for_another_resource_are_refused(resource: str) -> None:
    _, challenge = pkce_pair()
    response = consent(signed_in(), authorize_params(challenge, resource=resource))
    query = redirect_query(response)
    assert query["error"] == "invalid_target"
    assert resource not in response["Location"]
    assert written()[:3] == (0, 0, 0)


def test_tampered_resource_in_the_consent_form_is_refused() -> None:
    _, challenge = pkce_pair()
    browser = signed_in()
    url = "/oauth/authorize/?" + urlencode(authorize_params(challenge))
    form = consent_form(browser.get(url).content.decode())
    form["resource"] = "https://other.example.com/mcp"
    form["redirect_uri"] = "https://evil.example.com/callback"
    response = browser.post(url, form)
    assert response.status_code == 400
    assert "Location" not in response
    assert b"invalid_target" in response.content
    assert b"example.com" not in response.content
    assert written()[:3] == (0, 0, 0)


def test_tampered_redirect_uri_in_the_consent_form_is_refused() -> None:
    _, challenge = pkce_pair()
    browser = signed_in()
    url = "/oauth/authorize/?" + urlencode(authorize_params(challenge))
    form = consent_form(browser.get(url).content.decode())
    form["redirect_uri"] = "https://evil.example.com/callback"
    response = browser.post(url, form)
    assert response.status_code == 400
    assert "Location" not in response
    assert written()[:3] == (0, 0, 0)


@pytest.mark.parametrize("other", ["https://other.example.com/mcp", "not a uri"])
def test_token_request_cannot_widen_the_resource(other: str) -> None:
    code, verifier = code_for()
    response = token_request(
        grant_type="authorization_code",
        code=code,
        redirect_uri=REDIRECT,
        client_id=DEMO_CLIENT_ID,
        code_verifier=verifier,
        resource=other,
    )
    assert_refused_token(response, "invalid_target")
    assert other not in response.content.decode()
    assert written()[1:3] == (0, 0)
    assert exchange(code, verifier).status_code == 200  # the code still works


def test_refresh_cannot_widen_the_resource() -> None:
    tokens = tokens_for()
    before = written()
    other = "https://other.example.com/mcp"
    response = token_request(
        grant_type="refresh_token",
        refresh_token=tokens["refresh_token"],
        client_id=DEMO_CLIENT_ID,
        resource=other,
    )
    assert_refused_token(response, "invalid_target")
    assert other not in response.content.decode()
    assert written() == before


def test_unknown_scope_is_refused_without_echo() -> None:
    _, challenge = pkce_pair()
    response = consent(
        signed_in(), authorize_params(challenge, scope="mcp:read evil<scope>")
    )
    query = redirect_query(response)
    assert query["error"] == "invalid_scope"
    assert "evil" not in response["Location"]
    assert written()[:3] == (0, 0, 0)


# -- dynamic client registration ---------------------------------------------------


def register(metadata: Any, address: str = "10.0.0.1") -> TestResponse:
    response: TestResponse = Client(REMOTE_ADDR=address).post(
        "/oauth/register/", json.dumps(metadata), content_type="application/json"
    )
    return response


AGENT = {
    "client_name": "Test agent",
    "redirect_uris": [AGENT_REDIRECT],
    "grant_types": ["authorization_code", "refresh_token"],
    "response_types": ["code"],
    "token_endpoint_auth_method": "none",
    "scope": "mcp:read mcp:write",
}


def test_registered_public_client_runs_the_flow() -> None:
    response = register(AGENT)
    assert response.status_code == 201, response.content
    client_id = json.loads(response.content)["client_id"]
    assert "client_secret" not in json.loads(response.content)
    code, verifier = code_for(client_id=client_id, redirect_uri=AGENT_REDIRECT)
    tokens = exchange(code, verifier, client_id, redirect_uri=AGENT_REDIRECT)
    assert tokens.status_code == 200, tokens.content


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"redirect_uris": ["javascript:alert(1)//"]}, "redirect_uris"),
        ({"redirect_uris": ["http://evil.example.com/cb"]}, "redirect_uris"),
        ({"redirect_uris": ["https://a.example.com/cb#frag"]}, "redirect_uris"),
        ({"redirect_uris": []}, "redirect_uris"),
        ({"grant_types": ["client_credentials"]}, "grant_types"),
        ({"grant_types": ["authorization_code", "implicit"]}, "grant_types"),
        ({"response_types": ["token"]}, "response_types"),
        (
            {"token_endpoint_auth_method": "private_key_jwt<x>"},
            "token_endpoint_auth_method",
        ),
        ({"scope": "mcp:read admin<script>"}, "scope"),
        ({"client_name": ["<b>"]}, "client_name"),
    ],
)
def test_bad_registration_names_the_field_and_echoes_nothing(
    change: dict[str, Any], field: str
) -> None:
    response = register({**AGENT, **change})
    assert response.status_code == 400
    body = json.loads(response.content)
    assert body["error"] in ("invalid_client_metadata", "invalid_redirect_uri")
    assert field in body["error_description"]
    for value in json.dumps(change).split('"'):
        if len(value) > 3 and value not in (field, "redirect_uris"):
            assert value not in response.content.decode()
    assert Application.objects.count() == 1  # the seeded client only


def test_registration_body_must_be_small_json() -> None:
    assert register("x" * 6000).status_code == 400
    response = Client(REMOTE_ADDR="10.0.0.2").post(
        "/oauth/register/", "{not json", content_type="application/json"
    )
    assert response.status_code == 400
    assert Application.objects.count() == 1


def test_registration_flood_gets_429_per_address() -> None:
    statuses = [register(AGENT, "10.0.0.9").status_code for _ in range(RATE + 3)]
    assert statuses == [201] * RATE + [429] * 3
    assert Application.objects.count() == 1 + RATE
    flooded = register(AGENT, "10.0.0.9")
    assert json.loads(flooded.content)["error"] == "too_many_requests"
    assert int(flooded["Retry-After"]) > 0
    assert register(AGENT, "10.0.0.10").status_code == 201  # another address
    # Refused attempts count too: a flood of bad metadata is throttled alike.
    bad = [register({}, "10.0.0.11").status_code for _ in range(RATE + 1)]
    assert bad == [400] * RATE + [429]


# -- client ID metadata documents ----------------------------------------------------


@pytest.fixture(scope="module")
def documents(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DocumentServer]:
    with document_server(tmp_path_factory.mktemp("cimd")) as (server, _):
        yield server


def serve_document(
    documents: DocumentServer, path: str, **changes: Any
) -> tuple[str, Route]:
    """Serve a valid metadata document at ``path``, with ``changes``."""
    url = documents.url(path)
    body = {
        "client_id": url,
        "client_name": "Agent from a document",
        "redirect_uris": [AGENT_REDIRECT],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
        **changes,
    }
    route = Route(json.dumps(body).encode())
    documents.routes[path] = route
    return url, route


@pytest.fixture
def loopback_allowed(documents: DocumentServer) -> Iterator[None]:
    """DEBUG and the test-only switches that allow this loopback server."""
    with override_settings(
        DEBUG=True,
        DEMO_CIMD_ALLOW_PRIVATE=True,
        DEMO_CIMD_CA_FILE=documents.ca_file,
    ):
        yield


def authorize_cimd(url: str, **overrides: str) -> tuple[TestResponse, str]:
    verifier, challenge = pkce_pair()
    params = authorize_params(
        challenge, **{"client_id": url, "redirect_uri": AGENT_REDIRECT, **overrides}
    )
    return consent(signed_in(), params), verifier


@pytest.mark.usefixtures("loopback_allowed")
def test_metadata_document_client_runs_the_flow(documents: DocumentServer) -> None:
    url, _ = serve_document(documents, "/agent.json")
    response, verifier = authorize_cimd(url)
    code = redirect_query(response)["code"]
    app = Application.objects.get(client_id=url)
    assert app.registration_source == "cimd"
    assert app.redirect_uris == AGENT_REDIRECT
    tokens = exchange(code, verifier, url, redirect_uri=AGENT_REDIRECT)
    assert tokens.status_code == 200, tokens.content
    assert documents.hits.count("/agent.json") == 1


def assert_document_refused(response: TestResponse, url: str) -> None:
    assert response.status_code == 400
    assert "Location" not in response
    assert b"Invalid client_id" in response.content
    assert url.encode() not in response.content
    assert not Application.objects.filter(client_id=url).exists()
    assert written()[:3] == (0, 0, 0)


@pytest.mark.usefixtures("loopback_allowed")
def test_oversize_document_is_refused(documents: DocumentServer) -> None:
    url, _ = serve_document(documents, "/big.json", padding="x" * 6000)
    assert_document_refused(authorize_cimd(url)[0], url)
    assert documents.hits.count("/big.json") == 1


@pytest.mark.usefixtures("loopback_allowed")
def test_slow_document_is_refused_within_the_deadline(
    documents: DocumentServer,
) -> None:
    url, route = serve_document(documents, "/slow.json")
    route.delay = 6
    started = time.monotonic()
    response = authorize_cimd(url)[0]
    elapsed = time.monotonic() - started
    assert_document_refused(response, url)
    assert 3 <= elapsed < 4.5  # the 3 s deadline, and the rest of the request


@pytest.mark.usefixtures("loopback_allowed")
def test_dripping_document_is_cut_at_the_deadline(documents: DocumentServer) -> None:
    url, route = serve_document(documents, "/drip.json")
    route.drip = 0.2  # ~60 s for the whole document
    started = time.monotonic()
    response = authorize_cimd(url)[0]
    assert 3 <= time.monotonic() - started < 4.5
    assert_document_refused(response, url)


@pytest.mark.usefixtures("loopback_allowed")
def test_document_whose_client_id_differs_is_refused(
    documents: DocumentServer,
) -> None:
    url, _ = serve_document(
        documents, "/liar.json", client_id=documents.url("/agent.json")
    )
    assert_document_refused(authorize_cimd(url)[0], url)


@pytest.mark.usefixtures("loopback_allowed")
def test_document_with_a_secret_or_no_redirect_uris_is_refused(
    documents: DocumentServer,
) -> None:
    for path, changes in (
        ("/secret.json", {"client_secret": "s3cret"}),
        ("/noredirect.json", {"redirect_uris": []}),
        ("/confidential.json", {"token_endpoint_auth_method": "client_secret_basic"}),
    ):
        url, _ = serve_document(documents, path, **changes)
        assert_document_refused(authorize_cimd(url)[0], url)


@pytest.mark.usefixtures("loopback_allowed")
def test_redirect_uri_outside_the_document_is_refused(
    documents: DocumentServer,
) -> None:
    url, _ = serve_document(documents, "/exact.json")
    for other in ("https://evil.example.com/callback", "http://127.0.0.1/other"):
        response = authorize_cimd(url, redirect_uri=other)[0]
        assert response.status_code == 400
        assert "Location" not in response
    assert written()[:3] == (0, 0, 0)


@pytest.mark.parametrize(
    "switches",
    [
        pytest.param({"DEBUG": True}, id="debug-without-the-switch"),
        pytest.param({"DEBUG": False, "DEMO_CIMD_ALLOW_PRIVATE": True}, id="no-debug"),
    ],
)
def test_private_address_is_refused_without_a_request(
    documents: DocumentServer, switches: dict[str, Any]
) -> None:
    path = f"/private-{len(switches)}.json"
    url, _ = serve_document(documents, path)
    with override_settings(DEMO_CIMD_CA_FILE=documents.ca_file, **switches):
        response = authorize_cimd(url)[0]
    assert_document_refused(response, url)
    assert path not in documents.hits


@pytest.mark.parametrize(
    "url",
    [
        "http://example.com/agent.json",  # not https: not a document URL
        "https://localhost/agent.json",
        "https://169.254.169.254/latest/meta-data",
        "https://[::1]/agent.json",
        "https://user@example.com/agent.json",
    ],
)
def test_unsafe_client_id_urls_are_refused(url: str) -> None:
    assert_document_refused(authorize_cimd(url)[0], url)
