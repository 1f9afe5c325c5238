"""A small threaded HTTP server for the network-edge tests: each path is a behaviour (a file, a redirect, a slow
drip, a lie about the length, answers to PUTs in a given order), on a free port of 127.0.0.1."""

from __future__ import annotations

import ssl
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

Route = Callable[["Handler", list[str], dict[str, list[str]]], None]


def body_of(size: int) -> bytes:
    """`size` bytes of a repeating pattern (a truncation or an offset shows in a comparison)."""
    pattern = bytes(range(251))
    return (pattern * (size // len(pattern) + 1))[:size]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: LocalServer
    body = b""

    def do_GET(self) -> None:
        self._route()

    def do_PUT(self) -> None:
        self._route()

    def do_POST(self) -> None:
        self._route()

    def _route(self) -> None:
        parts = urlsplit(self.path)
        self.server.requests.append((self.command, self.path, {k.lower(): v for k, v in self.headers.items()}))
        # a request's body is read whole first, as a storage does before it answers
        self.body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        name, *args = parts.path.strip("/").split("/")
        route = ROUTES.get(name)
        if route is None:
            self.answer(404, b"no such route")
            return
        try:
            route(self, args, parse_qs(parts.query))
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError, OSError):
            self.close_connection = True  # the client went away (a cap or a deadline): nothing to finish

    def answer(self, status: int, body: bytes = b"", headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


def _file(handler: Handler, args: list[str], query: dict[str, list[str]]) -> None:
    """/file/<bytes>: the body with its Content-Length."""
    handler.answer(200, body_of(int(args[0])), {"Content-Type": "application/pdf"})


def _chunked(handler: Handler, args: list[str], query: dict[str, list[str]]) -> None:
    """/chunked/<bytes>: the body in 10,000-byte chunks, no Content-Length."""
    data = body_of(int(args[0]))
    handler.send_response(200)
    handler.send_header("Transfer-Encoding", "chunked")
    handler.end_headers()
    for start in range(0, len(data), 10_000):
        piece = data[start : start + 10_000]
        handler.wfile.write(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
    handler.wfile.write(b"0\r\n\r\n")


def _short(handler: Handler, args: list[str], query: dict[str, list[str]]) -> None:
    """/short/<bytes>: says Content-Length <bytes>, sends half, and closes."""
    size = int(args[0])
    handler.send_response(200)
    handler.send_header("Content-Length", str(size))
    handler.end_headers()
    handler.wfile.write(body_of(size // 2))
    handler.close_connection = True


def _drip(handler: Handler, args: list[str], query: dict[str, list[str]]) -> None:
    """/drip/<bytes>: one byte every 0.1 s (1,000 bytes take 100 s); ?close=1 says Connection: close (http.client
    then hands the socket to the response)."""
    size = int(args[0])
    handler.send_response(200)
    handler.send_header("Content-Length", str(size))
    if query.get("close"):
        handler.send_header("Connection", "close")
        handler.close_connection = True
    handler.end_headers()
    for _ in range(size):
        handler.wfile.write(b"x")
        handler.wfile.flush()
        time.sleep(0.1)


def _silent(handler: Handler, args: list[str], query: dict[str, list[str]]) -> None:
    """/silent/<seconds>: no answer for that long, then 200."""
    time.sleep(float(args[0]))
    handler.answer(200, b"late")


def _redirect(handler: Handler, args: list[str], query: dict[str, list[str]]) -> None:
    """/redirect/<hops>: a chain of relative 302s ending at /file/1000; /redirect/loop: to itself;
    /redirect/to?location=...: to that location."""
    if args[0] == "loop":
        handler.answer(301, headers={"Location": "/redirect/loop"})
    elif args[0] == "to":
        handler.answer(307, headers={"Location": query["location"][0]})
    elif args[0] == "0":
        _file(handler, ["1000"], query)
    else:
        handler.answer(302, headers={"Location": f"/redirect/{int(args[0]) - 1}"})


def _status(handler: Handler, args: list[str], query: dict[str, list[str]]) -> None:
    """/status/<code>: that status, with an S3-like error body."""
    handler.answer(int(args[0]), b"<Error><Code>SlowDown</Code></Error>", {"Content-Type": "application/xml"})


def _store(handler: Handler, args: list[str], query: dict[str, list[str]]) -> None:
    """/store/<name>: keeps a PUT's body; answers the server's next planned status (200 when none is left)."""
    planned = handler.server.planned
    status = planned.pop(0) if planned else 200
    if status == 200:
        handler.server.stored[args[0]] = handler.body
    handler.answer(status, b"" if status == 200 else b"<Error><Code>InternalError</Code></Error>")


ROUTES: dict[str, Route] = {
    "file": _file,
    "chunked": _chunked,
    "short": _short,
    "drip": _drip,
    "silent": _silent,
    "redirect": _redirect,
    "status": _status,
    "store": _store,
}


class LocalServer(ThreadingHTTPServer):
    """The server on a free port of 127.0.0.1 (`tls`: HTTPS with that context), serving until `close`."""

    daemon_threads = True

    def __init__(self, tls: ssl.SSLContext | None = None) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        if tls is not None:
            self.socket = tls.wrap_socket(self.socket, server_side=True)
        self.port = int(self.server_address[1])
        self.requests: list[tuple[str, str, dict[str, str]]] = []
        self.planned: list[int] = []  # statuses the next PUTs get, in order
        self.stored: dict[str, bytes] = {}
        self.thread = threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def url(self, path: str, *, host: str = "127.0.0.1", scheme: str = "http") -> str:
        return f"{scheme}://{host}:{self.port}{path}"

    def close(self) -> None:
        self.shutdown()
        self.server_close()
