"""Settings: defaults, overrides, import strings, reload on change, docs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.test import override_settings

from frisian_mcp.conf import DEFAULTS, MCPSettings, mcp_settings
from frisian_mcp.discovery import URLConfDiscoveryBackend
from frisian_mcp.exceptions import ConfigurationError


def test_defaults_apply_when_unset() -> None:
    assert DEFAULTS["PAGE_SIZE"] == mcp_settings.PAGE_SIZE
    assert mcp_settings.DISCOVERY_BACKEND is URLConfDiscoveryBackend


def test_override_settings_takes_effect_and_reverts() -> None:
    with override_settings(
        FRISIAN_MCP={"REQUIRE_AUTHENTICATION": False, "PAGE_SIZE": 7}
    ):
        assert mcp_settings.PAGE_SIZE == 7
    assert DEFAULTS["PAGE_SIZE"] == mcp_settings.PAGE_SIZE


def test_import_strings_are_resolved() -> None:
    with override_settings(
        FRISIAN_MCP={
            "AUTHENTICATION_CLASSES": [
                "rest_framework.authentication.TokenAuthentication"
            ]
        }
    ):
        from rest_framework.authentication import TokenAuthentication

        assert [TokenAuthentication] == mcp_settings.AUTHENTICATION_CLASSES


def test_bad_import_string_names_key_and_path() -> None:
    with (
        override_settings(
            FRISIAN_MCP={
                "REQUIRE_AUTHENTICATION": False,
                "DISCOVERY_BACKEND": "nowhere.Backend",
            }
        ),
        pytest.raises(ConfigurationError, match=r"DISCOVERY_BACKEND.*nowhere\.Backend"),
    ):
        _ = mcp_settings.DISCOVERY_BACKEND


def test_unknown_key_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError):
        _ = mcp_settings.NOPE


def test_non_dict_setting_is_a_configuration_error() -> None:
    with (
        override_settings(FRISIAN_MCP=["not", "a", "dict"]),
        pytest.raises(ConfigurationError, match="must be a dict"),
    ):
        _ = MCPSettings().PAGE_SIZE


def test_unset_setting_means_defaults() -> None:
    with override_settings(FRISIAN_MCP=None):
        assert DEFAULTS["MAX_PAGE_SIZE"] == MCPSettings().MAX_PAGE_SIZE


def test_every_setting_is_documented() -> None:
    text = (Path(__file__).parent.parent / "docs" / "settings.md").read_text()
    documented = set(re.findall(r"^### `([A-Z_]+)`", text, flags=re.MULTILINE))
    assert documented == set(DEFAULTS)
