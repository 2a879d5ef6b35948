"""System checks: one test per id, plus a clean run on defaults."""

from __future__ import annotations

from io import StringIO
from typing import Any, NoReturn

import pytest
from django.core.checks import CheckMessage
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.test import override_settings

from frisian_mcp.checks import check_schemas, check_settings, check_tools


def ids(messages: list[CheckMessage]) -> list[str | None]:
    return [m.id for m in messages]


def test_defaults_are_clean() -> None:
    assert check_settings() == []
    assert check_tools() == []
    assert check_schemas() == []
    call_command("check", stdout=StringIO())
    call_command("check", "--deploy", "--tag", "frisian_mcp_schemas", stdout=StringIO())


@override_settings(FRISIAN_MCP="nope")
def test_e001_setting_must_be_a_dict() -> None:
    assert ids(check_settings()) == ["frisian_mcp.E001"]


@override_settings(FRISIAN_MCP={"REQUIRE_AUTHENTICATION": False, "PAGE_SIZ": 3})
def test_e002_unknown_key_with_suggestion() -> None:
    (message,) = check_settings()
    assert message.id == "frisian_mcp.E002"
    assert "PAGE_SIZE" in str(message.hint)


def test_e003_removed_key(monkeypatch: pytest.MonkeyPatch) -> None:
    from frisian_mcp import conf

    monkeypatch.setitem(conf.REMOVED_SETTINGS, "OLD_KEY", "use NEW_KEY instead.")
    with override_settings(FRISIAN_MCP={"REQUIRE_AUTHENTICATION": False, "OLD_KEY": 1}):
        assert ids(check_settings()) == ["frisian_mcp.E003"]


@override_settings(
    FRISIAN_MCP={
        "REQUIRE_AUTHENTICATION": False,
        "DISCOVERY_BACKEND": "nowhere.Backend",
    }
)
def test_e004_import_failure() -> None:
    assert ids(check_settings()) == ["frisian_mcp.E004"]


@override_settings(
    FRISIAN_MCP={
        "REQUIRE_AUTHENTICATION": False,
        "DISCOVERY_BACKEND": "collections.OrderedDict",
    }
)
def test_e005_backend_must_subclass_base() -> None:
    assert ids(check_settings()) == ["frisian_mcp.E005"]


@override_settings(
    FRISIAN_MCP={
        "REQUIRE_AUTHENTICATION": False,
        "AUTHENTICATION_CLASSES": ["collections.OrderedDict"],
    }
)
def test_e006_authentication_classes_must_be_drf_authenticators() -> None:
    assert ids(check_settings()) == ["frisian_mcp.E006"]


@pytest.mark.parametrize(
    "value",
    [
        {"PAGE_SIZE": 0},
        {"MAX_PAGE_SIZE": "200"},
        {"PAGE_SIZE": 300},
        {"UNMAPPED_FIELD_POLICY": "LOUD"},
        {"ALLOWED_ORIGINS": ["localhost"]},
        {"PATH_PREFIX": "(unclosed"},
        {"SERVER_NAME": ""},
        {"MAX_REQUEST_BYTES": True},
    ],
)
def test_e007_bad_values(value: dict[str, Any]) -> None:
    with override_settings(FRISIAN_MCP=value):
        assert ids(check_settings()) == ["frisian_mcp.E007"]


@override_settings(ROOT_URLCONF="tests.urls_no_mcp")
def test_w001_endpoint_not_installed() -> None:
    assert "frisian_mcp.W001" in ids(check_tools())


@override_settings(ROOT_URLCONF="tests.urls_nested_mcp")
def test_w001_finds_the_endpoint_inside_a_nested_namespace() -> None:
    assert "frisian_mcp.W001" not in ids(check_tools())


@override_settings(
    FRISIAN_MCP={
        "REQUIRE_AUTHENTICATION": False,
        "DISCOVERY_BACKEND": "tests.test_checks.BrokenBackend",
    }
)
def test_e008_discovery_failure_is_reported_not_raised() -> None:
    assert ids(check_tools()) == ["frisian_mcp.E008"]
    assert ids(check_schemas()) == ["frisian_mcp.E008"]
    assert "ModuleNotFoundError" in check_tools()[0].msg


@override_settings(
    FRISIAN_MCP={
        "REQUIRE_AUTHENTICATION": False,
        "DISCOVERY_BACKEND": "tests.test_checks.ClashingBackend",
    }
)
def test_w002_name_clash() -> None:
    assert set(ids(check_tools())) == {"frisian_mcp.W002"}


@override_settings(FRISIAN_MCP={"REQUIRE_AUTHENTICATION": False, "PAGE_SIZE": -1})
def test_check_command_fails_on_bad_settings() -> None:
    with pytest.raises(SystemCheckError, match=r"frisian_mcp\.E007"):
        call_command("check", stdout=StringIO(), stderr=StringIO())


from frisian_mcp.discovery import URLConfDiscoveryBackend  # noqa: E402
from frisian_mcp.types import Endpoint  # noqa: E402


class BrokenBackend(URLConfDiscoveryBackend):
    def get_urlconf(self) -> str:
        return "tests.no_such_urlconf"  # the host's URLconf fails to import


