"""Metering against the real local DynamoDB endpoint through a counting, fault-injecting proxy, with
`fileapi serve` processes: what customers are charged and what they received, under faults."""

from __future__ import annotations

import json
import os
import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

import httpx
import pytest

from fileapi.metering.admin import change_account, create_key
from fileapi.metering.dynamo.connect import dynamo_stores
from fileapi.metering.keys import generate_key, hash_key
from fileapi.metering.settling import UNDERCOUNT_FAULTS, Fault
from fileapi.metering.storage import AccountStore
from fileapi.setting_variables import LOCAL_DYNAMODB_READ_TIMEOUT_SECONDS
from fileapi.storage.table import DynamoTable
from tests.dynamo_proxy import DynamoProxy, Faults
from tests.helpers import auth
from tests.server.conftest import StartServers

# The two longest server runs (each a 2-worker server and a single-threaded local DynamoDB endpoint) take
# turns on one xdist worker (make test runs --dist loadgroup), so neither starves the other's endpoint.
pytestmark = [pytest.mark.server, pytest.mark.xdist_group("long-server-runs")]

VALID = ("/v1/data/base64-encode", b"hello")
INVALID = ("/v1/data/base64-decode", b"abc$")
EXPECTED = {200, 400, 429, 503}
# The fault test's size (FILEAPI_FAULT_REQUESTS scales it down while iterating; the quota is two thirds of it).
REQUESTS = int(os.environ.get("FILEAPI_FAULT_REQUESTS", "15000"))
QUOTA = REQUESTS * 2 // 3
READ_TIMEOUT_SECONDS = LOCAL_DYNAMODB_READ_TIMEOUT_SECONDS


def fault_counts(log_dir: Path) -> Counter[str]:
    """The metering faults the servers reported (their warning records)."""
    faults: Counter[str] = Counter()
    for path in log_dir.glob("*.log"):
        for line in path.read_text(errors="replace").splitlines():
            if '"metering_fault"' in line:
                faults[json.loads(line)["metering_fault"]] += 1
    return faults


def test_usage_equals_deliveries_under_faults_and_never_passes_the_quota(
    start_servers: StartServers,
    dynamodb_endpoint: str,
    server_table: DynamoTable,
    server_store: AccountStore,
    tmp_path: Path,
) -> None:
    # GIVEN a proxy that throttles 5% of writes, drops 5% of replies after applying them and delays 1% past
    # the read timeout, two server processes behind it, and a key with a quota of 10,000. (The read timeout is
    # the local endpoint's 5 s, not the deployed 0.5 s: the faults measured here are to be the injected ones, and
    # moto's one-at-a-time server behind this proxy, on a machine loaded by the whole suite, answered past 2 s
    # often enough that a forgiveness's five writes all went unanswered: settle_failed.)
    faults = Faults(throttle=0.05, drop=0.05, delay=0.01, delay_seconds=READ_TIMEOUT_SECONDS + 0.5, seed=16)
    with DynamoProxy(dynamodb_endpoint, faults) as proxy:
        urls = start_servers(
            2, endpoint=proxy.url, log_dir=tmp_path, env={"FILEAPI_DYNAMODB_READ_TIMEOUT": str(READ_TIMEOUT_SECONDS)}
        )
        key = create_key(server_store, email="faults@example.com", plan="business", quota=QUOTA)
        # WHEN 16 threads send 15,000 requests, one in ten of them invalid, alternating between the servers
        requests = [INVALID if index % 10 == 9 else VALID for index in range(REQUESTS)]

        clients = threading.local()

        def send(item: tuple[int, tuple[str, bytes]]) -> tuple[str, int]:
            index, (path, body) = item
            if not hasattr(clients, "client"):
                clients.client = httpx.Client(timeout=30)
            response = clients.client.post(urls[index % 2] + path, content=body, headers=auth(key))
            return path, response.status_code

        with ThreadPoolExecutor(max_workers=16) as pool:
            results = list(pool.map(send, enumerate(requests)))
        injected = proxy.faults_injected()
    reported = fault_counts(tmp_path)
    account = server_store.get_account_by_key(hash_key(key))
    assert account is not None
    shards = dynamo_stores(server_table).admission.read_shards(account.account_id)
    assert len(shards) == 2  # a business key is spread over two items: faults on both
    delivered = sum(1 for path, status in results if path == VALID[0] and status == 200)
    statuses = Counter(status for _, status in results)
    charged = sum(state.counted_in(state.period) for state in shards)
    undercounts = sum(count for kind, count in reported.items() if Fault(kind) in UNDERCOUNT_FAULTS)
    print(
        f"\nfaults injected {dict(injected)}; reported {dict(reported)}; statuses {dict(statuses)}; "
        f"delivered {delivered}; charged {charged}; units taken {sum(state.used for state in shards)}, "
        f"forgiven {sum(state.forgiven for state in shards)}"
    )
    # THEN every answer is one the contract knows, and the faults really happened
    assert set(statuses) <= EXPECTED
    assert min(injected["throttle"], injected["drop"]) > REQUESTS // 150 and injected["delay"] > REQUESTS // 1500
    # AND no success beyond the quota, and the charge equals the successes or is below by at most the
    # ambiguous outcomes reported (never above: no failure charged, nothing charged twice)
    assert delivered <= QUOTA
    assert reported[Fault.SETTLE_FAILED.value] == 0
    assert delivered - undercounts <= charged <= delivered
    # AND invalid requests were never charged: answered 400 (refunded), or refused before validation
    assert {status for path, status in results if path == INVALID[0]} <= {400, 429, 503}


