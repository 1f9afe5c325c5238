"""Every corpus file through every endpoint of its family, plus seeded mutants, via the HTTP app.

    python -m tools.fuzz_files                  # the full sweep (`make fuzz-files`)
    python -m tools.fuzz_files --sample 4       # at most 4 files per family (what CI runs)
    python -m tools.fuzz_files --family pdf --json out.json

A file's family comes from its name (images, PDFs, SVG, JSON, CSV, text; anything else is only
detected and hashed); every file also goes through /v1/file/detect. A quarter of the files (seeded
choice) also get 3 of 4 mutants: truncated, bytes flipped, a chunk duplicated, the header kept with a
garbage body. Requests go through the composed local app (FastAPI's TestClient over the template's
routing, with the conversion workers, the size limits and the error mapping in the path) with in-memory
metering, from 4 concurrent clients (--clients). Prints, per route: requests, 4xx, server errors (5xx)
and slow answers (over 15 s); then each server error and slow answer with its file. Exit status 1 when
there is any of either.
"""

from __future__ import annotations

import argparse
import base64
import json
import random
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from fastapi.testclient import TestClient

from fileapi.catalogue.declaration import ANY, IMAGE, PDF, SVG, Conversion, Reads
from fileapi.catalogue.registry import every
from tests.helpers import CORPUS, auth

SLOW_SECONDS = 15.0
CLIENTS = 4  # concurrent clients: a file that passes alone can break a process in company
MUTANT_FRACTION = 0.25
MUTANTS_PER_FILE = 3
JSON_TYPE = "application/json"
DETECT = "/v1/file/detect"

IMAGE_SUFFIXES = {
    ".jpg", ".jpeg", ".png", ".webp", ".avif", ".avifs", ".heic", ".heif", ".gif", ".bmp", ".tif", ".tiff"
}  # fmt: skip
TEXT_SUFFIXES = {".md", ".txt", ".rst", ".html", ".xhtml", ".xml", ".yml", ".toml", ".css"}


@dataclass(frozen=True)
class Call:
    """One request: a route, its query parameters and how the file is put in the body."""

    path: str
    params: dict[str, str] = field(default_factory=dict)
    wrap: Callable[[bytes], tuple[bytes, str]] | None = None  # body and content type; default: raw bytes


def _form_fill(extra: dict[str, object]) -> Callable[[bytes], tuple[bytes, str]]:
    def wrap(data: bytes) -> tuple[bytes, str]:
        return json.dumps({"pdf": base64.b64encode(data).decode("ascii"), **extra}).encode(), JSON_TYPE

    return wrap


def _two_files(data: bytes) -> tuple[bytes, str]:
    encoded = base64.b64encode(data).decode("ascii")
    return json.dumps({"files": [encoded, encoded]}).encode(), JSON_TYPE


# The kinds of file each family of the corpus is, as the catalogue's conversions say what they take.
KINDS = {
    "image": (IMAGE,),
    "pdf": (PDF,),
    "svg": (SVG,),
    "json": (JSON_TYPE,),
    "csv": ("text/csv",),
    "text": ("text/plain", "text/markdown"),
    "other": (ANY,),
}


def _call(conversion: Conversion) -> Call:
    """The request a file is sent to `conversion` as: its example options, the body as it takes it."""
    reads = conversion.takes.reads
    if reads is Reads.FILES:
        return Call(conversion.path, wrap=_two_files)
    if reads is Reads.FORM_FILL:
        return Call(conversion.path, wrap=_form_fill(dict(conversion.example)))
    return Call(conversion.path, {name: str(value) for name, value in conversion.example.items()})


