"""frisian_mcp as an OAuth 2.1 resource server, through the wire (issue 12).

JWTs are signed with RSA keys made here; django-oauth-toolkit tokens are
tested when the toolkit is installed.
"""

from __future__ import annotations

import importlib.util
import json
import time
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from django.contrib.auth.models import User
from django.test import Client, override_settings
from django.utils import timezone
from rest_framework.authtoken.models import Token

from demo_project.contacts.models import Contact
from frisian_mcp.contrib.oauth.authentication import get_config
from frisian_mcp.contrib.oauth.checks import check_oauth
from frisian_mcp.contrib.testing import MCPError, MCPTestClient
from frisian_mcp.exceptions import ConfigurationError

pytestmark = pytest.mark.django_db

RESOURCE = "https://testserver/mcp"
ISSUER = "https://auth.example.com"
METADATA = "https://testserver/.well-known/oauth-protected-resource/mcp"
AUTH = [
    "rest_framework.authentication.TokenAuthentication",
    "frisian_mcp.contrib.oauth.authentication.BearerTokenAuthentication",
]


def _pem(key: rsa.RSAPrivateKey) -> tuple[str, str]:
    private = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()
    public = (
        key.public_key()
        .public_bytes(
            serialization.Encoding.PEM,
            serialization.PublicFormat.SubjectPublicKeyInfo,
        )
        .decode()
    )
    return private, public


PRIVATE, PUBLIC = _pem(rsa.generate_private_key(public_exponent=65537, key_size=2048))
FOREIGN, _ = _pem(rsa.generate_private_key(public_exponent=65537, key_size=2048))


def oauth_settings(**oauth_options: Any) -> dict[str, Any]:
    return {
        "REQUIRE_AUTHENTICATION": True,
        "AUTHENTICATION_CLASSES": AUTH,
        "OAUTH": {
            "RESOURCE": RESOURCE,
            "AUTHORIZATION_SERVERS": [ISSUER],
            "VALIDATOR_OPTIONS": {"KEYS": [PUBLIC]},
            **oauth_options,
        },
    }


@pytest.fixture(autouse=True)
def _oauth() -> Iterator[None]:
    with override_settings(
        ROOT_URLCONF="tests.urls_oauth", FRISIAN_MCP=oauth_settings()
    ):
        yield


def make_jwt(
    subject: str = "alice", scope: str | None = "mcp:read mcp:write", **claims: Any
) -> str:
    key = claims.pop("key", PRIVATE)
    body = {
        "iss": ISSUER,
        "aud": RESOURCE,
        "sub": subject,
        "exp": int(time.time()) + 300,
        "scope": scope,
        **claims,
    }
    if scope is None:
        del body["scope"]
    return jwt.encode(body, key, algorithm="RS256")


@pytest.fixture
def alice() -> User:
    return User.objects.create_user("alice", password="pw")


@pytest.fixture
def bob() -> User:
    return User.objects.create_user("bob", password="pw")


def mcp_for(token: str, scheme: str = "Bearer") -> MCPTestClient:
    mcp = MCPTestClient(Client(), headers={"Authorization": f"{scheme} {token}"})
    mcp.initialize()
    return mcp


def post(headers: dict[str, str] | None = None) -> Any:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    return Client().post(
        "/mcp",
        data=json.dumps(body),
        content_type="application/json",
        headers={"Accept": "application/json", **(headers or {})},
    )


# -- RFC 9728 metadata ---------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
    ],
)
def test_metadata_document_names_resource_servers_scopes_and_header(
    path: str,
) -> None:
    response = Client().get(path)
    assert response.status_code == 200
    assert response.json() == {
        "resource": RESOURCE,
        "authorization_servers": [ISSUER],
        "scopes_supported": ["mcp:read", "mcp:write"],
        "bearer_methods_supported": ["header"],
    }
    assert response["Access-Control-Allow-Origin"] == "*"


def test_metadata_ignores_the_host_header() -> None:
    response = Client().get(
        "/.well-known/oauth-protected-resource/mcp",
        headers={"Host": "localhost"},
        secure=False,
    )
    assert response.json()["resource"] == RESOURCE


def test_metadata_for_another_path_or_without_oauth_is_404() -> None:
    assert Client().get("/.well-known/oauth-protected-resource/x").status_code == 404
    with override_settings(FRISIAN_MCP={}):
        assert Client().get("/.well-known/oauth-protected-resource").status_code == 404


# -- 401 challenges ------------------------------------------------------------


def test_missing_token_gets_401_with_metadata_and_token_challenges() -> None:
    response = post()
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == (
        f'Bearer resource_metadata="{METADATA}", scope="mcp:read mcp:write", Token'
    )
    assert response.json()["error"]["data"] == {"code": "not_authenticated"}


