"""A proxy between the code and a DynamoDB-compatible endpoint that counts calls and injects faults.

It speaks HTTP on 127.0.0.1, forwards each request to the endpoint (moto's server), and records
every call: operation, item key, whether it wrote, the size of the item it returned. Writes can be
made to fail the way DynamoDB fails:

- throttle: answered 400 ThrottlingException without reaching the endpoint (not applied);
- drop: forwarded and applied, then the connection is closed before the reply (outcome unknown);
- delay: forwarded and applied, the reply held back past the client's read timeout (outcome unknown);
- partition: past `partition_limit` writes on one partition key within one second, throttled as DynamoDB
  throttles a hot partition.

Used by the metering fault test, the call-count tests and `make bench-metering`.
"""

from __future__ import annotations

import http.client
import json
import random
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from fileapi.local.dynamo import free_port

WRITES = frozenset({"UpdateItem", "PutItem", "DeleteItem", "TransactWriteItems", "BatchWriteItem"})


@dataclass(frozen=True)
class Call:
    """One call that reached the proxy."""

    operation: str
    pk: str
    at: float
    fault: str | None
    item_bytes: int = 0

    @property
    def write(self) -> bool:
        return self.operation in WRITES


@dataclass
class Faults:
    """Probabilities of each fault on writes (reads are never faulted), and a seed."""

    throttle: float = 0.0
    drop: float = 0.0
    delay: float = 0.0
    delay_seconds: float = 1.0
    seed: int = 1
    _random: random.Random = field(init=False, repr=False)
    _lock: threading.Lock = field(init=False, repr=False, default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self._random = random.Random(self.seed)

    def pick(self, operation: str) -> str | None:
        if operation not in WRITES:
            return None
        with self._lock:
            roll = self._random.random()
        for name in ("throttle", "drop", "delay"):
            rate: float = getattr(self, name)
            if roll < rate:
                return name
            roll -= rate
        return None


class DynamoProxy:
    """Start with `start()`, point clients at `url`, read `calls`; `stop()` when done.

    :param clock: the time calls are recorded at (seconds; a simulated clock in the load model).
    :param partition_limit: writes per partition key per second of `clock` above which writes are
        throttled, as DynamoDB throttles a partition past 1,000 write units a second (None: no limit).
    """

    def __init__(
        self,
        endpoint: str,
        faults: Faults | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        partition_limit: int | None = None,
    ) -> None:
        self.endpoint = urlsplit(endpoint)
        self.faults = faults or Faults()
        self.clock = clock
        self.partition_limit = partition_limit
        self._writes_per_second: Counter[tuple[str, int]] = Counter()
        self.calls: list[Call] = []
        self._lock = threading.Lock()
        self._local = threading.local()
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self._server = _QuietServer(("127.0.0.1", self.port), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def start(self) -> DynamoProxy:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> DynamoProxy:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()

    # reading what happened

    def reset(self) -> None:
        with self._lock:
            self.calls.clear()
            self._writes_per_second.clear()

    def over_partition_limit(self, operation: str, pk: str) -> bool:
        """Count a write on `pk` in the current second; True when it is past the partition limit."""
        if self.partition_limit is None or operation not in WRITES:
            return False
        with self._lock:
            second = (pk, int(self.clock()))
            if self._writes_per_second[second] >= self.partition_limit:
                return True
            self._writes_per_second[second] += 1
            return False

    def snapshot(self) -> list[Call]:
        with self._lock:
            return list(self.calls)

    def counts(self) -> Counter[str]:
        """Calls by operation."""
        return Counter(call.operation for call in self.snapshot())

    def faults_injected(self) -> Counter[str]:
        return Counter(call.fault for call in self.snapshot() if call.fault)

    # the server

    def _upstream(self) -> http.client.HTTPConnection:
        connection: http.client.HTTPConnection | None = getattr(self._local, "connection", None)
        if connection is None:
            connection = http.client.HTTPConnection(
                self.endpoint.hostname or "127.0.0.1", self.endpoint.port, timeout=30
            )
            self._local.connection = connection
        return connection

    def _forward(self, body: bytes, headers: dict[str, str]) -> tuple[int, list[tuple[str, str]], bytes]:
        for attempt in range(2):
            connection = self._upstream()
            try:
                connection.request("POST", "/", body=body, headers=headers)
                response = connection.getresponse()
                return response.status, response.getheaders(), response.read()
            except (http.client.HTTPException, OSError):
                connection.close()
                self._local.connection = None
                if attempt == 1:
                    raise
        raise AssertionError("unreachable")

    def _record(self, call: Call) -> None:
        with self._lock:
            self.calls.append(call)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                return

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(length)
                operation = (self.headers.get("X-Amz-Target") or ".").split(".")[-1]
                pk = _partition_key(body)
                fault = proxy.faults.pick(operation)
                if fault is None and proxy.over_partition_limit(operation, pk):
                    fault = "partition"
                if fault in ("throttle", "partition"):
                    proxy._record(Call(operation, pk, proxy.clock(), fault))
                    self._reply(400, [("Content-Type", "application/x-amz-json-1.0")], _THROTTLED)
                    return
                headers = {name: value for name, value in self.headers.items() if name.lower() not in _HOP}
                status, response_headers, response_body = proxy._forward(body, headers)
                proxy._record(Call(operation, pk, proxy.clock(), fault, _item_bytes(response_body)))
                if fault == "drop":
                    self.close_connection = True  # applied; the reply never comes
                    return
                if fault == "delay":
                    time.sleep(proxy.faults.delay_seconds)
                kept = [(name, value) for name, value in response_headers if name.lower() not in _HOP]
                self._reply(status, kept, response_body)

            def _reply(self, status: int, headers: list[tuple[str, str]], body: bytes) -> None:
                try:
                    self.send_response(status)
                    for name, value in headers:
                        self.send_header(name, value)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except OSError:
                    self.close_connection = True  # the client gave up (its read timeout)

        return Handler


class _QuietServer(ThreadingHTTPServer):
    """A client that closes its connection (after its read timeout, say) is no error worth a traceback."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        return


_HOP = frozenset({"host", "content-length", "connection", "transfer-encoding", "keep-alive", "date", "server"})
_THROTTLED = json.dumps(
    {
        "__type": "com.amazonaws.dynamodb.v20120810#ThrottlingException",
        "message": "Rate of requests exceeds the allowed throughput.",
    }
).encode()


def _partition_key(body: bytes) -> str:
    try:
        request = json.loads(body)
    except ValueError:
        return ""
    key = request.get("Key") or request.get("Item") or {}
    pk = key.get("pk", {}).get("S")
    if pk is None and request.get("TransactItems"):
        first = next(iter(request["TransactItems"][0].values()))
        pk = (first.get("Key") or first.get("Item") or {}).get("pk", {}).get("S")
    return str(pk or "")


def _item_bytes(body: bytes) -> int:
    """The DynamoDB size of the item a reply carries (Attributes or Item), per the billing rules:
    attribute names plus values (strings by UTF-8 length, numbers about 1 byte per 2 digits + 1)."""
    try:
        reply = json.loads(body)
    except ValueError:
        return 0
    item = reply.get("Attributes") or reply.get("Item") or {}
    return item_size(item)


def item_size(item: dict[str, Any]) -> int:
    """DynamoDB's size of an item in wire format ({name: {"S"|"N"|"BOOL": value}})."""
    size = 0
    for name, value in item.items():
        size += len(name.encode())
        kind, content = next(iter(value.items()))
        if kind == "S":
            size += len(str(content).encode())
        elif kind == "N":
            digits = str(content).lstrip("-").replace(".", "")
            size += (len(digits) + 1) // 2 + 1
        else:
            size += 1
    return size


class ClientCounter:
    """The proxy's counting and partition limit as botocore event hooks on one client (one HTTP hop fewer:
    the load model's many calls go straight to the endpoint). Faults are not injected here."""

    def __init__(self, client: Any, *, clock: Callable[[], float], partition_limit: int | None = None) -> None:
        self.clock = clock
        self.partition_limit = partition_limit
        self.calls: list[Call] = []
        self._writes_per_second: Counter[tuple[str, int]] = Counter()
        self._pending: dict[int, tuple[str, str]] = {}
        client.meta.events.register("before-call.dynamodb.*", self._before)
        client.meta.events.register("after-call.dynamodb.*", self._after)

    def reset(self) -> None:
        self.calls.clear()
        self._writes_per_second.clear()

    def _before(self, params: dict[str, Any], model: Any, context: dict[str, Any], **_: Any) -> Any:
        operation = str(model.name)
        pk = _partition_key(params.get("body") or b"")
        if operation in WRITES and self.partition_limit is not None:
            second = (pk, int(self.clock()))
            if self._writes_per_second[second] >= self.partition_limit:
                self.calls.append(Call(operation, pk, self.clock(), "partition"))
                return _ThrottledReply(), {
                    "Error": {"Code": "ThrottlingException", "Message": "partition limit"},
                    "ResponseMetadata": {"HTTPStatusCode": 400},
                }
            self._writes_per_second[second] += 1
        self._pending[id(context)] = (operation, pk)
        return None

    def _after(self, http_response: Any, parsed: dict[str, Any], context: dict[str, Any], **_: Any) -> None:
        operation, pk = self._pending.pop(id(context), ("", ""))
        if operation:
            item = parsed.get("Attributes") or parsed.get("Item") or {}
            self.calls.append(Call(operation, pk, self.clock(), None, item_size(_wire(item))))


class _ThrottledReply:
    status_code = 400
    headers: dict[str, str] = {}  # noqa: RUF012 (botocore reads it, never writes)


def _wire(item: dict[str, Any]) -> dict[str, Any]:
    """botocore's parsed attribute values ({"S": "x"}) are already in wire shape; numbers come as strings."""
    return item