def family_of(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix in IMAGE_SUFFIXES:
        return "image"
    if suffix == ".pdf":
        return "pdf"
    if suffix in (".svg", ".svgz"):
        return "svg"
    if suffix == ".json":
        return "json"
    if suffix == ".csv":
        return "csv"
    if suffix in TEXT_SUFFIXES:
        return "text"
    return "other"


def calls_for(family: str, index: int) -> list[Call]:
    """The requests a file of `family` is sent as: every conversion of the catalogue that takes a file of its
    kind, then file/detect (every file). (`index` varies the file's mutants, not the requests.)"""
    kinds = KINDS[family]
    calls = [_call(c) for c in every() if c.takes.takes_file and c.takes.accepts in kinds and c.path != DETECT]
    return [*calls, Call(DETECT)]


# Mutants: each is a pure function of the bytes and a seeded random generator.


def truncated(data: bytes, rng: random.Random) -> bytes:
    return data[: rng.randint(1, max(1, len(data) - 1))]


def bytes_flipped(data: bytes, rng: random.Random) -> bytes:
    mutant = bytearray(data)
    for _ in range(max(8, len(data) // 1000)):
        position = rng.randrange(len(mutant))
        mutant[position] ^= rng.randint(1, 255)
    return bytes(mutant)


def chunk_duplicated(data: bytes, rng: random.Random) -> bytes:
    start = rng.randrange(len(data))
    length = rng.randint(1, max(1, min(len(data) - start, len(data) // 10 or 1)))
    return data[: start + length] + data[start : start + length] + data[start + length :]


def garbage_body(data: bytes, rng: random.Random) -> bytes:
    keep = min(64, max(1, len(data) // 4))
    return data[:keep] + rng.randbytes(len(data) - keep)


MUTATIONS: dict[str, Callable[[bytes, random.Random], bytes]] = {
    "truncated": truncated,
    "flipped": bytes_flipped,
    "duplicated": chunk_duplicated,
    "garbage": garbage_body,
}


@dataclass(frozen=True)
class Case:
    name: str  # the file's path under the corpus, with the mutant's kind after '#'
    family: str
    index: int
    data: bytes


def corpus_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file() and p.name != "SOURCES.md")


def cases(root: Path, *, seed: int, sample: int | None, families: set[str] | None) -> Iterator[Case]:
    """The originals and their mutants, in a fixed order for a given seed."""
    by_family: dict[str, list[Path]] = defaultdict(list)
    for path in corpus_files(root):
        by_family[family_of(path)].append(path)
    for family, paths in sorted(by_family.items()):
        if families and family not in families:
            continue
        if sample is not None and len(paths) > sample:
            paths = sorted(random.Random(f"{seed}:{family}").sample(paths, sample))
        for index, path in enumerate(paths):
            name = str(path.relative_to(root))
            data = path.read_bytes()
            yield Case(name, family, index, data)
            rng = random.Random(f"{seed}:{name}")
            if not data or rng.random() >= MUTANT_FRACTION:
                continue
            for kind in rng.sample(sorted(MUTATIONS), MUTANTS_PER_FILE):
                yield Case(f"{name}#{kind}", family, index, MUTATIONS[kind](data, rng))


@dataclass
class RouteStats:
    requests: int = 0
    client_errors: int = 0
    server_errors: int = 0
    slow: int = 0
    max_seconds: float = 0.0


@dataclass
class Outcome:
    stats: dict[str, RouteStats] = field(default_factory=lambda: defaultdict(RouteStats))
    failures: list[dict[str, object]] = field(default_factory=list)

    @property
    def requests(self) -> int:
        return sum(s.requests for s in self.stats.values())

    @property
    def server_errors(self) -> int:
        return sum(s.server_errors for s in self.stats.values())

    @property
    def slow(self) -> int:
        return sum(s.slow for s in self.stats.values())

    def count(self, route: str, name: str, status: int, seconds: float, payload: dict[str, object]) -> None:
        """One answer of `route` for the file `name`."""
        stats = self.stats[route]
        stats.requests += 1
        stats.max_seconds = max(stats.max_seconds, seconds)
        stats.client_errors += 400 <= status < 500
        stats.server_errors += status >= 500
        stats.slow += seconds > SLOW_SECONDS
        if status >= 500 or seconds > SLOW_SECONDS:
            self.failures.append(
                {"route": route, "file": name, "status": status, "seconds": round(seconds, 2)} | payload
            )


@contextmanager
def local_api() -> Iterator[tuple[TestClient, str]]:
    """The composed local app with in-memory metering, and a key on it (for running this as a script)."""
    from fileapi.local.server import create_local_app
    from fileapi.telemetry import logger
    from tests.helpers import in_memory_metering

    logger.setLevel("CRITICAL")  # one access-log line per request would drown the table
    with (
        in_memory_metering("fuzz-files@example.com") as key,
        TestClient(create_local_app(), raise_server_exceptions=False) as api,
    ):
        yield api, key


def sweep(
    api: TestClient,
    key: str,
    root: Path = CORPUS,
    *,
    seed: int = 0,
    sample: int | None = None,
    families: set[str] | None = None,
    clients: int = CLIENTS,
    progress: Callable[[str], None] | None = None,
) -> Outcome:
    """Send every case through its family's routes on `api` (the local app) from `clients` threads at once (a
    case's requests in turn, cases side by side, as several clients of one server); count what came back."""
    outcome = Outcome()
    headers = auth(key)

    def send(case: Case) -> list[tuple[Call, int, float, dict[str, object]]]:
        answers = []
        for call in calls_for(case.family, case.index):
            body, content_type = call.wrap(case.data) if call.wrap else (case.data, "application/octet-stream")
            answers.append((call, *_post(api, call, body, {**headers, "Content-Type": content_type})))
        return answers

    with ThreadPoolExecutor(max_workers=clients) as pool:
        pending = {pool.submit(send, case): case for case in cases(root, seed=seed, sample=sample, families=families)}
        for number, future in enumerate(as_completed(pending), start=1):
            case = pending[future]
            if progress is not None and number % 100 == 0:
                progress(f"{number} files sent, {outcome.requests} requests, {outcome.server_errors} server errors")
            for call, status, seconds, payload in future.result():
                outcome.count(call.path, case.name, status, seconds, payload)
    return outcome


def _post(api: TestClient, call: Call, body: bytes, headers: dict[str, str]) -> tuple[int, float, dict[str, object]]:
    for _ in range(20):
        started = time.perf_counter()
        response = api.post(call.path, params=call.params, content=body, headers=headers)
        seconds = time.perf_counter() - started
        if response.status_code != 429:
            break
        time.sleep(int(response.headers.get("Retry-After", "1")))
    payload: dict[str, object] = {}
    if response.status_code >= 400 and response.headers.get("content-type", "").startswith(JSON_TYPE):
        error = response.json()
        payload = {"code": error.get("error"), "message": str(error.get("message", ""))[:160]}
    return response.status_code, seconds, payload


def report(outcome: Outcome) -> str:
    """The per-route table, then each server error and slow answer."""
    lines = [f"{'route':34} {'requests':>8} {'4xx':>6} {'5xx':>5} {'>15s':>5} {'max s':>7}"]
    for route, stats in sorted(outcome.stats.items()):
        lines.append(
            f"{route:34} {stats.requests:8} {stats.client_errors:6} {stats.server_errors:5} {stats.slow:5} "
            f"{stats.max_seconds:7.2f}"
        )
    lines.append(f"{'all':34} {outcome.requests:8} {'':6} {outcome.server_errors:5} {outcome.slow:5}")
    for failure in outcome.failures:
        lines.append(json.dumps(failure, ensure_ascii=False))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="the corpus folder (default ../shared/corpus)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the file sample and the mutants")
    parser.add_argument("--sample", type=int, help="at most this many files per family (seeded choice)")
    parser.add_argument("--family", action="append", help="only these families (image, pdf, svg, json, ...)")
    parser.add_argument("--clients", type=int, default=CLIENTS, help=f"concurrent clients (default {CLIENTS})")
    parser.add_argument("--json", type=Path, help="also write the counts and failures as JSON here")
    args = parser.parse_args(argv)
    if not args.corpus.is_dir():
        print(f"no corpus at {args.corpus}", file=sys.stderr)
        return 2
    started = time.monotonic()
    with local_api() as (api, key):
        outcome = sweep(
            api,
            key,
            args.corpus,
            seed=args.seed,
            sample=args.sample,
            families=set(args.family) if args.family else None,
            clients=args.clients,
            progress=lambda text: print(text, file=sys.stderr, flush=True),
        )
    from fileapi.convert import fallbacks

    print(report(outcome))
    print(f"{outcome.requests} requests in {time.monotonic() - started:.0f} s")
    print("files rescued by a fallback:", json.dumps(fallbacks.counts(), sort_keys=True))
    if args.json:
        stats = {route: vars(s) for route, s in sorted(outcome.stats.items())}
        rescued = fallbacks.counts()
        args.json.write_text(json.dumps({"stats": stats, "failures": outcome.failures, "fallbacks": rescued}, indent=1))
    return 1 if outcome.server_errors or outcome.slow else 0


if __name__ == "__main__":
    sys.exit(main())
