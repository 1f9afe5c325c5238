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
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.types import ASGIApp as Asgi
from starlette.types import Message

from bench.scoreboard import Goal, record
from fileapi.local import dynamo
from fileapi.local.processes import start_api_server
from fileapi.local.template import PROJECT_ROOT, FunctionSpec, load_function_module, load_functions
from fileapi.metering.admin import create_key
from fileapi.metering.plans import Plan
from fileapi.metering.storage import AdmissionStore, Stores
from fileapi.services import stores_installed
from fileapi.telemetry import logger
from fileapi.web.invocation import one_request_at_a_time
from tests.memory_stores import memory_stores

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
STACK_GOAL_RATIO = 2.0  # the stack's own cost at most twice a bare FastAPI route's, measured in the same run
STACK_ROUNDS = 21  # rounds of the stack's request, each followed by a round of the bare route's
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
    """An AdmissionStore that adds the time spent in each call of the store it wraps to `seconds` (wall) and
    `cpu_seconds` (the calling thread's CPU time): what the stack's own cost leaves out (the store's calls). The
    timing's own cost outside the interval it reads (the wrapper, half of each clock read: time.thread_time is a
    system call, about 2 us here) is added too, as measured on calls of a no-op (`calibrate`): it is the
    instrument's, not the stack's."""

    def __init__(self, store: AdmissionStore) -> None:
        self._store = store
        self.seconds = 0.0
        self.cpu_seconds = 0.0
        self.overhead = (0.0, 0.0)  # (wall, CPU) seconds per call, from `calibrate`

    def calibrate(self, number: int = 20_000) -> tuple[float, float]:
        """Measure and keep the timing's own cost per call (wall, CPU seconds) outside what it reads."""
        probe = TimedStore(_NoStore())  # type: ignore[arg-type]
        started, cpu = time.perf_counter(), time.process_time()
        for _ in range(number):
            probe.nothing()
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu
        self.overhead = (max(0.0, wall - probe.seconds) / number, max(0.0, cpu - probe.cpu_seconds) / number)
        return self.overhead

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._store, name)
        if not callable(attribute):
            return attribute

        def timed(*args: Any, **kwargs: Any) -> Any:
            started, cpu = time.perf_counter(), time.thread_time()
            try:
                return attribute(*args, **kwargs)
            finally:
                self.cpu_seconds += time.thread_time() - cpu + self.overhead[1]
                self.seconds += time.perf_counter() - started + self.overhead[0]

        return timed


class _NoStore:
    def nothing(self) -> None:
        return None


@contextmanager
def bench_key() -> Iterator[tuple[str, TimedStore]]:
    """A key on the in-memory store, on a plan whose rate never refuses the bench, with the stores installed
    (admission through a TimedStore)."""
    stores = memory_stores()
    stores.accounts.put_plan(Plan("bench", sustained_per_second=1e6, burst=1_000_000, quota_monthly=10**9, shards=1))
    key = create_key(stores.accounts, email="stack@example.com", plan="bench")
    timed = TimedStore(stores.admission)
    timed.calibrate()
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


@dataclass(frozen=True)
class Round:
    """Per request, in one round: wall time, the process's CPU time (all threads), and the store's share of each."""

    wall: float
    cpu: float
    store_wall: float = 0.0
    store_cpu: float = 0.0


def per_request(
    run: Callable[[], Awaitable[object]], *, store: TimedStore | None = None, rounds: int = 15, number: int = 200
) -> list[Round]:
    """Per call of `run`, in each of `rounds` rounds of `number` calls on one event loop."""
    return interleaved([(run, store)], rounds=rounds, number=number)[0]


