"""What metering costs in DynamoDB calls, writes and time, and the load model of a 10,000 req/s key.

Measured through the counting proxy (tests.dynamo_proxy) in front of the local endpoint, with the
Meter itself (no HTTP), so the figures are the metering layer's own.

The load model (`make bench-metering`, `python -m bench.metering`) replays one key of a plan of
10,000 requests/s with a burst of 20,000 through 20 simulated instances (each a Meter with its own
cache) on a simulated clock, against the real local endpoint. Hooks on the client (the proxy's
counting, without its HTTP hop) count write units per partition key per simulated second and throttle
past 1,000 (DynamoDB's per-partition limit). It models
the store's partition limit, the number of calls and writes, and item sizes; it leaves out network
latency, DynamoDB's own adaptive capacity and partition splits, the Lambda side of the request, and
concurrency within an instance (requests are replayed one at a time, so GCRA's idle/busy guesses are
those of a steady stream, not of racing threads).
"""

from __future__ import annotations

import secrets
import statistics
import time
import uuid
from collections import Counter
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, replace

from bench.moto_stack import local_endpoint
from bench.scoreboard import Goal, print_scoreboard, record
from fileapi.errors import ApiError
from fileapi.local import dynamo
from fileapi.metering.admin import change_account, create_key
from fileapi.metering.catalog import PlanCatalog
from fileapi.metering.dynamo.connect import dynamo_stores
from fileapi.metering.keys import KEY_PREFIX, generate_key, hash_key
from fileapi.metering.meter import Meter
from fileapi.metering.plans import Plan
from fileapi.storage.table import DynamoTable, create_table
from tests.dynamo_proxy import ClientCounter, DynamoProxy
from tests.metering_doubles import made_up_keys, put_earlier_format_account

SECTION = "metering"
SUCCESSES = 300
REFUSALS = 50
MADE_UP = 100


def bench_metering_costs(endpoint: str) -> None:
    """Calls and writes per warm success, per repeated refusal and per repeated bad key, and the time per success."""
    print("\nMetering cost per request (through a counting proxy, Meter only)")
    with DynamoProxy(endpoint) as proxy:
        table = dynamo.local_table("fileapi-bench-metering", proxy.url)
        stores = dynamo_stores(table)
        meter = Meter(stores.admission)
        key = create_key(stores.accounts, email=f"{uuid.uuid4().hex}@example.com", plan="business", quota=10**9)

        def admit(key: str) -> None:
            meter.admit(f"Bearer {key}", counted=True, request_id=uuid.uuid4().hex)

        admit(key)  # the cold request looks the key up
        proxy.reset()
        times = []
        for _ in range(SUCCESSES):
            started = time.perf_counter()
            admit(key)
            times.append(time.perf_counter() - started)
        calls = proxy.snapshot()
        per_call = len(calls) / SUCCESSES
        per_write = sum(call.write for call in calls) / SUCCESSES
        milliseconds = statistics.median(times) * 1000
        item_bytes = max(call.item_bytes for call in calls)

        slow = create_key(stores.accounts, email=f"{uuid.uuid4().hex}@example.com", plan="starter")
        account = stores.accounts.get_account_by_key(hash_key(slow))
        assert account is not None
        change_account(stores.accounts, replace(account, sustained_override=0.1, burst_override=1))
        rate_refusals = _refusal_calls(proxy, lambda: admit(slow))
        spent = create_key(stores.accounts, email=f"{uuid.uuid4().hex}@example.com", plan="pro", quota=0)
        quota_refusals = _refusal_calls(proxy, lambda: admit(spent))
        unknown = generate_key()
        bad_key = _refusal_calls(proxy, lambda: admit(unknown))
        made_up = _made_up_key_calls(proxy)
    print(f"  per warm success: {per_call:.2f} calls, {per_write:.2f} writes, {milliseconds:.2f} ms (median)")
    print(f"  admission item: at most {item_bytes} bytes (1 write unit per KB)")
    print(f"  per repeated refusal: rate {rate_refusals:.2f}, quota {quota_refusals:.2f}, bad key {bad_key:.2f} calls")
    print(f"  per made-up key ({MADE_UP} of each format, set of earlier-format keys loaded): {made_up:.2f} calls")
    record(SECTION, "DynamoDB calls per warm success", per_call, "calls", Goal(max_value=1.05))
    record(SECTION, "DynamoDB writes per warm success", per_write, "writes", Goal(max_value=1.05))
    record(SECTION, "metering time per warm success (local endpoint)", milliseconds, "ms", Goal())
    record(SECTION, "calls per repeated rate refusal", rate_refusals, "calls", Goal(max_value=0))
    record(SECTION, "calls per repeated quota refusal", quota_refusals, "calls", Goal(max_value=0))
    record(SECTION, "calls per repeated bad key", bad_key, "calls", Goal(max_value=0))
    record(SECTION, "calls per made-up key, either format", made_up, "calls", Goal(max_value=0))


def _made_up_key_calls(proxy: DynamoProxy) -> float:
    """Store calls per made-up key, MADE_UP of each format, on a migrated table (its set of earlier-format keys
    sealed) in a process that has loaded that set (with the one earlier-format key it holds)."""
    table = dynamo.local_table(f"fileapi-bench-legacy-{uuid.uuid4().hex[:8]}", proxy.url)
    stores = dynamo_stores(table)
    legacy = KEY_PREFIX + secrets.token_urlsafe(32)
    put_earlier_format_account(stores.accounts, legacy)
    stores.accounts.seal_legacy_keys()
    meter = Meter(stores.admission)
    meter.admit(f"Bearer {legacy}", counted=True, request_id=uuid.uuid4().hex)
    proxy.reset()
    keys = made_up_keys(MADE_UP, seed=36)
    for key in keys:
        with suppress(ApiError):
            meter.admit(f"Bearer {key}", counted=True, request_id=uuid.uuid4().hex)
    return len(proxy.snapshot()) / len(keys)


