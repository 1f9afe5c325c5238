"""Every hostile input of the catalogue (tests/bombs.py) against a real `fileapi serve`, one at a time and then from
four clients at once. For each: the expected answer and code, within the deadline; /health and a light metered
request keep answering meanwhile; the server's process tree stays within its conversion workers' memory; no
process of it keeps computing after the answer; and only a success is charged."""

from __future__ import annotations

import os
import random
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest

from fileapi.metering.admin import create_key
from fileapi.metering.storage import AccountStore
from tests.bombs import BOMBS, Bomb
from tests.helpers import auth
from tests.process_tree import tree, tree_cpu_seconds, tree_rss_mib
from tests.server.conftest import StartServers

pytestmark = [pytest.mark.server, pytest.mark.xdist_group("long-server-runs")]

DEADLINE_SECONDS = 10
WORKERS = 2
WORKER_MEMORY_MIB = 1024
SERVER_ENV = {
    "FILEAPI_DEADLINE_SECONDS": str(DEADLINE_SECONDS),
    "FILEAPI_CONVERSION_WORKERS": str(WORKERS),
    "FILEAPI_WORKER_MEMORY_MB": str(WORKER_MEMORY_MIB),
}
# Bounds of correctness, far from the figures (make bench has those): an answer long before a hang would end,
# /health answered while a conversion runs (it waited 49.9 s behind a render), a tree within its workers' limits.
ANSWER_BOUND_SECONDS = DEADLINE_SECONDS + 10
HEALTH_BOUND_SECONDS = 2.0
MEMORY_SLACK_MIB = 256
IDLE_CPU_SECONDS = 0.2  # CPU the whole tree may use in the half second after an answer


@dataclass
class Watch:
    """What the server did while one request ran: /health's and a light request's answers, the tree's peak RSS."""

    health_seconds: list[float] = field(default_factory=list)
    light_statuses: list[int] = field(default_factory=list)
    peak_rss_mib: float = 0.0


class Watcher:
    def __init__(self, url: str, light_key: str, server_pid: int) -> None:
        self.url, self.light_key, self.server_pid = url, light_key, server_pid

    def __enter__(self) -> Watch:
        self.watch = Watch(peak_rss_mib=tree_rss_mib(self.server_pid))
        self.stop = threading.Event()
        self.threads = [threading.Thread(target=target) for target in (self._health, self._light, self._memory)]
        for thread in self.threads:
            thread.start()
        return self.watch

    def __exit__(self, *_: object) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join()

    def _health(self) -> None:
        with httpx.Client(base_url=self.url, timeout=30) as client:
            while not self.stop.is_set():
                started = time.monotonic()
                assert client.get("/health").status_code == 200
                self.watch.health_seconds.append(time.monotonic() - started)
                self.stop.wait(0.05)

    def _light(self) -> None:
        with httpx.Client(base_url=self.url, timeout=30) as client:
            while not self.stop.is_set():
                answer = client.post("/v1/data/base64-encode", content=b"light", headers=auth(self.light_key))
                self.watch.light_statuses.append(answer.status_code)
                self.stop.wait(0.2)

    def _memory(self) -> None:
        while not self.stop.is_set():
            self.watch.peak_rss_mib = max(self.watch.peak_rss_mib, tree_rss_mib(self.server_pid))
            self.stop.wait(0.05)


@dataclass(frozen=True)
class Served:
    url: str
    pid: int
    key: str
    light_key: str


@pytest.fixture()
def served(start_servers: StartServers, server_store: AccountStore) -> Iterator[Served]:
    (url,) = start_servers(1, env=SERVER_ENV)
    pid = _server_pid(url)
    key = create_key(server_store, email="attacker@example.com", plan="business")
    light_key = create_key(server_store, email="bystander@example.com", plan="business")
    yield Served(url, pid, key, light_key)


def _server_pid(url: str) -> int:
    """The pid of the process listening on `url`'s port (from /proc/net/tcp and the sockets' owners)."""
    port = int(url.rsplit(":", 1)[1])
    inodes = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if int(fields[1].split(":")[1], 16) == port and fields[3] == "0A":  # listening
            inodes.add(fields[9])
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            for fd in (proc / "fd").iterdir():
                if os.readlink(fd).removeprefix("socket:[").removesuffix("]") in inodes:
                    return int(proc.name)
        except OSError:
            continue
    raise RuntimeError(f"nothing listens on {url}")


def send(client: httpx.Client, bomb: Bomb, key: str) -> tuple[int, str | None, float]:
    body = bomb.build()
    headers = {**auth(key), "Content-Type": bomb.content_type}
    started = time.monotonic()
    answer = client.post(bomb.path, params=bomb.params, content=body, headers=headers)
    seconds = time.monotonic() - started
    code = answer.json().get("error") if answer.status_code >= 400 else None
    return answer.status_code, code, seconds


def used(client: httpx.Client, key: str) -> int:
    count: int = client.get("/v1/usage", headers=auth(key)).json()["used_this_month"]
    return count


def test_each_hostile_input_alone(served: Served) -> None:
    baseline = tree_rss_mib(served.pid)
    problems = []
    with httpx.Client(base_url=served.url, timeout=120) as client:
        for bomb in BOMBS:
            before = used(client, served.key)
            with Watcher(served.url, served.light_key, served.pid) as watch:
                status, code, seconds = send(client, bomb, served.key)
            cpu = tree_cpu_seconds(served.pid)
            time.sleep(0.5)
            cpu_after = tree_cpu_seconds(served.pid) - cpu
            charged = used(client, served.key) - before
            observed = {
                "answer": (status, code),
                "seconds": round(seconds, 2),
                "health max s": round(max(watch.health_seconds, default=0.0), 3),
                "light statuses": sorted(set(watch.light_statuses)),
                "peak tree MiB over baseline": round(watch.peak_rss_mib - baseline),
                "CPU s after the answer": round(cpu_after, 2),
                "charged": charged,
            }
            print(f"{bomb.name}: {observed}")  # the table of make test -s, and of the closing notes
            expected_charge = 1 if bomb.expected == (200, None) else 0
            if (
                (status, code) != bomb.expected
                or seconds > ANSWER_BOUND_SECONDS
                or max(watch.health_seconds, default=0.0) > HEALTH_BOUND_SECONDS
                or set(watch.light_statuses) - {200}
                or watch.peak_rss_mib - baseline > WORKERS * WORKER_MEMORY_MIB + MEMORY_SLACK_MIB
                or cpu_after > IDLE_CPU_SECONDS
                or charged != expected_charge
            ):
                problems.append(f"{bomb.name} (expected {bomb.expected}, {bomb.why}): {observed}")
    assert problems == []


def test_all_hostile_inputs_from_four_clients_at_once(served: Served) -> None:
    bombs = list(BOMBS)
    random.Random(25).shuffle(bombs)
    with httpx.Client(base_url=served.url, timeout=120) as client:
        before = used(client, served.key)
        with Watcher(served.url, served.light_key, served.pid) as watch, ThreadPoolExecutor(max_workers=4) as pool:
            answers = list(pool.map(lambda bomb: (bomb, send(client, bomb, served.key)), bombs))
        charged = used(client, served.key) - before
    wrong = [(bomb.name, status, code) for bomb, (status, code, _) in answers if (status, code) != bomb.expected]
    assert wrong == []
    assert max(watch.health_seconds) <= HEALTH_BOUND_SECONDS
    assert set(watch.light_statuses) == {200}
    assert charged == sum(1 for bomb in bombs if bomb.expected == (200, None))
    assert len(tree(served.pid)) == 1 + WORKERS  # the server and its workers, every lost one replaced
