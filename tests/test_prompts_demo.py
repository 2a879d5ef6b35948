"""The demo's prompts, got as a client gets them (ADR 0044)."""

from __future__ import annotations

import pytest

from demo_project.contacts.models import Contact
from demo_project.dcim.models import Device, Site
from frisian_mcp.contrib.testing import MCPError, MCPTestClient

pytestmark = pytest.mark.django_db


@pytest.fixture
def mcp(demo_data: None) -> MCPTestClient:
    client = MCPTestClient()
    client.initialize()
    return client


def _texts(result: dict[str, object]) -> list[str]:
    """Each message's text; an embedded record's JSON text."""
    messages = result["messages"]
    assert isinstance(messages, list)
    return [
        m["content"].get("text") or m["content"]["resource"]["text"] for m in messages
    ]


def test_site_review_shows_the_site_and_the_devices_the_list_shows(
    mcp: MCPTestClient,
) -> None:
    site = Site.objects.get(slug="ams-dc1")
    offline = Device.objects.filter(site=site).exclude(status="active").count()
    result = mcp.request(
        "prompts/get", {"name": "site_review", "arguments": {"site": str(site.pk)}}
    )
    texts = _texts(result)
    assert result["messages"][0]["content"]["resource"]["uri"] == (
        f"drf://dcim__sites/{site.pk}"
    )
    assert "Amsterdam DC1" in texts[0]
    names = Device.objects.filter(site=site).values_list("name", flat=True)
    assert all(name in texts[1] for name in names)
    assert offline == 0 or "offline" in texts[1] or "planned" in texts[1]
    filtered = _texts(
        mcp.request(
            "prompts/get",
            {
                "name": "site_review",
                "arguments": {"site": str(site.pk), "status": "planned"},
            },
        )
    )
    assert "ams-core-01" not in filtered[1]


def test_contact_summary_reads_the_contact_as_the_caller(mcp: MCPTestClient) -> None:
    ada = Contact.objects.get(email="ada.lovelace@example.com")
    result = mcp.request(
        "prompts/get",
        {"name": "contact_summary", "arguments": {"contact": str(ada.pk)}},
    )
    texts = _texts(result)
    assert result["messages"][0]["content"]["resource"]["uri"] == (
        f"drf://contacts/{ada.pk}"
    )
    assert "Lovelace" in texts[0]
    assert "two sentences" in texts[2]


def test_a_record_the_caller_cannot_find_is_refused(mcp: MCPTestClient) -> None:
    with pytest.raises(MCPError) as caught:
        mcp.request(
            "prompts/get", {"name": "site_review", "arguments": {"site": "999999"}}
        )
    assert caught.value.code == -32602
    assert caught.value.data == {"code": "invalid_argument", "argument": "site"}
    assert "999999" not in caught.value.response.content.decode()
