"""A real HTTP server for the attacks on http tools, on any loopback address (a
second one, 127.0.0.2, plays another host): it echoes every header it receives,
redirects anywhere, trickles bodies and headers, sends huge, compressed and
deeply nested bodies, and issues OAuth2 tokens for one client secret only."""

from __future__ import annotations

import json
import threading
import time
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

RIGHT_SECRET = "right-client-secret"
"""The only client secret ``/token`` accepts."""

_CHUNK = 1 << 16


class _Handler(BaseHTTPRequestHandler):
    server: HostileServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _head(self, code: int, headers: dict[str, str]) -> None:
        self.send_response(code)
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()

    def _reply(self, body: bytes, content_type: str, code: int = 200) -> None:
        self._head(
            code, {"Content-Type": content_type, "Content-Length": str(len(body))}
        )
        self.wfile.write(body)

    def _handle(self) -> None:
        parts = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode() if length else ""
        received = {"path": parts.path, "headers": dict(self.headers.items())}
        self.server.received.append(received)
        route = getattr(self, "_route_" + parts.path.strip("/").split("/")[0], None)
        if route is None:
            self._reply(json.dumps(received).encode(), "application/json")
        else:
            route(parts.path, query, body)

    do_GET = do_POST = do_PUT = _handle

    def do_HEAD(self) -> None:
        """Any path: the headers of a 600 MiB answer, and (as for every HEAD) no body."""
        self._head(
            200, {"Content-Type": "text/plain", "Content-Length": str(600 << 20)}
        )

    def _route_redirect(self, path: str, query: dict[str, str], body: str) -> None:
        """``/redirect/CODE?to=URL``"""
        code = int(path.rsplit("/", 1)[1])
        self._head(code, {"Location": query["to"], "Content-Length": "0"})

    def _route_status(self, path: str, query: dict[str, str], body: str) -> None:
        """``/status/CODE``"""
        self._reply(b"failed", "text/plain", int(path.rsplit("/", 1)[1]))

    def _route_trickle(self, path: str, query: dict[str, str], body: str) -> None:
        """``/trickle?bytes=N&every=S``: the headers at once, then one byte of the
        body every S seconds."""
        size, every = int(query["bytes"]), float(query["every"])
        self._head(200, {"Content-Type": "text/plain", "Content-Length": str(size)})
        self._slowly(b"x" * size, every)

    def _route_trickle_headers(
        self, path: str, query: dict[str, str], body: str
    ) -> None:
        """``/trickle_headers?bytes=N&every=S``: a header one byte every S seconds,
        then the rest of a whole answer, ``ok``."""
        size, every = int(query["bytes"]), float(query["every"])
        self.wfile.write(b"HTTP/1.1 200 OK\r\nX-Slow: ")
        self.wfile.flush()
        self._slowly(b"y" * size, every)
        self._slowly(b"\r\nContent-Length: 2\r\n\r\nok", 0)

    def _slowly(self, data: bytes, every: float) -> None:
        try:
            for byte in data:
                self.wfile.write(bytes([byte]))
                self.wfile.flush()
                self.server.trickled += 1
                time.sleep(every)
        except OSError:  # the client gave up: that is the point
            self.close_connection = True

    def _route_big(self, path: str, query: dict[str, str], body: str) -> None:
        """``/big?bytes=N[&chunked=1]``: N bytes of text, with or without a
        Content-Length."""
        size, chunked = int(query["bytes"]), query.get("chunked") == "1"
        framing = {"Transfer-Encoding": "chunked"} if chunked else {}
        framing = framing or {"Content-Length": str(size)}
        self._head(200, {"Content-Type": "text/plain", **framing})
        block = b"z" * _CHUNK
        try:
            for start in range(0, size, _CHUNK):
                piece = block[: min(_CHUNK, size - start)]
                if chunked:
                    piece = b"%x\r\n%s\r\n" % (len(piece), piece)
                self.wfile.write(piece)
            if chunked:
                self.wfile.write(b"0\r\n\r\n")
        except OSError:
            self.close_connection = True

    def _route_bomb(self, path: str, query: dict[str, str], body: str) -> None:
        """``/bomb?bytes=N``: N zero bytes, gzip-compressed (about N/1000 sent)."""
        squeeze = zlib.compressobj(9, zlib.DEFLATED, 31)
        zeros = bytes(_CHUNK)
        size = int(query["bytes"])
        packed = b"".join(
            squeeze.compress(zeros[: min(_CHUNK, size - start)])
            for start in range(0, size, _CHUNK)
        )
        packed += squeeze.flush()
        self._head(
            200,
            {
                "Content-Type": "text/plain",
                "Content-Encoding": "gzip",
                "Content-Length": str(len(packed)),
            },
        )
        self.wfile.write(packed)

    def _route_deep(self, path: str, query: dict[str, str], body: str) -> None:
        """``/deep?depth=N``: a JSON array nested N deep."""
        depth = int(query["depth"])
        self._reply(b"[" * depth + b"1" + b"]" * depth, "application/json")

    def _route_token(self, path: str, query: dict[str, str], body: str) -> None:
        """An OAuth2 token endpoint that knows one client: the token names the
        secret it was issued for, so a test sees whose token a request carries."""
        form = {k: v[0] for k, v in parse_qs(body).items()}
        self.server.token_requests += 1
        if form.get("client_secret") != RIGHT_SECRET:
            self._reply(b'{"error": "invalid_client"}', "application/json", 401)
            return
        token = {"access_token": f"token-{self.server.token_requests}"}
        self._reply(
            json.dumps({**token, "expires_in": 3600}).encode(), "application/json"
        )


class HostileServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, host: str = "127.0.0.1") -> None:
        super().__init__((host, 0), _Handler)
        self.received: list[dict[str, Any]] = []
        self.token_requests = 0
        self.trickled = 0
        """Bytes the trickling routes have sent."""
        threading.Thread(target=self.serve_forever, daemon=True).start()

    @property
    def base(self) -> str:
        host, port = self.server_address[:2]
        assert isinstance(host, str)  # an AF_INET address
        return f"http://{host}:{port}"

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hangs up mid-answer is what these attacks expect."""

    def stop(self) -> None:
        self.shutdown()
        self.server_close()
