"""Declaring prompts: the decorator's rules and the duplicate-name check."""

from __future__ import annotations

from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import SystemCheckError

from frisian_mcp import prompts
from frisian_mcp.exceptions import ConfigurationError
from frisian_mcp.prompts import check_prompts, prompt


@pytest.fixture
def declared(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The registry, restored after the test declares more."""
    kept = list(prompts._DECLARED)
    monkeypatch.setattr(prompts, "_DECLARED", kept)
    return kept


def test_two_prompts_of_one_name_fail_the_check(declared: list[Any]) -> None:
    assert [m.id for m in check_prompts() if m.id == "frisian_mcp.E018"] == []

    @prompt(name="conversation")
    def again(context: Any) -> str:
        """A second prompt named conversation."""
        return ""

    [error] = [m for m in check_prompts() if m.id == "frisian_mcp.E018"]
    assert "'conversation'" in error.msg
    assert "tests.testapp.mcp_prompts.conversation" in error.msg
    assert "test_two_prompts_of_one_name_fail_the_check.<locals>.again" in error.msg
    with pytest.raises(SystemCheckError, match=r"frisian_mcp\.E018"):
        call_command("check", stdout=StringIO(), stderr=StringIO())
    # The first declared answers prompts/get meanwhile.
    assert prompts.declared()["conversation"].function is not again


def _positional(context: Any, topic: str) -> str:
    return topic


def _untyped(context: Any, *, topic) -> str:  # type: ignore[no-untyped-def]
    return str(topic)


def _float(context: Any, *, ratio: float) -> str:
    return str(ratio)


def _plain(context: Any, *, topic: str) -> str:
    return topic


@pytest.mark.parametrize(
    ("function", "options", "message"),
    [
        (_plain, {"name": "has space"}, "a prompt name matches"),
        (_plain, {"name": "x" * 65}, "a prompt name matches"),
        (_positional, {}, "keyword-only"),
        (_untyped, {}, "annotate it"),
        (_float, {}, "str, int, bool, Literal"),
        (_plain, {"complete": {"nope": list}}, "'nope', which is not one"),
    ],
)
def test_a_misdeclared_prompt_fails_at_import(
    declared: list[Any], function: Any, options: dict[str, Any], message: str
) -> None:
    count = len(declared)
    with pytest.raises(ConfigurationError, match=message):
        prompt(**options)(function)
    assert len(declared) == count


def test_a_bare_decorator_names_the_prompt_after_the_function(
    declared: list[Any],
) -> None:
    assert prompt(_plain) is _plain
    found = declared[-1]
    assert (found.name, found.title, found.description) == ("_plain", None, None)
    assert [a.listed() for a in found.arguments] == [
        {"name": "topic", "required": True}
    ]
