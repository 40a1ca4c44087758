"""A real HTTP server on 127.0.0.1 for http tool tests (threaded, started per test module)."""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16
WAV = b"RIFF$\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00" + bytes(16)
PDF = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n" + bytes(8)


class _Handler(BaseHTTPRequestHandler):
    server: LoopbackServer
    protocol_version = "HTTP/1.1"  # keep-alive, as real APIs do
    disable_nagle_algorithm = True  # else a keep-alive reply waits ~40 ms for an ACK
    wbufsize = 1 << 16  # headers and body leave in one write

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _reply(self, code: int, body: bytes, content_type: str) -> None:
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _moved(
        self, code: int, location: str, extra: tuple[tuple[str, str], ...] = ()
    ) -> None:
        self.send_response(code)
        self.send_header("Location", location)
        for name, value in extra:
            self.send_header(name, value)
        self.send_header("Content-Length", "5")
        self.end_headers()
        self.wfile.write(b"moved")

    def _json(self, payload: Any, code: int = 200) -> None:
        self._reply(code, json.dumps(payload).encode(), "application/json")

    def _handle(self) -> None:
        parts = urlsplit(self.path)
        self.server.hits[parts.path] += 1
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode() if length else ""
        echo = {
            "method": self.command,
            "path": parts.path,
            "query": parts.query,
            "body": body,
            "content_type": self.headers.get("Content-Type"),
            "authorization": self.headers.get("Authorization"),
            "x_env": self.headers.get("X-Env"),
            "cookie": self.headers.get("Cookie"),
        }
        if parts.path == "/text":
            self._reply(200, "plain text é".encode(), "text/plain; charset=utf-8")
        elif parts.path == "/image":
            self._reply(200, PNG, "image/png")
        elif parts.path == "/audio":
            self._reply(200, WAV, "audio/wav")
        elif parts.path == "/pdf":
            self._reply(200, PDF, "application/pdf")
        elif parts.path == "/untyped":  # bytes, and no Content-Type
            self.send_response(200)
            self.send_header("Content-Length", str(len(PDF)))
            self.end_headers()
            self.wfile.write(PDF)
        elif parts.path.startswith("/missing/"):  # the API says so in JSON
            query = parse_qs(parts.query)
            missing = {"error": f"no item {parts.path.rsplit('/', 1)[1]}"}
            echoed = {"key": query["key"][0]} if "key" in query else {}
            padding = {"pad": "x" * int(query.get("pad", ["0"])[0])}
            self._json({**missing, **echoed, **padding}, 404)
        elif parts.path.startswith("/status/"):
            self._reply(int(parts.path.rsplit("/", 1)[1]), b"nope", "text/plain")
        elif parts.path.startswith("/redirect/"):  # /redirect/302?to=/text
            target = parse_qs(parts.query).get("to", ["/echo"])[0]
            code = int(parts.path.rsplit("/", 1)[1])
            self._moved(code, target)
        elif parts.path == "/redirect-cookie":
            self._moved(302, "/echo", (("Set-Cookie", "session=abc; Path=/"),))
        elif parts.path == "/loop":
            self._moved(302, "/loop")
        elif parts.path == "/flaky":
            key = parse_qs(parts.query).get("key", [""])[0]
            self.server.flaky[key] += 1
            ok = self.server.flaky[key] > int(
                parse_qs(parts.query).get("fail", ["2"])[0]
            )
            self._json({"attempt": self.server.flaky[key]}, 200 if ok else 503)
        elif parts.path == "/token":
            form = parse_qs(body)
            self.server.token_forms.append(form)
            if form.get("client_secret") != ["s3cret-value"]:
                self._json({"error": "invalid_client"}, 401)
            else:
                self._json(
                    {
                        "access_token": f"tok-{self.server.hits['/token']}",
                        "expires_in": 3600,
                        "scope": form.get("scope"),
                    }
                )
        elif parts.path == "/protected":
            if (self.headers.get("Authorization") or "").startswith("Bearer tok-"):
                self._json(echo)
            else:
                self._json({"error": "unauthorized"}, 401)
        elif parts.path == "/slow":
            time.sleep(2)
            self._json(echo)
        else:
            self._json(echo)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_OPTIONS = _handle

    def do_HEAD(self) -> None:
        self.server.hits[urlsplit(self.path).path] += 1
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()


class LoopbackServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.hits: Counter[str] = Counter()
        self.token_forms: list[dict[str, list[str]]] = []
        self.flaky: Counter[str] = Counter()
        self.thread = threading.Thread(target=self.serve_forever, daemon=True)
        self.thread.start()

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def stop(self) -> None:
        self.shutdown()
        self.server_close()