def interleaved(
    runs: list[tuple[Callable[[], Awaitable[object]], TimedStore | None]], *, rounds: int = 15, number: int = 200
) -> list[list[Round]]:
    """Per call of each `run` (with the store whose calls it times, if any), in `rounds` rounds of `number` calls
    on one event loop, the runs taking turns round by round (a load that comes and goes on a shared machine then
    falls on each alike); the rounds of each run, in the order of `runs`."""

    async def one_round(run: Callable[[], Awaitable[object]], store: TimedStore | None) -> Round:
        store_wall, store_cpu = (store.seconds, store.cpu_seconds) if store else (0.0, 0.0)
        started, cpu = time.perf_counter(), time.process_time()
        for _ in range(number):
            await run()
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu
        if store:
            store_wall, store_cpu = store.seconds - store_wall, store.cpu_seconds - store_cpu
        return Round(wall / number, cpu / number, store_wall / number, store_cpu / number)

    async def rounds_of() -> list[list[Round]]:
        for run, _ in runs:
            for _ in range(20):
                await run()
        times: list[list[Round]] = [[] for _ in runs]
        for _ in range(rounds):
            for (run, store), kept in zip(runs, times, strict=True):
                kept.append(await one_round(run, store))
        return times

    return asyncio.run(rounds_of())


def _timed_round(call: Callable[[], object], number: int = 100) -> Round:
    started, cpu = time.perf_counter(), time.process_time()
    for _ in range(number):
        call()
    return Round((time.perf_counter() - started) / number, (time.process_time() - cpu) / number)


def _median(rounds: list[Round], figure: Callable[[Round], float]) -> float:
    return statistics.median(figure(round_) for round_ in rounds)


def bare_fastapi_app() -> Asgi:
    """The anchor: a FastAPI app with one route taking the raw body and answering text. (Its endpoint's annotations
    are strings, resolved in this module's globals: `Request` is imported at module level, or FastAPI would read
    `request` as a query parameter and answer 422 to every request.)"""
    from fastapi import FastAPI
    from starlette.responses import Response

    app = FastAPI(openapi_url=None, docs_url=None, redoc_url=None)

    @app.post("/v1/data/base64-encode")
    async def encode(request: Request) -> Response:
        return Response(base64.b64encode(await request.body()), media_type="text/plain")

    return app


