"""A tool call served over HTTP lives no longer than its request and its server.

:class:`CallLifecycleMiddleware` wraps the MCP server's ASGI app:

- Once a request has run for :data:`WATCH_AFTER_S` and the app has read its whole
  body, it watches for the client to disconnect (at once if it already has); if
  that comes before the response is complete, it cancels the request. (Most
  requests are answered sooner, and a watching task per request was a tenth of
  the CPU a quick call took.) The SDK then closes the request's stateless server, which cancels the
  tool call still running in it, and a cancelled call stops its command (see
  :mod:`mcigen_runtime.executors.running`).
- At the app's lifespan shutdown, after the ASGI server has let the requests in
  flight finish (or cancelled them, with uvicorn's ``--timeout-graceful-shutdown``),
  every command still running is stopped before the process exits.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

import anyio

from ..executors.running import stop_all
from .shutdown import SHUTTING_DOWN

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Message, Receive, Scope, Send


WATCH_AFTER_S = 0.05
"""How long a request runs before its client's leaving is watched for."""


class CallLifecycleMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            await self._request(scope, receive, send)
        elif scope["type"] == "lifespan":
            await self.app(scope, receive, _stopping_commands_at_shutdown(send))
        else:
            await self.app(scope, receive, send)

    async def _request(self, scope: Scope, receive: Receive, send: Send) -> None:
        body_read = asyncio.Event()
        answered = False

        async def receive_body() -> Message:
            message = await receive()
            if message["type"] != "http.request" or not message.get("more_body"):
                body_read.set()
            return message

        async def send_answer(message: Message) -> None:
            nonlocal answered
            if message["type"] == "http.response.body" and not message.get("more_body"):
                answered = True
            await send(message)

        async def cancel_on_disconnect(request: anyio.CancelScope) -> None:
            await body_read.wait()
            while (await receive())["type"] != "http.disconnect":
                pass
            if not answered:
                request.cancel()

        loop = asyncio.get_running_loop()
        watchers: list[asyncio.Task[None]] = []
        with anyio.CancelScope() as request:

            def watch() -> None:
                watchers.append(loop.create_task(cancel_on_disconnect(request)))

            later = loop.call_later(WATCH_AFTER_S, watch)
            try:
                await self.app(scope, receive_body, send_answer)
            finally:
                later.cancel()
                for watcher in watchers:
                    watcher.cancel()


def _stopping_commands_at_shutdown(send: Send) -> Send:
    async def send_lifespan(message: Message) -> None:
        if message["type"] == "lifespan.shutdown.complete":
            await anyio.to_thread.run_sync(stop_all, SHUTTING_DOWN)
        await send(message)

    return send_lifespan
