"""The tables of tests/mounted.py name URLconfs that exist.

The generic tests run over every URLconf found on disk; an exclusion, a
settings row or an endpoint path for a URLconf that was renamed or removed
would silently stop meaning anything.
"""

from __future__ import annotations

from tests.mounted import EXCLUDED, PATHS, SETTINGS, on_disk, urlconfs


def test_every_table_names_a_urlconf_on_disk() -> None:
    found = set(on_disk())
    assert set(EXCLUDED) <= found
    assert set(SETTINGS) | set(PATHS) <= set(urlconfs())


def test_the_test_apps_of_issue_18_are_found() -> None:
    found = set(urlconfs())
    hosts = (
        "archive canonical docsearch guarded inventory ipam l10n quoting "
        "standardized transactions translations"
    )
    assert {f"tests.hosts.{name}.urls" for name in hosts.split()} <= found
    assert {"tests.urls", "tests.urls_zoo", "demo_project.urls"} <= found


def test_the_field_form_apps_of_issue_25_are_found() -> None:
    """Items 0, 3 and 7: the round trip and listing tests run over them."""
    hosts = "customfields generic glossary lookups"
    assert {f"tests.hosts.{name}.urls" for name in hosts.split()} <= set(urlconfs())
