"""A provider's OAuth2 token introspection (RFC 7662) for tests, served in this process on a free
loopback port: Dovecot's ``oauth2`` passdb asks it whether an access token is good and whose it
is, as it asks Google's or Microsoft's in production. Offline: the tokens it knows are the ones
a test `grant`s; any other is inactive.
"""

from __future__ import annotations

import json
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Introspection:
    """``POST /introspect`` with ``token=...``: ``{"active": true, "username": USER}`` for a
    granted token, ``{"active": false}`` for any other."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.tokens: dict[str, str] = {}
        self.asked = 0
        self._server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/introspect"

    def grant(self, token: str, user: str) -> None:
        self.tokens[token] = user

    def revoke(self, token: str) -> None:
        self.tokens.pop(token, None)

    def start(self) -> None:
        introspection = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                length = int(self.headers.get("Content-Length") or 0)
                form = urllib.parse.parse_qs(self.rfile.read(length).decode())
                token = (form.get("token") or [""])[0]
                introspection.asked += 1
                user = introspection.tokens.get(token)
                answer = {"active": True, "username": user} if user else {"active": False}
                body = json.dumps(answer).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:  # noqa: A002
                pass  # quiet: the test's output is for failures

        self._server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