def bench_stack() -> float:
    """The stack's own cost per metered request, in microseconds: POST /v1/data/base64-encode of 1 KiB through
    the Data function's app as a Lambda invocation runs it (every middleware, admission, the conversion, the
    access log; the invocation alone, web.deadline; Mangum's share is the adapter row), less the time spent
    inside the store's calls (in-memory store), median of rounds on one event loop, which take turns with rounds
    of the bare route (the anchor) so that a load that comes and goes falls on both alike. Printed beside it: the
    same request through the composed local app of `fileapi serve` (CORS, template routing, and a worker thread
    for every conversion, as a server answering many requests at once needs)."""
    from fileapi.local.server import create_local_app

    print("Stack's own cost per metered request: base64-encode of 1 KiB, in-process, in-memory store")
    body = os.urandom(1024)
    data_app = load_function_module(next(spec for spec in load_functions() if spec.logical_id == "DataFunction")).app
    anchor_app = bare_fastapi_app()
    with bench_key() as (key, timed), access_log_discarded():
        local_app = create_local_app()
        headers = [(b"authorization", f"Bearer {key}".encode()), (b"content-type", b"application/octet-stream")]

        async def invocation() -> None:
            with one_request_at_a_time():
                status = await asgi_request(data_app, "POST", "/v1/data/base64-encode", body, headers)
            assert status == 200, status

        async def bare_route() -> None:
            status = await asgi_request(anchor_app, "POST", "/v1/data/base64-encode", body)
            assert status == 200, status

        async def served() -> None:
            status = await asgi_request(local_app, "POST", "/v1/data/base64-encode", body, headers)
            assert status == 200, status

        # The stack and its anchor take turns, round by round, so that the ratio compares like with like.
        rounds, anchor = interleaved([(invocation, timed), (bare_route, None)], rounds=STACK_ROUNDS)
        local = per_request(served, store=timed)
        health = per_request(lambda: asgi_request(local_app, "GET", "/health"))
    own = _median(rounds, lambda r: r.cpu - r.store_cpu)
    bare = _median(anchor, lambda r: r.cpu)
    print(f"  {STACK_ROUNDS} rounds of 200 as invoked, each followed by one of the bare route; 15 of 200 of the others")
    print(f"  per request, median of rounds {'':<15}  CPU time     wall time")
    for name, cpu, wall in (
        ("full metered request, as invoked", _median(rounds, lambda r: r.cpu), _median(rounds, lambda r: r.wall)),
        (
            "of which in the store's calls",
            _median(rounds, lambda r: r.store_cpu),
            _median(rounds, lambda r: r.store_wall),
        ),
        ("the stack's own cost", own, _median(rounds, lambda r: r.wall - r.store_wall)),
        (
            "own cost through fileapi serve's app",
            _median(local, lambda r: r.cpu - r.store_cpu),
            _median(local, lambda r: r.wall - r.store_wall),
        ),
        (
            "GET /health through fileapi serve's app",
            _median(health, lambda r: r.cpu),
            _median(health, lambda r: r.wall),
        ),
        ("bare FastAPI route, same body", bare, _median(anchor, lambda r: r.wall)),
    ):
        print(f"  {name:<44} {cpu * 1e6:6.0f} us    {wall * 1e6:6.0f} us")
    wall_overhead, cpu_overhead = timed.overhead
    print(f"  (the store's calls include their timing's own cost: {cpu_overhead * 1e6:.1f} us CPU, "
          f"{wall_overhead * 1e6:.1f} us wall per call, measured on a no-op)")  # fmt: skip
    print(f"stack: {own * 1e6:.0f} us own cost per metered request")
    record(
        "Request path",
        "stack's own cost per metered request (CPU time in-process, as invoked, store's calls excluded)",
        own * 1e6,
        "us",
        Goal(max_ratio=STACK_GOAL_RATIO),
        anchor=bare * 1e6,
        anchor_name="bare FastAPI route",
    )
    return own


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
    wraps as an invocation runs it, on the same loop and store (rounds of each in turn, the median of their
    differences)."""
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

        async def as_invoked() -> int:  # as the handler runs it: the invocation is the process's only request
            with one_request_at_a_time():
                return await asgi_request(app, "POST", "/v1/data/base64-encode", body, headers)

        assert loop.run_until_complete(as_invoked()) == 200
        invoked: list[Round] = []
        direct: list[Round] = []
        for _ in range(15):
            invoked.append(_timed_round(lambda: handler(event, context)))
            direct.append(_timed_round(lambda: loop.run_until_complete(as_invoked())))
    loop.close()
    asyncio.set_event_loop(None)
    pairs = list(zip(invoked, direct, strict=True))
    overhead = statistics.median(i.cpu - d.cpu for i, d in pairs)
    alone = _median(direct, lambda r: r.cpu)
    print("  per invocation, median of 15 rounds of 100   CPU time     wall time")
    for name, cpu, wall in (
        ("handler(event, context)", _median(invoked, lambda r: r.cpu), _median(invoked, lambda r: r.wall)),
        ("the same request into its ASGI app", alone, _median(direct, lambda r: r.wall)),
        ("the adapter's own cost", overhead, statistics.median(i.wall - d.wall for i, d in pairs)),
    ):
        print(f"  {name:<44} {cpu * 1e6:6.0f} us    {wall * 1e6:6.0f} us")
    record(
        "Request path",
        "Lambda adapter cost per invocation (CPU time: handler less its ASGI request)",
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


def _cpu_seconds(pid: int) -> float:
    """CPU time (user + system) a process has used so far, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def requests_per_second(server: _Server, *, seconds: float = 3.0, connections: int = 8) -> tuple[float, float]:
    """/health requests one server answers to `connections` keep-alive connections: per second of the server
    process's CPU time (what one process does with a core of its own) and per second of wall time."""
    asyncio.run(_health_load(server.port, 0.5, connections))  # warm-up
    cpu = _cpu_seconds(server.process.pid)
    answered = asyncio.run(_health_load(server.port, seconds, connections))
    return answered / max(_cpu_seconds(server.process.pid) - cpu, 1e-3), answered / seconds


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
        rates: dict[str, list[tuple[float, float]]] = {ours.name: [], bare.name: []}
        for server in (ours, bare):
            _wait_until_up(server.port, server.process)
        for _ in range(3):
            for server in (ours, bare):
                rates[server.name].append(requests_per_second(server))
    finally:
        for server in (ours, bare):
            server.process.terminate()
            server.process.wait(timeout=10)
    ours_rps, bare_rps = (statistics.median(cpu for cpu, _ in rates[server.name]) for server in (ours, bare))
    print(f"  {'':<42} {'per CPU second':>14} {'per wall second':>16}")
    for server in (ours, bare):
        per_cpu = statistics.median(cpu for cpu, _ in rates[server.name])
        per_wall = statistics.median(wall for _, wall in rates[server.name])
        print(f"  {server.name:<42} {per_cpu:8.0f} req/s {per_wall:10.0f} req/s")
    record(
        "Request path",
        "/health req/s per CPU second of one `fileapi serve` process over loopback",
        ours_rps,
        "req/s",
        Goal(min_value=HEALTH_GOAL_RPS),
        anchor=bare_rps,
        anchor_name="bare uvicorn + Starlette",
    )
    return ours_rps


