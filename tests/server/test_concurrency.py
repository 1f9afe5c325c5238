"""Exactness of the quota and the token bucket under concurrency: 16 threads, two server
processes, one DynamoDB-compatible endpoint (moto's server, one request at a time)."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from fileapi.metering.admin import create_key
from fileapi.metering.catalog import PlanCatalog
from fileapi.metering.dynamo.account_store import DynamoAccountStore
from fileapi.metering.dynamo.connect import dynamo_stores
from fileapi.metering.keys import hash_key
from fileapi.metering.plans import Plan
from fileapi.metering.storage import AccountStore
from fileapi.storage.table import DynamoTable
from tests.helpers import auth
from tests.server.conftest import StartServers

pytestmark = pytest.mark.server

VALID = ("/v1/data/base64-encode", b"hello")
INVALID = ("/v1/data/base64-decode", b"abc$")


def server_table_of(store: AccountStore) -> DynamoTable:
    assert isinstance(store, DynamoAccountStore)
    return store.table


def send(url: str, key: str, request: tuple[str, bytes]) -> tuple[str, int, dict[str, str], dict[str, str] | None]:
    path, body = request
    response = httpx.post(url + path, content=body, headers=auth(key), timeout=30)
    error = response.json() if response.status_code >= 400 else None
    return path, response.status_code, dict(response.headers), error


def workload() -> list[tuple[str, bytes]]:
    """300 valid requests and 30 invalid ones, the invalid ones interleaved among the first 60: at most 30
    valid requests ahead of any of them, and at most 16 more in flight, so they are admitted while quota
    remains (each admission reserves a unit until the request ends; once the quota is used up, the
    documented order answers quota_exceeded before validation)."""
    head: list[tuple[str, bytes]] = []
    for _ in range(30):
        head += [VALID, INVALID]
    return head + [VALID] * (300 - 30)


@pytest.mark.parametrize("plan", ["scale", "fourway"])
def test_quota_is_exact_under_concurrency(start_servers: StartServers, server_store: AccountStore, plan: str) -> None:
    # GIVEN a key with a quota of 100, on one item (scale) or spread over four (a custom plan with 4 shards),
    # and two API server processes
    PlanCatalog(server_store).create(Plan("fourway", 100, 200, 250_000, shards=4))
    urls = start_servers(2)
    key = create_key(server_store, email=f"concurrency-{plan}@example.com", plan=plan, quota=100)
    requests = workload()
    # WHEN 16 threads send the 330 requests, alternating between the servers
    with ThreadPoolExecutor(max_workers=16) as pool:
        results = list(pool.map(lambda item: send(urls[item[0] % 2], key, item[1]), enumerate(requests)))
    valid = [result for result in results if result[0] == VALID[0]]
    invalid = [result for result in results if result[0] == INVALID[0]]
    successes = [result for result in valid if result[1] == 200]
    # THEN exactly 100 succeed, and the items hold exactly 100: none admitted twice, none beyond the quota
    assert len(successes) == 100
    account = server_store.get_account_by_key(hash_key(key))
    assert account is not None
    shards = dynamo_stores(server_table_of(server_store)).admission.read_shards(account.account_id)
    assert len(shards) == (4 if plan == "fourway" else 1)
    assert sum(state.used for state in shards) == 100
    # AND on one item each success saw the quota left after its own reservation (0-99; a unit an invalid
    # request held and gave back can be counted again, so two successes may see the same figure), the last 0;
    # spread over items, the figure is the item's own plus the others as the process last saw them
    remaining = [int(result[2]["x-quota-remaining"]) for result in successes]
    assert set(remaining) <= set(range(100))
    if plan == "scale":
        assert min(remaining) == 0
    # AND every other valid request is refused with quota_exceeded, never anything else
    refused = [result for result in valid if result[1] != 200]
    assert len(refused) == 200
    assert {(result[1], (result[3] or {}).get("error")) for result in refused} == {(429, "quota_exceeded")}
    # AND the invalid ones get 400 and cost nothing
    unexpected = [result[3] for result in invalid if result[1] != 400]
    assert [(result[1], (result[3] or {}).get("error")) for result in invalid] == [(400, "invalid_input")] * 30, (
        unexpected
    )
    assert all(result[3] is not None and result[3]["error"] == "invalid_input" for result in invalid)
    usage = httpx.get(urls[0] + "/v1/usage", headers=auth(key)).json()
    assert (usage["used_this_month"], usage["remaining"]) == (100, 0)


def test_token_bucket_capacity_and_refill(start_servers: StartServers, server_store: AccountStore) -> None:
    # GIVEN a starter key: bucket of 5, refilled at 2 per second
    urls = start_servers(2)
    key = create_key(server_store, email="burst@example.com", plan="starter")
    # WHEN 12 requests arrive at once from 12 threads
    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=12) as pool:
        statuses = list(pool.map(lambda index: send(urls[index % 2], key, VALID)[1], range(12)))
    elapsed = time.monotonic() - started
    # THEN the burst capacity (5) is admitted, plus at most what refilled meanwhile; the rest are 429
    admitted = statuses.count(200)
    assert 5 <= admitted <= 5 + int(elapsed * 2) + 1, statuses
    assert statuses.count(429) == 12 - admitted, statuses  # (a 503's message is in the server's output)
    # WHEN the bucket has been drained and we wait 1.5 s
    while send(urls[0], key, VALID)[1] == 200:
        pass
    time.sleep(1.5)
    # THEN about 3 tokens have come back (2 per second), and not the whole burst
    started = time.monotonic()
    refilled = 0
    while send(urls[1], key, VALID)[1] == 200:
        refilled += 1
    elapsed = time.monotonic() - started
    assert 3 <= refilled <= 3 + int(elapsed * 2) + 1  # not the whole burst: what 1.5 s and the loop's time refilled
