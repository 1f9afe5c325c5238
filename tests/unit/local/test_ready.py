"""`fileapi run`'s banner waits for the server: nothing is printed until GET /health answers 200."""

from __future__ import annotations

import io
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from fileapi.local.dynamo import free_port
from fileapi.local.ready import answers, print_when_serving


class _Health(BaseHTTPRequestHandler):
    status = 200

    def do_GET(self) -> None:
        self.send_response(self.status if self.path == "/health" else 404)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        return


class _Starting(_Health):
    status = 503


@contextmanager
def serving(port: int, handler: type[BaseHTTPRequestHandler]) -> Iterator[None]:
    server = ThreadingHTTPServer(("127.0.0.1", port), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield
    finally:
        server.shutdown()
        server.server_close()


def test_the_banner_is_printed_once_health_answers_200() -> None:
    port = free_port()
    base_url = f"http://127.0.0.1:{port}"
    out = io.StringIO()
    printer = print_when_serving(base_url, ["File API on " + base_url, "API key: sk_live_x"], out=out)
    assert not answers(base_url)  # nothing listens yet
    with serving(port, _Starting):
        assert not answers(base_url)
        assert out.getvalue() == ""
    with serving(port, _Health):
        printer.join(timeout=30)
        assert out.getvalue() == f"File API on {base_url}\nAPI key: sk_live_x\n"
    assert not printer.is_alive()
