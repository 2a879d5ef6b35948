"""The official ``mcp`` SDK reads resources, gets prompts and completes (issue 28).

Against the demo served by gunicorn, in both protocol eras (``legacy``: the
``initialize`` handshake; ``2026-07-28``: stateless, every request with its
``_meta`` and mirrored headers), the SDK's own ``Client``:

- lists the resource templates, finds ``drf://contacts/{id}`` (ADR 0043)
  and reads Ada Lovelace's record through it, the REST representation as
  ``application/json``;
- lists the prompts, finds the demo's ``contact_summary`` with its required
  ``contact`` argument, a ``Record("contacts")`` (ADR 0044), and gets it
  for Ada, her record embedded as a resource;
- completes the template's ``id`` and the prompt's ``contact`` from "ada"
  to Ada's id, through the contacts list view's search.

Each test first checks that the server declares the capability it uses
(``resources``, ``prompts``, ``completions``), as ``initialize`` or
``server/discover`` tells the client.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import Client, types

from demo_project.management.commands.seed_demo import DEMO_TOKEN
from tests.live import demo_database, sdk_run, serve

pytestmark = pytest.mark.live

MODES = pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
#: The revisions each client mode may end up speaking.
ERAS = {"legacy": {"2025-11-25"}, "2026-07-28": {"2026-07-28"}}
TEMPLATE = "drf://contacts/{id}"
PROMPT = "contact_summary"
ADA = "ada.lovelace@example.com"


class Demo:
    """The served demo: its endpoint, its log, and Ada's id."""

    def __init__(self, base: str, log: Path) -> None:
        self.url = base + "/mcp"
        self.log = log
        self.declared: dict[str, types.ServerCapabilities] = {}
        found = httpx.get(
            f"{base}/api/contacts/",
            params={"search": ADA},
            headers={"Authorization": f"Token {DEMO_TOKEN}"},
            timeout=10,
        )
        found.raise_for_status()
        (contact,) = found.json()["results"]
        self.ada = str(contact["id"])

    def run(self, mode: str, body: Callable[[Client], Awaitable[None]]) -> None:
        """Run ``body`` with a connected client; show the server log on failure."""
        sdk_run(self.url, self.log, body, mode, timeout=60)

    def capabilities(self, mode: str) -> types.ServerCapabilities:
        """What the server declares in ``mode``'s era.

        A client pinned to 2026-07-28 asks nothing before its first request,
        so it knows no capabilities: ``auto`` asks ``server/discover``.
        """
        if mode not in self.declared:

            async def body(client: Client) -> None:
                assert client.protocol_version in ERAS[mode], client.protocol_version
                self.declared[mode] = client.server_capabilities

            self.run("legacy" if mode == "legacy" else "auto", body)
        return self.declared[mode]


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Demo]:
    """The demo on a fresh database, served by gunicorn."""
    tmp = tmp_path_factory.mktemp("sdk-features")
    log = tmp / "server.log"
    with demo_database(tmp, "sdk_features") as env, serve(env, log) as base:
        yield Demo(base, log)


def needs(demo: Demo, mode: str, capability: str) -> None:
    """Check that the server declares ``capability`` in ``mode``'s era."""
    declared = demo.capabilities(mode)
    assert getattr(declared, capability) is not None, declared


def _record(text: str) -> dict[str, Any]:
    data = json.loads(text)
    assert isinstance(data, dict), data
    return data


@MODES
def test_the_sdk_reads_a_contact_through_its_template(demo: Demo, mode: str) -> None:
    needs(demo, mode, "resources")
    uri = f"drf://contacts/{demo.ada}"

    async def body(client: Client) -> None:
        templates, cursor = [], None
        while True:
            page = await client.list_resource_templates(cursor=cursor)
            templates += page.resource_templates
            if (cursor := page.next_cursor) is None:
                break
        by_uri = {template.uri_template: template for template in templates}
        assert TEMPLATE in by_uri, sorted(by_uri)
        assert by_uri[TEMPLATE].mime_type == "application/json"

        read = await client.read_resource(uri)
        content = read.contents[0]
        assert isinstance(content, types.TextResourceContents), read
        assert (str(content.uri), content.mime_type) == (uri, "application/json")
        record = _record(content.text)
        assert (record["id"], record["email"]) == (demo.ada, ADA)

    demo.run(mode, body)


@MODES
def test_the_sdk_gets_the_contact_prompt(demo: Demo, mode: str) -> None:
    needs(demo, mode, "prompts")

    async def body(client: Client) -> None:
        listed = await client.list_prompts()
        by_name = {prompt.name: prompt for prompt in listed.prompts}
        assert PROMPT in by_name, sorted(by_name)
        arguments = {arg.name: arg for arg in by_name[PROMPT].arguments or []}
        assert arguments["contact"].required is True, arguments

        got = await client.get_prompt(PROMPT, {"contact": demo.ada})
        assert got.messages, got
        assert all(message.role == "user" for message in got.messages), got
        assert ADA in got.model_dump_json(), got

    demo.run(mode, body)


@MODES
def test_the_contact_prompt_embeds_the_contact(demo: Demo, mode: str) -> None:
    needs(demo, mode, "prompts")

    async def body(client: Client) -> None:
        got = await client.get_prompt(PROMPT, {"contact": demo.ada})
        embedded = [
            message.content.resource
            for message in got.messages
            if isinstance(message.content, types.EmbeddedResource)
        ]
        uris = [str(resource.uri) for resource in embedded]
        assert uris.count(f"drf://contacts/{demo.ada}") == 1, got
        (ada,) = (r for r in embedded if str(r.uri).endswith(demo.ada))
        assert isinstance(ada, types.TextResourceContents), ada
        assert _record(ada.text)["email"] == ADA

    demo.run(mode, body)


@MODES
def test_the_sdk_completes_the_templates_id(demo: Demo, mode: str) -> None:
    needs(demo, mode, "completions")

    async def body(client: Client) -> None:
        template = types.ResourceTemplateReference(type="ref/resource", uri=TEMPLATE)
        done = await client.complete(template, {"name": "id", "value": "ada"})
        assert demo.ada in done.completion.values, done
        assert len(done.completion.values) <= 100, done

    demo.run(mode, body)


@MODES
def test_the_sdk_completes_the_prompts_contact(demo: Demo, mode: str) -> None:
    needs(demo, mode, "completions")
    needs(demo, mode, "prompts")

    async def body(client: Client) -> None:
        prompt = types.PromptReference(type="ref/prompt", name=PROMPT)
        done = await client.complete(prompt, {"name": "contact", "value": "ada"})
        assert demo.ada in done.completion.values, done

    demo.run(mode, body)
