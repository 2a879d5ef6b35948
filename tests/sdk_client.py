"""The official SDK's ``Client``, speaking to the endpoint of the test process.

The SDK's streamable HTTP transport sends each request through an httpx2
mock transport to Django's test ``Client``, so the SDK's own code does all
it does over a network (negotiation, result parsing, the outputSchema check
of every ``tools/call``) while the view runs in the test's thread, on the
test's database connection and inside its transaction. The SDK's event loop
runs in a thread of its own: Django opens another connection for code that
runs inside an event loop.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import queue
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

import httpx2
from anyio.from_thread import start_blocking_portal
from django.test import Client as DjangoClient
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

__all__ = ["InProcessServer"]

_T = TypeVar("_T")
_Job = tuple[Callable[[], Any], "concurrent.futures.Future[Any]"]
#: Headers Django's test client sets itself from its arguments.
_OWN_HEADERS = frozenset({"content-length", "content-type", "host"})


class InProcessServer:
    """The endpoint at ``path``, reached by the SDK through ``django``.

    ``headers`` go with every request (an ``Authorization``, say).
    """

    def __init__(
        self,
        django: DjangoClient,
        path: str = "/mcp",
        headers: Mapping[str, str] | None = None,
    ) -> None:
        self.django = django
        self.url = f"http://testserver{path}"
        self.headers = dict(headers or {})
        self._inbox: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()

    def run(
        self, body: Callable[[Client], Awaitable[_T]], mode: str, **options: Any
    ) -> _T:
        """``body(client)`` with an SDK client connected in ``mode``.

        ``options`` go to ``Client``. Requests are answered here, in the
        calling thread, until ``body`` returns; so is what ``body`` hands
        to :meth:`sync`.
        """

        async def main() -> _T:
            try:
                transport = httpx2.MockTransport(self._send)
                http = httpx2.AsyncClient(transport=transport, headers=self.headers)
                stream = streamable_http_client(self.url, http_client=http)
                async with Client(stream, mode=mode, **options) as client:
                    return await body(client)
            finally:
                self._inbox.put(None)

        with start_blocking_portal() as portal:
            done = portal.start_task_soon(main)
            while (job := self._inbox.get()) is not None:
                work, reply = job
                try:
                    reply.set_result(work())
                except BaseException as exc:  # raised on the event loop's side
                    reply.set_exception(exc)
            return done.result()

    async def sync(self, work: Callable[[], _T]) -> _T:
        """``work()``, run in the test's thread (where the database is)."""
        reply: concurrent.futures.Future[_T] = concurrent.futures.Future()
        self._inbox.put((work, reply))
        return await asyncio.wrap_future(reply)

    async def _send(self, request: httpx2.Request) -> httpx2.Response:
        """Hand ``request`` to the test's thread; wait for its response."""
        await request.aread()
        return await self.sync(lambda: self._answer(request))

    def _answer(self, request: httpx2.Request) -> httpx2.Response:
        headers = {
            k: v for k, v in request.headers.items() if k.lower() not in _OWN_HEADERS
        }
        response = self.django.generic(
            request.method,
            request.url.path,
            data=request.content,
            content_type=request.headers.get("content-type", ""),
            headers=headers,
        )
        body = (
            b"".join(response.streaming_content)  # type: ignore[attr-defined]
            if response.streaming
            else response.content
        )
        return httpx2.Response(
            response.status_code, headers=dict(response.items()), content=body
        )
