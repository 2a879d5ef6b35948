"""Settings: defaults, overrides, import strings, reload on change, docs."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from django.test import override_settings

from frisian_mcp.conf import DEFAULTS, SETTINGS, MCPSettings, mcp_settings, on_change
from frisian_mcp.discovery import URLConfDiscoveryBackend
from frisian_mcp.exceptions import ConfigurationError
from tests.scripts import run_script


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
        getattr(mcp_settings, "NOPE")  # noqa: B009


def test_non_dict_setting_is_a_configuration_error() -> None:
    with (
        override_settings(FRISIAN_MCP=["not", "a", "dict"]),
        pytest.raises(ConfigurationError, match="must be a dict"),
    ):
        _ = MCPSettings().PAGE_SIZE


def test_unset_setting_means_defaults() -> None:
    with override_settings(FRISIAN_MCP=None):
        assert DEFAULTS["MAX_PAGE_SIZE"] == MCPSettings().MAX_PAGE_SIZE


DOCS = Path(__file__).parent.parent / "docs" / "settings.md"
BEGIN, END = "<!-- table: frisian_mcp/conf.py -->", "<!-- end table -->"


def _literal(value: Any) -> str:
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, int) and not isinstance(value, bool) and value >= 10_000:
        return f"{value:_}"
    return repr(value)


def settings_table() -> str:
    """The table of docs/settings.md, as the settings table (conf.py) makes it."""
    rows = ["| Key | Takes | Default | |", "| --- | --- | --- | --- |"]
    for key, row in SETTINGS.items():
        takes = re.sub(r"^an? ", "", row.type.text).replace("|", "\\|")
        default = _literal(row.default)
        rows.append(
            f"| [`{key}`](#{key.lower()}) | {takes} | `{default}` | {row.doc} |"
        )
    return "\n".join(rows)


def test_the_docs_table_is_the_settings_table() -> None:
    text = DOCS.read_text()
    documented = text.split(BEGIN, 1)[1].split(END, 1)[0].strip()
    assert documented == settings_table(), "paste tests.test_conf.settings_table()"


def test_every_setting_has_a_section() -> None:
    documented = re.findall(r"^### `([A-Z_]+)`", DOCS.read_text(), flags=re.MULTILINE)
    assert documented == list(SETTINGS)


def test_a_setting_change_runs_each_registered_function_once() -> None:
    seen: list[str] = []
    on_change("FRISIAN_MCP", "PAGE_SIZE_OF_ANOTHER_APP")(lambda: seen.append("x"))
    with override_settings(FRISIAN_MCP={"PAGE_SIZE": 9}):
        assert mcp_settings.PAGE_SIZE == 9
    with override_settings(UNRELATED=1):
        pass
    assert seen == ["x", "x"]  # on entering and on leaving


@pytest.mark.subprocess
def test_importing_every_module_reads_no_setting() -> None:
    """No module reads a setting at import, core or extra (STYLE.md §2)."""
    script = (
        "import django, importlib, pkgutil; django.setup()\n"
        "import frisian_mcp\n"
        "from frisian_mcp.conf import mcp_settings\n"
        "mcp_settings.reload()  # what ready() read: PERMISSION_MODELS\n"
        "for found in pkgutil.walk_packages(frisian_mcp.__path__, 'frisian_mcp.'):\n"
        "    importlib.import_module(found.name)\n"
        "print(sorted(mcp_settings.__dict__))"
    )
    assert run_script(script, "tests.settings_core").split() == ["[]"]
