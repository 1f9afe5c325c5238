"""A local webhook endpoint for the tests: it answers 500 to its first deliveries, then 200, and keeps each."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, HTTPServer


class Receiver:
    """A local HTTP endpoint that answers 500 to its first `failures` deliveries, then 200."""

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.received: list[tuple[dict[str, str], bytes, int]] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                status = 500 if len(receiver.received) < receiver.failures else 200
                receiver.received.append(({k.lower(): v for k, v in self.headers.items()}, body, status))
                self.send_response(status)
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = HTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