class ClashingBackend(URLConfDiscoveryBackend):
    def get_tool_name(self, endpoint: Endpoint, path_prefix: str) -> str:
        return "dup__" + endpoint.action


class BrokenSchemaBackend(URLConfDiscoveryBackend):
    """Adds one endpoint whose serializer fails for a mock request."""

    def get_endpoints(self) -> list[Endpoint]:
        from rest_framework import serializers, viewsets

        class BrokenSerializer(serializers.Serializer[Any]):
            def get_fields(self) -> NoReturn:
                raise AttributeError("no fields without a real request")

        class BrokenViewSet(viewsets.ModelViewSet[Any]):
            serializer_class = BrokenSerializer

        broken = Endpoint(
            path="/api/broken/",
            path_regex="^api/broken/$",
            method="POST",
            callback=BrokenViewSet.as_view({"post": "create"}),
            action="create",
        )
        return [*super().get_endpoints(), broken]


@override_settings(
    FRISIAN_MCP={
        "REQUIRE_AUTHENTICATION": False,
        "DISCOVERY_BACKEND": "tests.test_checks.BrokenSchemaBackend",
    }
)
def test_w003_a_broken_tool_is_named_and_the_rest_still_listed() -> None:
    from frisian_mcp.contrib.testing import MCPTestClient

    assert check_tools() == []  # builds no schema
    messages = [m for m in check_schemas() if m.id == "frisian_mcp.W003"]
    assert len(messages) == 1
    assert "BrokenViewSet raised AttributeError" in messages[0].msg
    assert messages[0].msg.endswith("left out: create")
    assert "AttributeError" in messages[0].msg
    mcp = MCPTestClient()
    mcp.initialize()
    names = [tool["name"] for tool in mcp.list_tools()]
    assert "contacts__create" in names
    assert not any("broken" in name for name in names)
    out, err = StringIO(), StringIO()
    call_command("frisian_mcp_tools", stdout=out, stderr=err)
    assert "BrokenViewSet.create: AttributeError" in err.getvalue()
    assert "contacts__create" in out.getvalue()


@override_settings(
    FRISIAN_MCP={
        "REQUIRE_AUTHENTICATION": False,
        "CALL_HOOKS": ["collections.OrderedDict"],
    }
)
def test_e012_call_hooks_must_be_hook_classes() -> None:
    assert ids(check_settings()) == ["frisian_mcp.E012"]


@override_settings(FRISIAN_MCP={"STORE_BACKEND": "tests.hosts.hooks.stores.NotAStore"})
def test_e017_store_backend_must_be_a_base_store() -> None:
    from frisian_mcp.conf import MCPSettings
    from frisian_mcp.exceptions import ConfigurationError

    assert ids(check_settings()) == ["frisian_mcp.E017"]
    with pytest.raises(ConfigurationError, match="BaseStore"):
        _ = MCPSettings().STORE_BACKEND  # refused on access as well


@override_settings(
    FRISIAN_MCP={
        "CALL_HOOKS": ["nowhere.Hook"],
        "BROWSER_VIEW_CLASS": "collections.OrderedDict",
        "PAGE_SIZE": 0,
    }
)
def test_each_row_reports_its_own_problem() -> None:
    assert sorted(map(str, ids(check_settings()))) == [
        "frisian_mcp.E004",
        "frisian_mcp.E007",
        "frisian_mcp.E011",
    ]


# -- W009: only where the guess is likely wrong (issue 25 item 1, ADR 0030) --


def _w009(urlconf: str) -> dict[str, CheckMessage]:
    """W009 by the tool it names, on ``urlconf``."""
    options = {"REQUIRE_AUTHENTICATION": False, "TOOL_LAYOUT": "flat"}
    with override_settings(ROOT_URLCONF=urlconf, FRISIAN_MCP=options):
        found = [m for m in check_schemas() if m.id == "frisian_mcp.W009"]
    return {m.msg.split()[2]: m for m in found}


def test_w009_names_the_guesses_that_are_likely_wrong() -> None:
    found = _w009("tests.hosts.helpdesk.urls")
    assert set(found) == {
        "imports__post",  # a generic view's serializer_class, shared by its list
        "members__create",  # the declared body is not the one the view validates
        "members__invite",  # get_serializer_class()'s default, not its own
        "tickets__close",  # the viewset's serializer_class
    }
    assert "get_serializer_class()" in found["members__invite"].msg
    assert "validates it with MemberCreateSerializer" in found["members__create"].msg
    assert "request=MemberCreateSerializer" in str(found["members__create"].hint)
    assert "from the view's serializer_class" in found["tickets__close"].msg


def test_w009_spares_a_generic_post_that_reads_its_serializer_class() -> None:
    """register__post is one of the former false positives; promote picks
    its own serializer; a DELETE or GET action has no guessed body."""
    found = _w009("tests.hosts.helpdesk.urls")
    spared = {"register__post", "members__promote", "tickets__comments"}
    assert not spared & set(found)
    assert not {"tickets__search", "tickets__destroy", "tickets__create"} & set(found)
