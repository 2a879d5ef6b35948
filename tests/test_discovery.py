"""Discovery: which endpoints become tools, and what they are called."""

from __future__ import annotations

from dataclasses import replace

import pytest
from django.conf import settings
from django.test import override_settings
from drf_spectacular.openapi import AutoSchema

from demo_project.dcim.views import SiteViewSet, TagViewSet
from frisian_mcp.contrib.testing import MCPTestClient
from frisian_mcp.discovery import (
    TOOL_NAME_PATTERN,
    BaseDiscoveryBackend,
    Endpoint,
    URLConfDiscoveryBackend,
)
from frisian_mcp.registry import ToolRegistry
from tests.testapp.models import Publisher


def tool_names() -> list[str]:
    return [tool.name for tool in ToolRegistry.from_settings()]


def test_router_viewsets_get_one_tool_per_action() -> None:
    names = tool_names()
    for action in ("list", "retrieve", "create", "update", "partial_update", "destroy"):
        assert f"contacts__{action}" in names
        assert f"dcim__devices__{action}" in names


def test_actions_generic_views_and_plain_views() -> None:
    names = tool_names()
    assert "testapp__books__retire" in names
    assert "testapp__books__in_print" in names
    assert "testapp__stats__get" in names
    assert "testapp__books-by-title__retrieve" in names
    assert not any(name.startswith("testapp__plain") for name in names)
    assert not any("schema" in name for name in names)


def test_names_are_valid_unclashing_and_deterministic() -> None:
    registry = ToolRegistry.from_settings()
    first, second = [tool.name for tool in registry], tool_names()
    assert first == second
    # The registry is keyed by name, so a clash would show only here.
    assert registry.clashes == []
    assert all(TOOL_NAME_PATTERN.fullmatch(name) for name in first)


@override_settings(
    FRISIAN_MCP={
        "REQUIRE_AUTHENTICATION": False,
        "VIEWSET_OPTIONS": {
            "demo_project.dcim.views.SiteViewSet": {"name": "inventory"},
            "demo_project.dcim.views.TagViewSet": {"name": "inventory"},
        },
    }
)
def test_colliding_names_keep_one_tool_per_endpoint_in_path_order() -> None:
    registry = ToolRegistry.from_settings()
    owners = {
        tool.name: tool.endpoint.view_class
        for tool in registry
        if tool.name.startswith("inventory__")
    }
    actions = ("create", "destroy", "list", "partial_update", "retrieve", "update")
    assert owners == {
        f"inventory__{action}_{index}": viewset
        for action in actions
        for index, viewset in ((1, SiteViewSet), (2, TagViewSet))
    }
    assert registry.clashes == [f"inventory__{action}" for action in actions]


@override_settings(ROOT_URLCONF="tests.urls_versioned")
def test_versioned_and_namespaced_mounts_stay_distinct() -> None:
    names = tool_names()
    for version in ("v1", "v2"):
        assert f"api__{version}__publishers__list" in names
        assert f"legacy__{version}__publishers__list" in names
    assert "api__v1__publishers__audit_get" in names
    assert "api__v1__publishers__audit_post" in names


@override_settings(ROOT_URLCONF="tests.urls_versioned")
@pytest.mark.django_db
def test_versioned_tool_calls_reach_their_version() -> None:
    publisher = Publisher.objects.create(name="Ace")
    mcp = MCPTestClient()
    mcp.initialize()
    result = mcp.call_tool("api__v2__publishers__audit_post", {"id": publisher.pk})
    assert result["structuredContent"] == {"method": "POST", "version": "v2"}
    listed = mcp.call_tool("legacy__v1__publishers__list", {})
    assert listed["structuredContent"]["count"] == 1


@override_settings(
    FRISIAN_MCP={"REQUIRE_AUTHENTICATION": False, "PATH_PREFIX": r"^/api/dcim/"}
)
def test_path_prefix_setting_shortens_names() -> None:
    names = tool_names()
    assert "devices__list" in names
    assert "api__contacts__list" in names


class OnlyContacts(URLConfDiscoveryBackend):
    """An allow-list backend."""

    def get_endpoints(self) -> list[Endpoint]:
        return [e for e in super().get_endpoints() if "/contacts/" in e.path]


@override_settings(
    FRISIAN_MCP={
        "REQUIRE_AUTHENTICATION": False,
        "DISCOVERY_BACKEND": "tests.test_discovery.OnlyContacts",
    }
)
def test_discovery_backend_is_pluggable() -> None:
    names = tool_names()
    assert names
    assert all(name.startswith("contacts__") for name in names)


