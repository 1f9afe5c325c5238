"""The request-path rows of the scoreboard (issue 21, points 1 and 2): the stack's own cost per metered
request, /health requests per second of one `fileapi serve` process, the Lambda adapter's cost per
invocation and each function's cold import.

Each figure has its anchor measured in the same run: a bare FastAPI route, bare uvicorn + Starlette,
the same request without the adapter, a bare `import fastapi`.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from starlette.types import ASGIApp as Asgi
from starlette.types import Message

from bench.scoreboard import Goal, record
from fileapi.local import dynamo
from fileapi.local.processes import start_api_server
from fileapi.local.template import PROJECT_ROOT, FunctionSpec, load_function_module, load_functions
from fileapi.metering.admin import create_key
from fileapi.metering.memory import memory_stores
from fileapi.metering.plans import Plan
from fileapi.metering.store import AdmissionStore, Stores
from fileapi.web.logs import logger
from fileapi.web.services import stores_installed

# Goals of issue 21 per function (ms of a cold `import app`); functions not named have none.
IMPORT_GOALS_MS = {
    "HealthFunction": 150.0,
    "DataFunction": 300.0,
    "TextFunction": 300.0,
    "CodesFunction": 300.0,
    "RenderFunction": 300.0,
    "ImageFunction": 500.0,
    "PdfFunction": 500.0,
}
STACK_GOAL_US = 150.0
HEALTH_GOAL_RPS = 4000.0
ADAPTER_GOAL_US = 250.0


async def asgi_request(
    app: Asgi, method: str, path: str, body: bytes = b"", headers: list[tuple[bytes, bytes]] | None = None
) -> int:
    """One request through an ASGI app on the running loop (no client, no server); returns the status."""
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"127.0.0.1"), (b"content-length", str(len(body)).encode()), *(headers or [])],
        "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 80),
    }
    sent = False
    status = 0

    async def receive() -> Message:
        nonlocal sent
        if sent:
            return {"type": "http.disconnect"}
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: Message) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]

    await app(scope, receive, send)
    return status


class TimedStore:
    """An AdmissionStore that adds the time spent in each call of the store it wraps to `seconds`:
    what the stack's own cost leaves out (the store's round trips)."""

    def __init__(self, store: AdmissionStore) -> None:
        self._store = store
        self.seconds = 0.0

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._store, name)
        if not callable(attribute):
            return attribute

        def timed(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return attribute(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - started

        return timed


@contextmanager
def bench_key() -> Iterator[tuple[str, TimedStore]]:
    """A key on the in-memory store, on a plan whose rate never refuses the bench, with the stores installed
    (admission through a TimedStore)."""
    stores = memory_stores()
    stores.accounts.put_plan(Plan("bench", sustained_per_second=1e6, burst=1_000_000, quota_monthly=10**9, shards=1))
    key = create_key(stores.accounts, email="stack@example.com", plan="bench")
    timed = TimedStore(stores.admission)
    with stores_installed(Stores(admission=timed, accounts=stores.accounts)):  # type: ignore[arg-type]
        yield key, timed


@contextmanager
def access_log_discarded() -> Iterator[None]:
    """The access log on (as deployed: one INFO record per request), written to /dev/null."""
    handler = logger.registered_handler
    level = logger.log_level
    with open(os.devnull, "w", encoding="utf-8") as sink:
        previous = handler.setStream(sink)  # type: ignore[attr-defined]
        logger.setLevel("INFO")
        try:
            yield
        finally:
            handler.setStream(previous)  # type: ignore[attr-defined]
            logger.setLevel(level)


def per_request(
    run: Callable[[], Awaitable[object]],
    *,
    probe: Callable[[], float] = lambda: 0.0,
    rounds: int = 15,
    number: int = 200,
) -> list[tuple[float, float]]:
    """Per call of `run`, in each of `rounds` rounds of `number` calls on one event loop: the seconds it took
    and how much `probe` (a running total of seconds, e.g. a TimedStore's) grew."""

    async def rounds_of() -> list[tuple[float, float]]:
        for _ in range(20):
            await run()
        times = []
        for _ in range(rounds):
            before = probe()
            started = time.perf_counter()
            for _ in range(number):
                await run()
            times.append(((time.perf_counter() - started) / number, (probe() - before) / number))
        return times

    return asyncio.run(rounds_of())


def bare_fastapi_app() -> Asgi:
    """The anchor: a FastAPI app with one route taking the raw body and answering text."""
    from fastapi import FastAPI, Request
    from starlette.responses import Response

    app = FastAPI(openapi_url=None, docs_url=None, redoc_url=None)

    @app.post("/v1/data/base64-encode")
    async def encode(request: Request) -> Response:
        return Response(base64.b64encode(await request.body()), media_type="text/plain")

    return app


def bench_stack() -> float:
    """The stack's own cost per metered request, in microseconds: POST /v1/data/base64-encode of 1 KiB through
    the composed local app (every middleware, admission, the conversion's worker thread, the access log), less the
    time spent inside the store's calls (in-memory store), median of rounds on one event loop."""
    from fileapi.local.server import create_local_app

    print("Stack's own cost per metered request: base64-encode of 1 KiB, in-process, in-memory store")
    body = os.urandom(1024)
    with bench_key() as (key, timed), access_log_discarded():
        app = create_local_app()
        headers = [(b"authorization", f"Bearer {key}".encode()), (b"content-type", b"application/octet-stream")]

        async def metered() -> None:
            status = await asgi_request(app, "POST", "/v1/data/base64-encode", body, headers)
            assert status == 200, status

        totals = per_request(metered, probe=lambda: timed.seconds)
        own = statistics.median(total - store for total, store in totals)
        whole = statistics.median(total for total, _ in totals)
        store = statistics.median(store for _, store in totals)
        health = statistics.median(total for total, _ in per_request(lambda: asgi_request(app, "GET", "/health")))
    anchor_app = bare_fastapi_app()
    anchor = per_request(lambda: asgi_request(anchor_app, "POST", "/v1/data/base64-encode", body))
    bare = statistics.median(total for total, _ in anchor)
    print(f"  full metered request (in-process)           {whole * 1e6:8.0f} us")
    print(f"  of which in the store's calls               {store * 1e6:8.0f} us")
    print(f"  GET /health through the same stack          {health * 1e6:8.0f} us")
    print(f"  bare FastAPI route, same body               {bare * 1e6:8.0f} us")
    print(f"stack: {own * 1e6:.0f} us own cost per metered request")
    record(
        "Request path",
        "stack's own cost per metered request (in-process, store's calls excluded)",
        own * 1e6,
        "us",
        Goal(max_value=STACK_GOAL_US),
        anchor=bare * 1e6,
        anchor_name="bare FastAPI route",
    )
    return own


# ---------------------------------------------------------------------------------------------- the adapter


class _Context:
    """The parts of the Lambda context object that Powertools and Mangum read."""

    function_name = "bench"
    memory_limit_in_mb = 1024
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:bench"

    def __init__(self) -> None:
        self.aws_request_id = uuid.uuid4().hex

    def get_remaining_time_in_millis(self) -> int:
        return 29_000


def bench_adapter() -> float:
    """The Lambda adapter's cost per invocation, in microseconds: the Data function's `handler` with the API
    Gateway v2 event of POST /v1/data/base64-encode, less the same request straight into the FastAPI app it
    wraps, on the same loop and store (rounds of each in turn, the median of their differences)."""
    print("\nLambda adapter per invocation: POST /v1/data/base64-encode, API Gateway HTTP API (v2) event")
    spec = next(spec for spec in load_functions() if spec.logical_id == "DataFunction")
    module = load_function_module(spec)
    event = json.loads((PROJECT_ROOT / "events" / "data-base64-encode.json").read_text(encoding="utf-8"))
    body = base64.b64decode(event["body"]) if event.get("isBase64Encoded") else event["body"].encode()
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    handler, app = module.handler, module.app
    context = _Context()
    with bench_key() as (key, _), access_log_discarded():
        event["headers"]["authorization"] = f"Bearer {key}"
        headers = [
            (b"authorization", f"Bearer {key}".encode()),
            (b"content-type", str(event["headers"].get("content-type", "application/octet-stream")).encode()),
        ]
        assert handler(event, context)["statusCode"] == 200
        assert loop.run_until_complete(asgi_request(app, "POST", "/v1/data/base64-encode", body, headers)) == 200
        invoked, direct = [], []
        for _ in range(15):
            started = time.perf_counter()
            for _ in range(100):
                handler(event, context)
            invoked.append((time.perf_counter() - started) / 100)
            started = time.perf_counter()
            for _ in range(100):
                loop.run_until_complete(asgi_request(app, "POST", "/v1/data/base64-encode", body, headers))
            direct.append((time.perf_counter() - started) / 100)
    loop.close()
    asyncio.set_event_loop(None)
    whole, alone = statistics.median(invoked), statistics.median(direct)
    overhead = statistics.median(i - d for i, d in zip(invoked, direct, strict=True))
    print(f"  handler(event, context)                     {whole * 1e6:8.0f} us")
    print(f"  the same request into its ASGI app          {alone * 1e6:8.0f} us")
    print(f"  -> the adapter's own cost                   {overhead * 1e6:8.0f} us per invocation")
    record(
        "Request path",
        "Lambda adapter cost per invocation (handler less its ASGI request)",
        overhead * 1e6,
        "us",
        Goal(max_value=ADAPTER_GOAL_US),
        anchor=alone * 1e6,
        anchor_name="the ASGI request itself",
    )
    return overhead


# ----------------------------------------------------------------------------------- requests per second

_REQUEST = b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"


async def _health_load(port: int, seconds: float, connections: int) -> int:
    """Requests answered 200 in `seconds` over `connections` keep-alive connections (each one request at a time)."""
    deadline = time.perf_counter() + seconds
    counts = [0] * connections

    async def connection(index: int) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            while time.perf_counter() < deadline:
                writer.write(_REQUEST)
                head = await reader.readuntil(b"\r\n\r\n")
                if not head.startswith(b"HTTP/1.1 200"):
                    raise RuntimeError(f"/health answered {head[:40]!r}")
                length = 0
                for line in head.split(b"\r\n"):
                    if line[:15].lower() == b"content-length:":
                        length = int(line[15:])
                await reader.readexactly(length)
                counts[index] += 1
        finally:
            writer.close()

    await asyncio.gather(*(connection(index) for index in range(connections)))
    return sum(counts)


def requests_per_second(port: int, *, seconds: float = 3.0, connections: int = 8) -> float:
    """/health requests per second one server answers to a load of `connections` keep-alive connections."""
    asyncio.run(_health_load(port, 0.5, connections))  # warm-up
    return asyncio.run(_health_load(port, seconds, connections)) / seconds


def _wait_until_up(port: int, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server on port {port} exited with {process.returncode}")
        try:
            asyncio.run(_health_load(port, 0.01, 1))
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"the server on port {port} did not answer within 60 s")


@dataclass
class _Server:
    name: str
    process: subprocess.Popen[bytes]
    port: int


def bench_health_rps(endpoint: str) -> float:
    """/health requests per second of one `fileapi serve` process (one worker) over loopback, against bare
    uvicorn + Starlette started the same way, measured alternately (3 rounds each, the median)."""
    print("\n/health requests per second, one process over loopback (8 keep-alive connections)")
    ours_port, bare_port = dynamo.free_port(), dynamo.free_port()
    ours = _Server("fileapi serve", start_api_server(ours_port, endpoint=endpoint, table="fileapi-bench"), ours_port)
    bare_process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            "bench.bare_app:app",
            "--port",
            str(bare_port),
            "--log-level",
            "warning",
            "--no-access-log",
        ],
        cwd=PROJECT_ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    bare = _Server("bare uvicorn + Starlette", bare_process, bare_port)
    try:
        rates: dict[str, list[float]] = {ours.name: [], bare.name: []}
        for server in (ours, bare):
            _wait_until_up(server.port, server.process)
        for _ in range(3):
            for server in (ours, bare):
                rates[server.name].append(requests_per_second(server.port))
    finally:
        for server in (ours, bare):
            server.process.terminate()
            server.process.wait(timeout=10)
    ours_rps, bare_rps = statistics.median(rates[ours.name]), statistics.median(rates[bare.name])
    print(f"  {ours.name:<42} {ours_rps:8.0f} req/s")
    print(f"  {bare.name:<42} {bare_rps:8.0f} req/s")
    record(
        "Request path",
        "/health req/s, one `fileapi serve` process over loopback",
        ours_rps,
        "req/s",
        Goal(min_value=HEALTH_GOAL_RPS),
        anchor=bare_rps,
        anchor_name="bare uvicorn + Starlette",
    )
    return ours_rps


