"""HTTP connections pinned to a checked address, under a connect timeout and a total deadline.

The socket is opened to one of `Target.addresses` (never a new lookup); the request carries the URL's host name
in Host, and TLS sends it as SNI and verifies the certificate against it. The total deadline is kept by a timer
that shuts the socket when it passes, so no answer, however slowly it drips, holds a connection longer.
Built on the standard library's http.client: nothing to add to the layer, and no import cost beyond ssl.
"""

from __future__ import annotations

import http.client
import socket
import ssl
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from typing import IO

from fileapi.net.addresses import EgressPolicy, Target

CHUNK_BYTES = 64 * 1024  # one read or send of a body; a small multiple of TLS's 16 KiB record
USER_AGENT = "fileapi"


class Deadline:
    """A total time limit from now, in seconds; `watching` shuts a socket when it passes."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.ends = time.monotonic() + seconds
        self.expired = False
        self._watched: http.client.HTTPConnection | None = None

    def remaining(self) -> float:
        """Seconds left (0 once passed)."""
        return max(0.0, self.ends - time.monotonic())

    def passed(self) -> bool:
        """Whether the deadline has passed: its timer fired, or a socket timeout set to the time left did (within
        10 ms: either may come first)."""
        return self.expired or self.remaining() <= 0.01

    @contextmanager
    def watching(self, connection: http.client.HTTPConnection) -> Iterator[None]:
        """Within the block, shut `connection`'s socket (blocked reads and writes end at once) when the deadline
        passes; `expired` then says so."""
        timer = threading.Timer(self.remaining(), self._expire, args=(connection,))
        timer.daemon = True
        self._watched = connection
        timer.start()
        try:
            yield
        finally:
            timer.cancel()
            self._watched = None

    def cut(self) -> None:
        """Pass now, from another thread: the work it times was cancelled. The socket it watches is shut (a read
        blocked on it ends at once), and no further connection is opened (`remaining` is 0)."""
        self.ends = time.monotonic()
        self.expired = True
        connection = self._watched
        if connection is not None:
            self._expire(connection)

    def _expire(self, connection: http.client.HTTPConnection) -> None:
        self.expired = True
        # http.client drops its `sock` once an answer that ends with the connection (HTTP/1.0, or Connection:
        # close) is read by its response: the socket the connection opened is the one to shut.
        sock = getattr(connection, "opened", None) or connection.sock
        if sock is not None:
            # socket.socket's own shutdown: an SSLSocket's would drop its SSL object under a blocked reader
            with suppress(OSError):  # already closed
                socket.socket.shutdown(sock, socket.SHUT_RDWR)


def _open_socket(target: Target, *, connect_timeout: float, deadline: Deadline) -> socket.socket:
    """A TCP connection to the first checked address that answers."""
    failure: OSError = OSError("no address to connect to")
    for address in target.addresses:
        timeout = min(connect_timeout, deadline.remaining())
        if timeout <= 0:
            raise TimeoutError("the deadline passed while connecting")
        try:
            sock = socket.create_connection((address, target.url.port), timeout=timeout)
        except OSError as exc:
            failure = exc
            continue
        return sock
    raise failure


class _PinnedHTTPConnection(http.client.HTTPConnection):
    """HTTP to a checked address (Host: the URL's name)."""

    def __init__(self, target: Target, *, connect_timeout: float, deadline: Deadline) -> None:
        super().__init__(target.url.host, target.url.port, timeout=connect_timeout, blocksize=CHUNK_BYTES)
        self.target = target
        self.connect_timeout = connect_timeout
        self.deadline = deadline
        self.opened: socket.socket | None = None  # kept after http.client hands `sock` to a response

    def connect(self) -> None:
        self.sock = self.opened = _open_socket(
            self.target, connect_timeout=self.connect_timeout, deadline=self.deadline
        )
        self.sock.settimeout(max(0.001, self.deadline.remaining()))


class _PinnedHTTPSConnection(_PinnedHTTPConnection):
    """HTTPS to a checked address; SNI and certificate verification use the URL's host name."""

    default_port = http.client.HTTPS_PORT

    def __init__(self, target: Target, *, connect_timeout: float, deadline: Deadline, tls: ssl.SSLContext) -> None:
        super().__init__(target, connect_timeout=connect_timeout, deadline=deadline)
        self.tls = tls

    def connect(self) -> None:
        sock = _open_socket(self.target, connect_timeout=self.connect_timeout, deadline=self.deadline)
        try:
            self.sock = self.opened = self.tls.wrap_socket(
                sock, server_hostname=self.target.url.host
            )  # connect timeout
        except BaseException:
            sock.close()
            raise
        self.sock.settimeout(max(0.001, self.deadline.remaining()))


def pinned_connection(
    target: Target, *, policy: EgressPolicy, connect_timeout: float, deadline: Deadline
) -> http.client.HTTPConnection:
    """An unopened connection to `target` (it opens on the first request)."""
    if target.url.scheme == "https":
        return _PinnedHTTPSConnection(
            target, connect_timeout=connect_timeout, deadline=deadline, tls=policy.tls_context()
        )
    return _PinnedHTTPConnection(target, connect_timeout=connect_timeout, deadline=deadline)


@dataclass(frozen=True)
class Answer:
    """A server's answer: its status, reason phrase, and the first CHUNK_BYTES of its body at most."""

    status: int
    reason: str
    head: bytes


@contextmanager
def session(
    target: Target, *, policy: EgressPolicy, connect_timeout: float, deadline: Deadline
) -> Iterator[http.client.HTTPConnection]:
    """A connection to `target` (opened on its first request) for the block, watched by `deadline`, then closed.

    :raises OSError: whatever failed in the block's exchange (an http.client error becomes one); a TimeoutError
        once the deadline has passed.
    """
    connection = pinned_connection(target, policy=policy, connect_timeout=connect_timeout, deadline=deadline)
    try:
        with deadline.watching(connection):
            yield connection
    except (OSError, http.client.HTTPException) as exc:
        if deadline.passed():  # the deadline shut the socket: what broke is its doing
            raise TimeoutError(f"no answer within {deadline.seconds:g} s") from None
        if isinstance(exc, OSError):
            raise
        raise OSError(f"bad answer ({type(exc).__name__})") from None
    finally:
        connection.close()


def exchange(
    target: Target,
    method: str,
    *,
    body: bytes | IO[bytes] | None,
    headers: Mapping[str, str],
    policy: EgressPolicy,
    connect_timeout: float,
    total_timeout: float,
) -> Answer:
    """Send one request to `target` and read its answer (redirects are not followed: a 3xx is the answer).

    :param body: bytes, or a binary file read in CHUNK_BYTES (then `headers` give its Content-Length).
    :param connect_timeout: seconds to open the connection (TLS handshake included).
    :param total_timeout: seconds for the whole exchange, connecting included.
    :raises OSError: no connection, or the exchange did not end within `total_timeout` (TimeoutError).
    """
    deadline = Deadline(total_timeout)
    with session(target, policy=policy, connect_timeout=connect_timeout, deadline=deadline) as connection:
        # a server may answer (a refusal) before the body is all sent, and close: its answer is read next
        with suppress(BrokenPipeError, ConnectionResetError):
            connection.request(method, target.url.target, body=body, headers={"User-Agent": USER_AGENT, **headers})
        response = connection.getresponse()
        head = response.read(CHUNK_BYTES) if response.length != 0 else b""
        return Answer(status=response.status, reason=response.reason, head=head)


def failure_reason(exc: BaseException) -> str:
    """A short reason for a failed exchange (never the library's whole text)."""
    if isinstance(exc, TimeoutError):
        return "timed out"
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused"
    if isinstance(exc, ssl.SSLCertVerificationError):
        return f"its TLS certificate was refused: {exc.verify_message}"
    if isinstance(exc, ssl.SSLError):
        return f"TLS failed: {exc.reason or type(exc).__name__}"
    return type(exc).__name__