def test_calls_per_warm_success_refusal_and_bad_key(
    start_servers: StartServers, dynamodb_endpoint: str, server_store: AccountStore
) -> None:
    with DynamoProxy(dynamodb_endpoint) as proxy:
        (url,) = start_servers(1, endpoint=proxy.url)
        with httpx.Client(base_url=url, timeout=30) as client:
            # GIVEN a warm key (its first request looked it up)
            key = create_key(server_store, email="calls@example.com", plan="business")
            assert client.post(VALID[0], content=VALID[1], headers=auth(key)).status_code == 200
            # WHEN 300 requests succeed THEN they cost at most 1.05 calls and 1.05 writes each
            proxy.reset()
            for _ in range(300):
                assert client.post(VALID[0], content=VALID[1], headers=auth(key)).status_code == 200
            calls = proxy.snapshot()
            assert len(calls) / 300 <= 1.05 and sum(call.write for call in calls) / 300 <= 1.05
            # AND a request that fails after admission costs one more write (its refund)
            proxy.reset()
            assert client.post(INVALID[0], content=INVALID[1], headers=auth(key)).status_code == 400
            assert proxy.counts() == {"UpdateItem": 2}
            # WHEN a key whose bucket holds 2 and refills one per 10 s is refused for its rate
            slow = create_key(server_store, email="calls-slow@example.com", plan="starter")
            account = server_store.get_account_by_key(hash_key(slow))
            assert account is not None
            change_account(server_store, replace(account, sustained_override=0.1, burst_override=2))
            statuses = [client.post(VALID[0], content=b"x", headers=auth(slow)).status_code for _ in range(3)]
            assert statuses == [200, 200, 429]
            # THEN the refusals after the first cost no call until the token is due
            proxy.reset()
            for _ in range(50):
                assert client.post(VALID[0], content=b"x", headers=auth(slow)).status_code == 429
            assert proxy.snapshot() == []
            # WHEN a quota is used up THEN the refusals after the first cost no call either
            spent = create_key(server_store, email="calls-spent@example.com", plan="pro", quota=1)
            assert client.post(VALID[0], content=b"x", headers=auth(spent)).status_code == 200
            assert client.post(VALID[0], content=b"x", headers=auth(spent)).status_code == 429
            proxy.reset()
            for _ in range(50):
                assert client.post(VALID[0], content=b"x", headers=auth(spent)).json()["error"] == "quota_exceeded"
            assert proxy.snapshot() == []
            # WHEN 100 made-up keys are tried (random strings in the key's shape, and malformed ones)
            # THEN none of them reaches the store
            made_up = [generate_key()[:-6] + "000000" for _ in range(90)] + ["sk_live_" + "x" * n for n in range(10)]
            proxy.reset()
            for fake in made_up:
                assert client.post(VALID[0], content=b"x", headers=auth(fake)).status_code == 401
            assert proxy.snapshot() == []
            # WHEN an unknown real-looking key is tried 100 times THEN only the first asks the store
            unknown = generate_key()
            proxy.reset()
            for _ in range(100):
                assert client.post(VALID[0], content=b"x", headers=auth(unknown)).status_code == 401
            assert len(proxy.snapshot()) == 1


def test_rotation_refuses_the_old_key_at_once_in_every_process(
    start_servers: StartServers, server_store: AccountStore
) -> None:
    # GIVEN two processes that both served the key (so both cache it)
    urls = start_servers(2)
    key = create_key(server_store, email="rotation@example.com", plan="pro")
    for url in urls:
        assert httpx.post(url + VALID[0], content=VALID[1], headers=auth(key)).status_code == 200
    # WHEN it is rotated through the first
    rotated = httpx.post(urls[0] + "/v1/keys/rotate", headers=auth(key))
    assert rotated.status_code == 200
    new = rotated.json()["api_key"]
    # THEN both refuse the old key on its very next use, and take the new one with the usage carried over
    for url in urls:
        refused = httpx.post(url + VALID[0], content=VALID[1], headers=auth(key))
        assert (refused.status_code, refused.json()["error"]) == (401, "unauthorized")
    accepted = httpx.post(urls[1] + VALID[0], content=VALID[1], headers=auth(new))
    assert (accepted.status_code, accepted.headers["X-Quota-Remaining"]) == (200, "9997")