# ------------------------------------------------------------------------------------------- cold imports


def _import_ms(statement: str, paths: list[str]) -> float:
    """Milliseconds `statement` takes in a fresh interpreter with `paths` first on sys.path."""
    code = (
        f"import sys, time; sys.path[:0] = {paths!r}; "
        f"t = time.perf_counter(); {statement}; print(time.perf_counter() - t)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd="/")
    return float(out.stdout.strip()) * 1000


def _import_statement(spec: FunctionSpec) -> tuple[str, list[str]]:
    """The import Lambda does of the function's handler module, with its CodeUri and the shared layer on sys.path."""
    return f"import {spec.handler.rpartition('.')[0]}", [str(spec.code_dir), str(PROJECT_ROOT / "shared")]


def bench_imports(*, runs: int = 5) -> dict[str, float]:
    """Each function's cold import (median of `runs` fresh interpreters) against a bare `import fastapi`, run
    in turn within each round (a load that comes and goes on a shared machine falls on all alike)."""
    print(f"\nCold import of each function's module (fresh interpreter, median of {runs})")
    specs = load_functions()
    times: dict[str, list[float]] = {"fastapi": [], **{spec.logical_id: [] for spec in specs}}
    for _ in range(runs):
        times["fastapi"].append(_import_ms("import fastapi", []))
        for spec in specs:
            times[spec.logical_id].append(_import_ms(*_import_statement(spec)))
    fastapi_ms = statistics.median(times["fastapi"])
    print(f"  {'import fastapi (anchor)':<28} {fastapi_ms:8.1f} ms")
    figures: dict[str, float] = {}
    for spec in specs:
        ours = figures[spec.logical_id] = statistics.median(times[spec.logical_id])
        goal = IMPORT_GOALS_MS.get(spec.logical_id)
        print(f"  {spec.logical_id:<28} {ours:8.1f} ms" + (f"   (goal <= {goal:g} ms)" if goal else ""))
        if goal is not None:
            record(
                "Cold import",
                f"{spec.logical_id.removesuffix('Function')}: import of the function's app",
                ours,
                "ms",
                Goal(max_value=goal),
                anchor=fastapi_ms,
                anchor_name="import fastapi",
            )
    return figures


def bench_request_rows(endpoint: str) -> None:
    """Every request-path row (make bench and make bench-quick)."""
    bench_stack()
    bench_adapter()
    bench_health_rps(endpoint)
    bench_imports()