@pytest.mark.parametrize(
    "claims",
    [
        pytest.param({"exp": int(time.time()) - 3600}, id="expired"),
        pytest.param({"aud": "https://other.example.com/mcp"}, id="wrong-audience"),
        pytest.param({"iss": "https://evil.example.com"}, id="foreign-issuer"),
        pytest.param({"key": FOREIGN}, id="foreign-key"),
        pytest.param({"sub": "nobody"}, id="unknown-user"),
    ],
)
def test_rejected_jwt_gets_401_invalid_token(alice: User, claims: Any) -> None:
    token = make_jwt(**claims)
    response = post({"Authorization": f"Bearer {token}"})
    assert response.status_code == 401
    challenge = response["WWW-Authenticate"]
    assert challenge.startswith(
        f'Bearer error="invalid_token", resource_metadata="{METADATA}"'
    )
    assert token not in response.content.decode()


def test_garbage_and_unsigned_tokens_get_401(alice: User) -> None:
    unsigned = jwt.encode(
        {"iss": ISSUER, "aud": RESOURCE, "sub": "alice", "exp": 2**31}, "", "none"
    )
    for token in ("not-a-jwt", unsigned, "a b"):
        assert post({"Authorization": f"Bearer {token}"}).status_code == 401


def test_token_in_query_string_is_refused(alice: User) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    response = Client().post(
        f"/mcp?access_token={make_jwt()}",
        data=json.dumps(body),
        content_type="application/json",
    )
    assert response.status_code == 400


# -- scopes and tools ----------------------------------------------------------


def test_read_scope_sees_read_tools_only(alice: User) -> None:
    mcp = mcp_for(make_jwt(scope="mcp:read"))
    names = {t["name"] for t in mcp.list_tools()}
    assert {"contacts__list", "contacts__retrieve", "accounts__whoami"} <= names
    assert not {n for n in names if n.endswith(("create", "update", "destroy"))}


def test_write_without_scope_gets_403_insufficient_scope(alice: User) -> None:
    mcp = mcp_for(make_jwt(scope="mcp:read"))
    with pytest.raises(MCPError) as refused:
        mcp.call_tool("contacts__create", {"email": "x@example.com"})
    response = refused.value.response
    assert response.status_code == 403
    assert response["WWW-Authenticate"] == (
        'Bearer error="insufficient_scope", scope="mcp:read mcp:write", '
        f'resource_metadata="{METADATA}"'
    )
    assert refused.value.data == {
        "code": "insufficient_scope",
        "scope": "mcp:read mcp:write",
    }
    assert "x@example.com" not in response.content.decode()
    assert not Contact.objects.exists()


def test_both_scopes_call_read_and_write_tools(alice: User) -> None:
    mcp = mcp_for(make_jwt())
    created = mcp.call_tool("contacts__create", {"email": "y@example.com"})
    assert created["isError"] is False
    listed = mcp.call_tool("contacts__list", {})
    assert listed["structuredContent"]["count"] == 1


def test_scopes_name_tools_by_glob(alice: User) -> None:
    scopes = {"SCOPES": {"accounts": ["accounts__*"]}}
    with override_settings(FRISIAN_MCP=oauth_settings(**scopes)):
        mcp = mcp_for(make_jwt(scope="accounts"))
        names = {t["name"] for t in mcp.list_tools()}
        assert names == {"accounts__list", "accounts__retrieve", "accounts__whoami"}


def test_scp_claim_lists_scopes(alice: User) -> None:
    token = make_jwt(scope=None, scp=["mcp:read"])
    names = {t["name"] for t in mcp_for(token).list_tools()}
    assert "contacts__list" in names
    assert "contacts__create" not in names


def test_a_token_sees_only_its_users_rows(alice: User, bob: User) -> None:
    for user in (alice, bob):
        mcp = mcp_for(make_jwt(subject=user.username, scope="mcp:read"))
        rows = mcp.call_tool("accounts__list", {})["structuredContent"]["results"]
        assert [r["username"] for r in rows] == [user.username]
        me = mcp.call_tool("accounts__whoami", {})["structuredContent"]
        assert me == {"username": user.username}
        other = bob if user is alice else alice
        denied = mcp.call_tool("accounts__retrieve", {"id": other.pk})
        assert denied["isError"] is True


def test_token_auth_keeps_working_alongside(alice: User) -> None:
    key = Token.objects.create(user=alice).key
    names = {t["name"] for t in mcp_for(key, scheme="Token").list_tools()}
    assert "contacts__create" in names