# ------------------------------------------------------------------------------------------- cold imports


def _import_ms(statement: str, paths: list[str], pycache: str) -> tuple[float, float]:
    """Milliseconds of CPU time and of wall time `statement` takes in a fresh interpreter with `paths` first
    on sys.path, reading and writing bytecode under `pycache`."""
    code = (
        f"import sys, time; sys.path[:0] = {paths!r}; t, c = time.perf_counter(), time.process_time(); "
        f"{statement}; print(time.process_time() - c, time.perf_counter() - t)"
    )
    env = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = pycache
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd="/", env=env)
    cpu, wall = out.stdout.split()
    return float(cpu) * 1000, float(wall) * 1000


def _import_statement(spec: FunctionSpec) -> tuple[str, list[str]]:
    """The import Lambda does of the function's handler module, with its CodeUri and the shared layer on sys.path."""
    return f"import {spec.handler.rpartition('.')[0]}", [str(spec.code_dir), str(PROJECT_ROOT / "shared")]


def bench_imports(*, runs: int = 5) -> dict[str, float]:
    """Each function's cold import (median of `runs` fresh interpreters) against a bare `import fastapi`, run
    in turn within each round (a load that comes and goes on a shared machine falls on all alike).

    Every module is imported from its bytecode, as in Lambda: `make sam-build` ships the bytecode of the
    function, both layers and their dependencies (.ci/check_build.py checks it). An untimed round first
    writes that bytecode to a cache of the bench's own; the machine's PYTHONDONTWRITEBYTECODE is left out."""
    print(f"\nCold import of each function's module (fresh interpreter, from bytecode, median of {runs})")
    specs = load_functions()
    statements = {"fastapi": ("import fastapi", []), **{spec.logical_id: _import_statement(spec) for spec in specs}}
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in statements}
    with tempfile.TemporaryDirectory(prefix="fileapi-bench-pycache-") as pycache:
        for statement, paths in statements.values():
            _import_ms(statement, paths, pycache)
        for _ in range(runs):
            for name, (statement, paths) in statements.items():
                times[name].append(_import_ms(statement, paths, pycache))

    def cpu(name: str) -> float:
        return statistics.median(cpu for cpu, _ in times[name])

    def wall(name: str) -> float:
        return statistics.median(wall for _, wall in times[name])

    fastapi_ms = cpu("fastapi")
    print(f"  {'':<28} {'CPU time':>9} {'wall time':>10}")
    print(f"  {'import fastapi (anchor)':<28} {fastapi_ms:6.1f} ms {wall('fastapi'):7.1f} ms")
    figures: dict[str, float] = {}
    for spec in specs:
        ours = figures[spec.logical_id] = cpu(spec.logical_id)
        goal = IMPORT_GOALS_MS.get(spec.logical_id)
        print(
            f"  {spec.logical_id:<28} {ours:6.1f} ms {wall(spec.logical_id):7.1f} ms"
            + (f"   (goal <= {goal:g} ms)" if goal else "")
        )
        if goal is not None:
            record(
                "Cold import",
                f"{spec.logical_id.removesuffix('Function')}: import of the function's app (CPU time, from bytecode)",
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
