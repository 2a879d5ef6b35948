"""Issue 25 item 13: redaction takes out values, not the host's vocabulary.

A translation platform answered "Error while saving translations: ..."
where the caller had sent ``method: "translate"``; the agent read "Error
while saving <value>": the host's word shared six letters with a sent
value, and went. Now a word that shares letters only with a schema word
(a choice) stays, and two words that stand as the host's own code writes
them (a string literal of the view's, serializer's or filter set's module,
placeholders aside) stay wherever the caller's value has them too. The
part of the message that came from the value still goes: the no-echo
property (tests/test_redaction_property.py) holds as before.

Run over DRF's handler and drf-standardized-errors', ``DEBUG = False``,
and compared with REST's message.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from django.conf import settings
from django.test import Client, override_settings

from frisian_mcp.contrib.testing import MCPError, MCPTestClient
from frisian_mcp.redaction import Redactor
from tests.testapp.models import Book

pytestmark = pytest.mark.django_db

MARKER = "k7M3q9Wx"
STANDARDIZED = "drf_standardized_errors.handler.exception_handler"


@pytest.fixture(params=["drf", "standardized"])
def mcp(request: pytest.FixtureRequest) -> Iterator[MCPTestClient]:
    framework = {**settings.REST_FRAMEWORK}
    if request.param == "standardized":
        framework["EXCEPTION_HANDLER"] = STANDARDIZED
    with override_settings(
        ROOT_URLCONF="tests.hosts.quoting.urls", REST_FRAMEWORK=framework, DEBUG=False
    ):
        client = MCPTestClient()
        client.initialize()
        yield client


def messages(mcp: MCPTestClient, arguments: dict[str, Any]) -> tuple[str, str]:
    """(REST's message, the tool's) for one refused create; nothing written."""
    body = {"isbn": "1", **arguments}
    with pytest.raises(MCPError) as info:
        mcp.call_tool("components__create", body)
    reply = info.value.response.content.decode()
    assert not any(MARKER[i : i + 4].casefold() in reply.casefold() for i in range(5))
    (entry,) = info.value.data["fields"]
    over_rest = Client().post("/api/components/", body, content_type="application/json")
    assert over_rest.status_code == 400
    data = json.loads(over_rest.content)
    rest_message = data["errors"][0]["detail"] if "errors" in data else data["title"][0]
    assert not Book.objects.exists()
    return rest_message, entry["message"]


def test_a_word_sharing_letters_with_a_choice_stays(mcp: MCPTestClient) -> None:
    over_rest, over_mcp = messages(mcp, {"title": "Weather?", "method": "translate"})
    assert over_rest == "Error while saving translations: 'Weather?' asks."
    assert over_mcp == "Error while saving translations: '<value>?' asks."


def test_the_hosts_words_stay_where_its_template_has_them(
    mcp: MCPTestClient,
) -> None:
    title = f"Transliteration translations {MARKER}?"
    over_rest, over_mcp = messages(mcp, {"title": title, "method": "translate"})
    assert over_rest.startswith("Error while saving translations: 'Transliteration")
    assert over_mcp == "Error while saving translations: '<value>?' asks."


def test_without_the_hosts_code_a_shared_word_still_goes() -> None:
    """No view, no template: a word holding the caller's goes, as before."""
    redact = Redactor({"notes": f"translation {MARKER}"}, {})
    assert redact("Error while saving translations.") == "Error while saving <value>."
    assert redact(f"Cannot store {MARKER}.") == "Cannot store <value>."