def test_base_backend_must_be_implemented() -> None:
    with pytest.raises(NotImplementedError, match="get_endpoints"):
        BaseDiscoveryBackend().get_endpoints()


def test_long_names_are_shortened_with_a_stable_hash() -> None:
    from frisian_mcp.discovery import assign_names

    endpoint = next(iter(ToolRegistry.from_settings())).endpoint
    long_name = "a" * 80 + "__create"
    names, clashes = assign_names([(long_name, endpoint)])
    (name,) = names
    assert len(name) == 64
    assert name.endswith("__create")
    assert assign_names([(long_name, endpoint)])[0].keys() == names.keys()
    assert clashes == []


def test_clashing_names_are_separated_and_reported() -> None:
    from frisian_mcp.discovery import assign_names

    endpoints = [t.endpoint for t in ToolRegistry.from_settings()][:2]
    names, clashes = assign_names([("same", endpoints[0]), ("same", endpoints[1])])
    assert len(names) == 2
    assert clashes == ["same"]


def test_a_separated_name_never_takes_another_endpoints_name() -> None:
    from frisian_mcp.discovery import assign_names

    first, second, third = [t.endpoint for t in ToolRegistry.from_settings()][:3]
    first, second = (replace(e, method="GET") for e in (first, second))
    names, clashes = assign_names([("a", first), ("a", second), ("a_1", third)])
    assert names["a_1"] is third
    assert [names["a_2"], names["a_3"]] in ([first, second], [second, first])
    assert clashes == ["a"]


@override_settings(ROOT_URLCONF="tests.urls_excluded_root")
def test_a_root_view_excluded_from_the_schema_is_no_endpoint() -> None:
    # Found in a large project: its own API root, marked exclude=True, made
    # the shared prefix empty, so every name began with "api__".
    registry = ToolRegistry.from_settings()
    names = {tool.name for tool in registry}
    assert "contacts__create" in names
    assert not any(name.startswith("api__") or name == "get" for name in names)


class _NoTagsSchema(AutoSchema):
    """A host's DEFAULT_SCHEMA_CLASS that leaves the tag views out."""

    def is_excluded(self) -> bool:
        return isinstance(self.view, TagViewSet) or super().is_excluded()


def test_a_default_schema_class_that_excludes_is_asked_once_at_discovery(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    asked: list[str] = []
    plain = _NoTagsSchema.is_excluded

    def counted(self: _NoTagsSchema) -> bool:
        asked.append(f"{type(self.view).__name__}.{self.method}")
        return plain(self)

    monkeypatch.setattr(_NoTagsSchema, "is_excluded", counted)
    schema_class = f"{__name__}._NoTagsSchema"
    rest = {**settings.REST_FRAMEWORK, "DEFAULT_SCHEMA_CLASS": schema_class}
    with override_settings(REST_FRAMEWORK=rest):
        registry = ToolRegistry.from_settings()
        discovered = len(asked)
        names = {tool.name for tool in registry}
        for tool in registry:
            assert tool.definition() is not None  # every schema built
    assert "dcim__sites__list" in names
    assert not any(name.startswith("dcim__tags") for name in names)
    assert discovered == len(asked)  # building asked no more


class _BrokenExclusionSchema(AutoSchema):
    """A host's schema class whose is_excluded() fails on the tag views."""

    def is_excluded(self) -> bool:
        if isinstance(self.view, TagViewSet):
            raise LookupError("no such plugin")
        return super().is_excluded()


def test_an_is_excluded_that_fails_leaves_the_endpoint_out_and_says_so(
    caplog: pytest.LogCaptureFixture,
) -> None:
    schema_class = f"{__name__}._BrokenExclusionSchema"
    rest = {**settings.REST_FRAMEWORK, "DEFAULT_SCHEMA_CLASS": schema_class}
    with override_settings(REST_FRAMEWORK=rest):
        names = {tool.name for tool in ToolRegistry.from_settings()}
    assert "dcim__sites__list" in names
    assert not any(name.startswith("dcim__tags") for name in names)
    failed = [
        r.getMessage() for r in caplog.records if "is_excluded()" in r.getMessage()
    ]
    assert failed
    assert all("TagViewSet" in m and "LookupError" in m for m in failed)
    assert not any("no such plugin" in m for m in failed)