def _refusal_calls(proxy: DynamoProxy, request: Callable[[], None]) -> float:
    """Store calls per refusal after the first (which the process learns from)."""
    for _ in range(10):  # until the first refusal
        try:
            request()
        except ApiError:
            break
    proxy.reset()
    for _ in range(REFUSALS):
        with suppress(ApiError):
            request()
    return len(proxy.snapshot()) / REFUSALS


# The load model: one key on a plan of 10,000 requests/s sustained with a burst of 20,000.
MODEL_RATE = 10_000
MODEL_BURST = 20_000
MODEL_INSTANCES = 20  # Lambda instances, each its own process (its own cache of the key)
MODEL_SUSTAINED_SECONDS = 2
PARTITION_WCU_PER_SECOND = 1_000


@dataclass(frozen=True)
class LoadModelResult:
    requests: int
    successes: int
    calls: int
    max_writes_per_item_second: int
    throttled: int
    shards: int
    largest_item_bytes: int

    @property
    def calls_per_success(self) -> float:
        return self.calls / max(1, self.successes)

    def line(self) -> str:
        return (
            f"load model: max {self.max_writes_per_item_second} WCU/s per item, {self.throttled} throttled writes, "
            f"{self.calls_per_success:.2f} calls per success"
        )


def arrivals() -> list[float]:
    """Request instants (simulated seconds): 10,000/s for MODEL_SUSTAINED_SECONDS, an idle spell that refills
    the bucket, then a 20,000-request burst at one instant on top of a further second at 10,000/s: the plan's
    worst second (30,000 writes)."""
    step = 1 / MODEL_RATE
    sustained = [index * step for index in range(MODEL_RATE * MODEL_SUSTAINED_SECONDS)]
    burst_at = MODEL_SUSTAINED_SECONDS + 3.0
    burst = [burst_at] * MODEL_BURST
    after = [burst_at + index * step for index in range(MODEL_RATE)]
    return sorted(sustained + burst + after)


def run_load_model(endpoint: str) -> LoadModelResult:
    """Replay `arrivals()` for one key through MODEL_INSTANCES meters with a simulated clock, against the
    local endpoint behind a proxy that counts writes per partition key per simulated second and throttles
    past PARTITION_WCU_PER_SECOND."""
    now = [0.0]
    base_s = 1_800_000_000.0  # a fixed instant in the middle of a month (2027-01-15)
    client = dynamo.local_client(endpoint)
    counter = ClientCounter(client, clock=lambda: now[0], partition_limit=PARTITION_WCU_PER_SECOND)
    table = DynamoTable("fileapi-load-model", client, sleep=lambda _: None)
    create_table(table.client, table.table_name)
    stores = dynamo_stores(table)
    catalog = PlanCatalog(stores.accounts)
    catalog.create(Plan("load-model", MODEL_RATE, MODEL_BURST, 10**9))
    key = create_key(stores.accounts, email=f"{uuid.uuid4().hex}@example.com", plan="load-model", plans=catalog)
    meters = [  # a replay in model time: a pause between refused writes would only slow the replay down
        Meter(stores.admission, clock=lambda: int((base_s + now[0]) * 1_000_000), sleep=lambda _: None)
        for _ in range(MODEL_INSTANCES)
    ]
    counter.reset()
    instants = arrivals()
    successes = 0
    for index, instant in enumerate(instants):
        now[0] = instant
        with suppress(ApiError):
            meters[index % MODEL_INSTANCES].admit(f"Bearer {key}", counted=True, request_id=uuid.uuid4().hex)
            successes += 1
        if index % 10_000 == 9_999:
            print(f"  ... {index + 1:,} requests replayed", flush=True)
    calls = counter.calls
    per_item_second = Counter((call.pk, int(call.at)) for call in calls if call.write and call.fault is None)
    return LoadModelResult(
        requests=len(instants),
        successes=successes,
        calls=len(calls),
        max_writes_per_item_second=max(per_item_second.values()),
        throttled=sum(1 for call in calls if call.fault == "partition"),
        shards=len({call.pk for call in calls if call.write}),
        largest_item_bytes=max(call.item_bytes for call in calls),
    )


def bench_load_model(endpoint: str) -> LoadModelResult:
    """Print the load model's figures and record them on the scoreboard."""
    print(
        f"\nLoad model: one key at {MODEL_RATE:,} requests/s with a burst of {MODEL_BURST:,}, {MODEL_INSTANCES} "
        f"instances, simulated clock, {PARTITION_WCU_PER_SECOND:,} WCU/s per partition"
    )
    result = run_load_model(endpoint)
    print(
        f"  {result.requests:,} requests, {result.successes:,} admitted, over {result.shards} items "
        f"(largest {result.largest_item_bytes} bytes: 1 WCU per write); {result.calls:,} DynamoDB calls"
    )
    record(
        SECTION, "load model: max WCU/s on one item", result.max_writes_per_item_second, "WCU/s", Goal(max_value=800)
    )
    record(SECTION, "load model: throttled writes", result.throttled, "writes", Goal(max_value=0))
    record(SECTION, "load model: calls per success", result.calls_per_success, "calls", Goal(max_value=1.05))
    return result


def main() -> None:
    """`make bench-metering`: the metering costs and the load model; the last line is the load model's."""
    with local_endpoint() as endpoint:
        bench_metering_costs(endpoint)
        result = bench_load_model(endpoint)
        print_scoreboard()
        print(result.line())


if __name__ == "__main__":
    main()
