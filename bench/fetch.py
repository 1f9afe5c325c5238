"""The network edge on large files: fetch_to_file (a GET to disk) and put_file (a PUT from disk) against curl doing
the same against the same local server, in the same run, and peak memory at two file sizes.

The server is a process of its own (`python -m bench.fetch serve <folder>`: GET sends a file of the folder, PUT
reads the body and keeps nothing). Each measured run is a fresh process: ours (`python -m bench.fetch get|put`)
times the work after its imports and reports its resident memory then; curl's time is its whole process.
Memory is the growth of our peak over the process's resident memory after its imports, at two sizes: a stream
to or from disk should leave it the same at twice the bytes.

    python -m bench.fetch       # the rows alone
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from bench.scoreboard import Goal, record
from bench.timing import peak_mib, reset_peak_mib

SIZES_MB = (100, 200)
REPEAT = 5
TIME_GOAL = Goal(max_ratio=1.5)  # of curl's time for the same transfer
FLAT_GOAL = Goal(max_ratio=1.25)  # peak growth at twice the bytes, to the growth at the bytes
MIB = 1024 * 1024


@dataclass(frozen=True)
class Run:
    seconds: float
    growth_mib: float = 0.0


def _median(runs: list[Run]) -> Run:
    return Run(statistics.median(run.seconds for run in runs), statistics.median(run.growth_mib for run in runs))


def _timed(argv: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(argv, check=True, capture_output=True)
    return time.perf_counter() - started


def _ours(operation: str, url: str, path: Path) -> Run:
    output = subprocess.run(
        [sys.executable, "-m", "bench.fetch", operation, url, str(path)], check=True, capture_output=True, text=True
    ).stdout
    report = json.loads(output)
    return Run(report["seconds"], report["growth_mib"])


def _curl(curl: str, operation: str, url: str, path: Path) -> Run:
    if operation == "get":
        return Run(_timed([curl, "-sS", "-f", "-o", str(path), url]))
    return Run(_timed([curl, "-sS", "-f", "-T", str(path), "-o", os.devnull, url]))


def bench_fetch(tmp: Path) -> None:
    """Print and record the rows."""
    curl = shutil.which("curl")
    print("\nURL inputs and PUT outputs: a local server, files on disk (fresh process per run)")
    folder = tmp / "served"
    folder.mkdir(exist_ok=True)
    for megabytes in SIZES_MB:
        with (folder / f"{megabytes}.bin").open("wb") as out:
            for _ in range(megabytes):
                out.write(os.urandom(MIB))
    server = subprocess.Popen(
        [sys.executable, "-m", "bench.fetch", "serve", str(folder)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert server.stdout is not None
        base = server.stdout.readline().strip()
        growth: dict[tuple[str, int], float] = {}
        for operation in ("get", "put"):
            for megabytes in SIZES_MB:
                url = f"{base}/{megabytes}.bin"
                path = tmp / "fetched.bin" if operation == "get" else folder / f"{megabytes}.bin"
                ours = _median([_ours(operation, url, path) for _ in range(REPEAT)])
                growth[operation, megabytes] = ours.growth_mib
                line = f"  {operation} {megabytes} MB  ours {ours.seconds:6.2f} s, peak +{ours.growth_mib:4.1f} MiB"
                reference = _median([_curl(curl, operation, url, path) for _ in range(REPEAT)]) if curl else None
                if reference is not None:
                    line += f"   curl {reference.seconds:6.2f} s   time {ours.seconds / reference.seconds:.2f}x curl"
                print(line)
                record(
                    "URLs",
                    f"{'fetch_to_file' if operation == 'get' else 'put_file'} {megabytes} MB",
                    ours.seconds,
                    "s",
                    TIME_GOAL,
                    anchor=reference.seconds if reference else None,
                    anchor_name="curl",
                    missing="" if curl else "curl is not installed",
                )
            small, large = (growth[operation, megabytes] for megabytes in SIZES_MB)
            record(
                "URLs",
                f"{operation} peak growth at {SIZES_MB[1]} MB / {SIZES_MB[0]} MB",
                max(large, 1.0) / max(small, 1.0),
                "x",
                FLAT_GOAL,
            )
    finally:
        server.terminate()
        server.wait(timeout=10)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    folder = Path()

    def do_GET(self) -> None:
        path = self.folder / Path(self.path).name
        self.send_response(200)
        self.send_header("Content-Length", str(path.stat().st_size))
        self.end_headers()
        with path.open("rb") as source:
            self.wfile.flush()
            self.request.sendfile(source)

    def do_PUT(self) -> None:
        left = int(self.headers["Content-Length"])
        while left:
            left -= len(self.rfile.read(min(left, MIB)))
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


def _serve(folder: str) -> None:
    _Handler.folder = Path(folder)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    print(f"http://127.0.0.1:{server.server_address[1]}", flush=True)
    server.serve_forever()


def _run(operation: str, url: str, path: str) -> None:
    from fileapi.net.addresses import EgressPolicy
    from fileapi.net.fetch import fetch_to_file
    from fileapi.net.put import put_file

    baseline = reset_peak_mib()
    started = time.perf_counter()
    local = EgressPolicy(local=True)
    if operation == "get":
        fetch_to_file(url, Path(path), max_bytes=2**40, connect_timeout=5, total_timeout=600, field="url", policy=local)
    else:
        result = put_file(url, Path(path), field="url", total_timeout=600, policy=local)
        assert result.ok, result.error
    seconds = time.perf_counter() - started
    print(json.dumps({"seconds": seconds, "growth_mib": max(0.0, peak_mib() - baseline)}))


if __name__ == "__main__":
    if sys.argv[1:2] == ["serve"]:
        _serve(sys.argv[2])
    elif sys.argv[1:2] in (["get"], ["put"]):
        _run(*sys.argv[1:4])
    else:
        with tempfile.TemporaryDirectory() as tmp:
            bench_fetch(Path(tmp))