def test_bearer_authentication_is_inert_on_the_rest_api(alice: User) -> None:
    response = Client().get(
        "/api/accounts/", headers={"Authorization": f"Bearer {make_jwt()}"}
    )
    assert response.status_code in (401, 403)


# -- django-oauth-toolkit --------------------------------------------------------

needs_dot = pytest.mark.skipif(
    importlib.util.find_spec("oauth2_provider") is None,
    reason="django-oauth-toolkit is not installed",
)


def dot_token(user: User, resource: list[str], scope: str = "mcp:read") -> Any:
    from oauth2_provider.models import get_access_token_model, get_application_model

    app = get_application_model().objects.create(
        name="agent",
        client_type="public",
        authorization_grant_type="authorization-code",
        redirect_uris="http://127.0.0.1/cb",
        user=user,
    )
    return get_access_token_model().objects.create(
        user=user,
        application=app,
        token=f"dot-{user.pk}-{len(resource)}",
        expires=timezone.now() + timedelta(minutes=5),
        scope=scope,
        resource=resource,
    )


@pytest.fixture
def dot_settings() -> Iterator[None]:
    options = {"TOKEN_VALIDATOR": "frisian_mcp.contrib.oauth.tokens.DOTTokenValidator"}
    with override_settings(FRISIAN_MCP=oauth_settings(**options)):
        yield


@needs_dot
@pytest.mark.usefixtures("dot_settings")
def test_dot_token_for_this_resource_is_accepted(alice: User) -> None:
    token = dot_token(alice, [RESOURCE])
    mcp = mcp_for(token.token)
    rows = mcp.call_tool("accounts__list", {})["structuredContent"]["results"]
    assert [r["username"] for r in rows] == ["alice"]
    assert "contacts__create" not in {t["name"] for t in mcp.list_tools()}


@needs_dot
@pytest.mark.usefixtures("dot_settings")
def test_dot_token_revoked_unbound_or_for_elsewhere_gets_401(alice: User) -> None:
    revoked = dot_token(alice, [RESOURCE])
    revoked.revoke()
    unbound = dot_token(alice, [])
    elsewhere = dot_token(alice, ["https://other.example.com/mcp", "x"])
    for token in (revoked.token, unbound.token, elsewhere.token):
        response = post({"Authorization": f"Bearer {token}"})
        assert response.status_code == 401
        assert 'error="invalid_token"' in response["WWW-Authenticate"]


# -- configuration and checks ------------------------------------------------------


def _ids(**overrides: Any) -> list[str]:
    with override_settings(**overrides):
        return [m.id or "" for m in check_oauth()]


def test_checks_are_clean_on_a_good_configuration() -> None:
    assert _ids() == []
    assert _ids(FRISIAN_MCP={}) == []


def test_checks_warn_about_http_missing_servers_and_missing_authenticator() -> None:
    config = oauth_settings(RESOURCE="http://api.example.com/mcp")
    config["OAUTH"]["AUTHORIZATION_SERVERS"] = []
    config["AUTHENTICATION_CLASSES"] = AUTH[:1]
    assert _ids(FRISIAN_MCP=config) == [
        "frisian_mcp.W004",
        "frisian_mcp.W005",
        "frisian_mcp.W006",
    ]
    assert _ids(FRISIAN_MCP=config, DEBUG=True) == [
        "frisian_mcp.W005",
        "frisian_mcp.W006",
    ]


@pytest.mark.parametrize(
    "bad",
    [
        {"RESOURCE": "api.example.com/mcp"},
        {"RESOURCE": "https://api.example.com/mcp#x"},
        {"SCOPES": {"mcp:read": "list"}},
        {"AUTHORIZATION_SERVERS": "https://auth.example.com"},
        {"TOKEN_VALIDATOR": "nowhere.Validator"},
        {"TOKEN_VALIDATOR": "frisian_mcp.contrib.oauth.tokens.Grant"},
        {"VALIDATOR_OPTIONS": []},
        {"UNKNOWN": 1},
    ],
)
def test_malformed_oauth_setting_is_e009(bad: dict[str, Any]) -> None:
    assert _ids(FRISIAN_MCP=oauth_settings(**bad)) == ["frisian_mcp.E009"]
    assert _ids(FRISIAN_MCP={"OAUTH": ["x"]}) == ["frisian_mcp.E009"]


def test_jwt_validator_needs_keys() -> None:
    config = oauth_settings(VALIDATOR_OPTIONS={})
    with override_settings(FRISIAN_MCP=config):
        current = get_config()
        assert current is not None
        with pytest.raises(ConfigurationError, match="JWKS_URL"):
            current.validator  # noqa: B018
