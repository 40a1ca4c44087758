"""A real HTTP server on 127.0.0.1 that answers each POST with the next of a list of
recorded JSON replies of a model's API, and keeps the requests it was sent. A request
for a stream of an Anthropic message gets the message as the Messages API streams it
(server-sent events)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class _Handler(BaseHTTPRequestHandler):
    server: ReplayServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        request = json.loads(self.rfile.read(length))
        self.server.requests.append(request)
        reply = self.server.replies.pop(0)
        if request.get("stream") and reply.get("type") == "message":
            body = "".join(
                f"event: {event['type']}\ndata: {json.dumps(event)}\n\n"
                for event in anthropic_events(reply)
            ).encode()
            content_type = "text/event-stream"
        else:
            body = json.dumps(reply).encode()
            content_type = "application/json"
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def anthropic_events(message: dict[str, Any]) -> list[dict[str, Any]]:
    """The events of the Messages API streaming ``message``."""
    start = {**message, "content": [], "stop_reason": None}
    events: list[dict[str, Any]] = [{"type": "message_start", "message": start}]
    for index, block in enumerate(message["content"]):
        if block["type"] == "text":
            empty, delta = {**block, "text": ""}, {
                "type": "text_delta",
                "text": block["text"],
            }
        else:
            empty = {**block, "input": {}}
            delta = {
                "type": "input_json_delta",
                "partial_json": json.dumps(block["input"]),
            }
        events += [
            {"type": "content_block_start", "index": index, "content_block": empty},
            {"type": "content_block_delta", "index": index, "delta": delta},
            {"type": "content_block_stop", "index": index},
        ]
    return events + [
        {
            "type": "message_delta",
            "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
            "usage": {"output_tokens": 1},
        },
        {"type": "message_stop"},
    ]


class ReplayServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, replies: list[dict[str, Any]]) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.replies = list(replies)
        self.requests: list[dict[str, Any]] = []

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


@contextmanager
def replaying(*replies: dict[str, Any]) -> Iterator[ReplayServer]:
    server = ReplayServer(list(replies))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
