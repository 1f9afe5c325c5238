"""Cost per million requests per function, and the bill bound of each stage, at AWS list prices.

What is measured, counted and modelled:

- **Lambda duration**: the sizing bench's p50 of each function's typical request through its Lambda
  handler (bench/sizing.py, measured in the same `make bench`), rounded up to the whole millisecond as
  Lambda bills, times the function's MemorySize read from template.yaml. The p50 is measured
  in-process on this machine with an in-memory DynamoDB mock standing in for DynamoDB's round trips;
  Lambda's arm64 CPU and the real network differ, so it is an estimate of the order, not an invoice.
- **Store calls**: counted, not assumed. The same typical request goes through the function's own
  app with the real Meter on the local DynamoDB endpoint (moto's server), warm (each of the key's shards seen
  once, as by an instance that has served it a while), 20 times in a row
  (the average per request is priced: a request may take a second try when a concurrent change or
  the bucket's state refuses its first write); every call the DynamoDB client makes is seen through
  botocore's event hooks. So when metering changes, the table changes by itself.
- **DynamoDB units** are modelled from item sizes (the endpoint does not report real consumed
  capacity), with DynamoDB's published on-demand rules: an item's size is the UTF-8 length of its
  attribute names and values (numbers: 1 byte per 2 significant digits + 1); a write costs 1 write
  unit per started KB of the larger of the item before and after it (a refused conditional write
  still costs the item's size), at least 1; a strongly consistent read costs 1 read unit per started
  4 KB (an eventually consistent read half that), at least 1 even for a missing item; transactional
  reads and writes cost twice as much; a Scan or Query is modelled from the items it returns.
- **API Gateway**: one request per started 512 KB of the request body (HTTP API meters requests
  in 512 KB increments).
- Left out: data transfer out, CloudWatch Logs ingestion and storage, X-Ray traces, KMS requests,
  free tiers and volume discounts.

    python -m bench.cost     # the sizing bench, then the cost table and the stage bounds
"""

from __future__ import annotations

import math
import secrets
import shlex
import statistics
import tomllib
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from bench.moto_stack import local_endpoint
from bench.scoreboard import Goal, record
from bench.sizing import WORKLOADS, bench_sizing, memory_sizes
from bench.timing import median_seconds
from fileapi.local.template import PROJECT_ROOT, load_functions, load_template
from fileapi.metering.plans import CONTRACT_PLANS

SAMCONFIG_PATH = PROJECT_ROOT / "samconfig.toml"
STAGES = ("dev", "staging", "prod")
PLAN = CONTRACT_PLANS["business"]  # the key the measured requests use


@dataclass(frozen=True)
class Prices:
    """AWS list prices, us-east-1 (the only place they are written)."""

    api_per_million: float = 1.00  # HTTP API, first 300 M requests a month
    lambda_per_million: float = 0.20  # Lambda requests
    lambda_per_gb_second: float = 0.0000133334  # Lambda duration, arm64
    write_unit_per_million: float = 0.625  # DynamoDB on-demand write request units
    read_unit_per_million: float = 0.125  # DynamoDB on-demand read request units
    api_increment_bytes: int = 512 * 1024  # HTTP API meters requests in 512 KB increments
    account_api_rate: int = 10_000  # default API Gateway requests per second per account and region
    sqs_per_million: float = 0.40  # SQS standard queue requests
    s3_put_per_thousand: float = 0.005  # S3 Standard PUT, COPY, POST, LIST requests
    s3_get_per_thousand: float = 0.0004  # S3 Standard GET, HEAD and other requests
    s3_gb_month: float = 0.023  # S3 Standard storage, first 50 TB
    transfer_out_per_gb: float = 0.09  # data transfer out to the internet, first 10 TB
    ephemeral_per_gb_second: float = 0.0000000309  # Lambda ephemeral storage beyond the free 512 MB


PRICES = Prices()
LIGHT_FUNCTIONS = ("DataFunction", "TextFunction", "CodesFunction")
LIGHT_GOAL = Goal(max_value=2.00)  # dollars per million light requests
# Reserved concurrency a stage needs per function: its sold peak rate x the typical p50 x this margin
# (the p50 is of a typical request, measured without DynamoDB's network round trips).
CONCURRENCY_MARGIN = 2
MIN_CONCURRENCY = 5  # a few parallel callers always get through, whatever the arithmetic gives
HOURS_PER_MONTH = 730
COUNTED_REQUESTS = 20  # warm requests whose store calls are averaged


# DynamoDB's item size and capacity rules


def attribute_value_size(value: Mapping[str, Any]) -> int:
    """Bytes DynamoDB counts for one attribute value in its wire form ({"S": ...}, {"N": ...}, ...)."""
    ((kind, data),) = value.items()
    if kind == "S":
        return len(str(data).encode())
    if kind == "N":
        return number_size(str(data))
    if kind == "B":
        return len(data)
    if kind in ("BOOL", "NULL"):
        return 1
    if kind == "SS":
        return sum(len(str(item).encode()) for item in data)
    if kind == "NS":
        return sum(number_size(str(item)) for item in data)
    if kind == "BS":
        return sum(len(item) for item in data)
    if kind == "L":
        return 3 + sum(1 + attribute_value_size(item) for item in data)
    if kind == "M":
        return 3 + sum(len(name.encode()) + 1 + attribute_value_size(item) for name, item in data.items())
    raise ValueError(f"unknown DynamoDB attribute type {kind!r}")


def number_size(text: str) -> int:
    """1 byte per two significant digits, plus 1 (leading and trailing zeros are not stored)."""
    digits = Decimal(text).normalize().as_tuple().digits
    significant = len(digits) if any(digits) else 1
    return math.ceil(significant / 2) + 1


def item_size(item: Mapping[str, Any] | None) -> int:
    """Bytes of an item: attribute names and values (0 for no item)."""
    if not item:
        return 0
    return sum(len(name.encode()) + attribute_value_size(value) for name, value in item.items())


def write_units(size: int) -> int:
    """Write request units of one write of an item of `size` bytes (1 per started KB, at least 1)."""
    return max(1, math.ceil(size / 1024))


def read_units(size: int, *, consistent: bool) -> float:
    """Read request units of one read of `size` bytes (1 per started 4 KB strongly consistent, half
    that eventually consistent; at least one step even when the item is missing)."""
    steps = max(1, math.ceil(size / 4096))
    return float(steps) if consistent else steps / 2


# Counting the calls of a DynamoDB client


@dataclass(frozen=True)
class StoreCall:
    """One call the client made, with the units it is modelled to cost."""

    operation: str
    read_units: float = 0.0
    write_units: float = 0.0


@dataclass
class CallCounter:
    """Counts the calls of `client` (botocore event hooks) and models their units.

    `inspector` is a second client on the same endpoint, not counted, that reads the items a write
    touches before and after it (the larger image is what a write is billed on).
    """

    client: Any
    inspector: Any
    calls: list[StoreCall] = field(default_factory=list)
    active: bool = False

    def __post_init__(self) -> None:
        key_names: dict[str, tuple[str, ...]] = {}
        self._key_names = key_names
        events = self.client.meta.events
        events.register("before-parameter-build.dynamodb.*", self._before)
        events.register("after-call.dynamodb.*", self._after)
        events.register("after-call-error.dynamodb.*", self._after_lost)

    @contextmanager
    def counting(self) -> Iterator[list[StoreCall]]:
        """Count the calls made inside the block; yields the list they are added to."""
        self.calls = []
        self.active = True
        try:
            yield self.calls
        finally:
            self.active = False

    def _before(self, params: dict[str, Any], model: Any, context: dict[str, Any], **_: Any) -> None:
        if not self.active:
            return
        targets = list(self._write_targets(model.name, params))
        context["cost_writes"] = [(table, key, item_size(self._read(table, key))) for table, key in targets]
        context["cost_params"] = params

    def _after(self, parsed: dict[str, Any], model: Any, context: dict[str, Any], **_: Any) -> None:
        if not self.active or "cost_params" not in context:
            return
        name, params = model.name, context["cost_params"]
        self.calls.append(
            StoreCall(name, read_units=self._reads(name, params, parsed), write_units=self._writes(name, context))
        )

    def _after_lost(self, event_name: str, context: dict[str, Any], **_: Any) -> None:
        """A call whose reply never came (a timeout, a dropped connection) is billed all the same when it reached
        the table: its writes at the larger image, as for an answered call, and a read at its smallest price."""
        if not self.active or "cost_params" not in context:
            return
        name, params = event_name.rsplit(".", 1)[1], context["cost_params"]
        self.calls.append(
            StoreCall(name, read_units=self._reads(name, params, {}), write_units=self._writes(name, context))
        )

    def _writes(self, name: str, context: dict[str, Any]) -> float:
        """Write units of the call: each item it writes at the larger of its images before and after."""
        factor = 2 if name.startswith("Transact") else 1
        return sum(
            factor * write_units(max(before, item_size(self._read(table, key))))
            for table, key, before in context["cost_writes"]
        )

    def _reads(self, name: str, params: dict[str, Any], parsed: dict[str, Any]) -> float:
        consistent = bool(params.get("ConsistentRead", False))
        if name == "GetItem":
            return read_units(item_size(parsed.get("Item")), consistent=consistent)
        if name in ("Query", "Scan"):
            return read_units(sum(item_size(item) for item in parsed.get("Items", [])), consistent=consistent)
        if name == "TransactGetItems":
            return sum(
                2 * read_units(item_size(got.get("Item")), consistent=True) for got in parsed.get("Responses", [])
            )
        if name == "BatchGetItem":
            return sum(
                read_units(item_size(item), consistent=bool(params["RequestItems"][table].get("ConsistentRead")))
                for table, items in parsed.get("Responses", {}).items()
                for item in items
            )
        return 0.0

    def _write_targets(self, name: str, params: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
        """(table, key) of every item the call writes."""
        if name in ("PutItem", "UpdateItem", "DeleteItem"):
            yield params["TableName"], params.get("Key") or self._key_of(params["TableName"], params["Item"])
        elif name == "TransactWriteItems":
            for entry in params["TransactItems"]:
                ((_, action),) = entry.items()
                table = action["TableName"]
                yield table, action.get("Key") or self._key_of(table, action["Item"])
        elif name == "BatchWriteItem":
            for table, requests in params["RequestItems"].items():
                for request in requests:
                    if "PutRequest" in request:
                        yield table, self._key_of(table, request["PutRequest"]["Item"])
                    else:
                        yield table, request["DeleteRequest"]["Key"]

    def _key_of(self, table: str, item: Mapping[str, Any]) -> dict[str, Any]:
        if table not in self._key_names:
            schema = self.inspector.describe_table(TableName=table)["Table"]["KeySchema"]
            self._key_names[table] = tuple(part["AttributeName"] for part in schema)
        return {name: item[name] for name in self._key_names[table]}

    def _read(self, table: str, key: dict[str, Any]) -> dict[str, Any] | None:
        item: dict[str, Any] | None = self.inspector.get_item(TableName=table, Key=key, ConsistentRead=True).get("Item")
        return item


# The cost of one request


@dataclass(frozen=True)
class RequestCost:
    """What one request of `label` to `function` costs, from its measured duration and counted calls."""

    function: str
    label: str
    memory_mb: int
    p50_ms: float
    body_bytes: int
    calls: tuple[StoreCall, ...]
    requests: int = 1  # how many requests made `calls`
    prices: Prices = PRICES

    @property
    def billed_seconds(self) -> float:
        return math.ceil(self.p50_ms) / 1000

    @property
    def gb_seconds(self) -> float:
        return self.memory_mb / 1024 * self.billed_seconds

    @property
    def api_requests(self) -> int:
        return max(1, math.ceil(self.body_bytes / self.prices.api_increment_bytes))

    @property
    def read_units(self) -> float:
        """Per request, like every figure here."""
        return sum(call.read_units for call in self.calls) / self.requests

    @property
    def write_units(self) -> float:
        return sum(call.write_units for call in self.calls) / self.requests

    @property
    def calls_per_request(self) -> float:
        return len(self.calls) / self.requests

    @property
    def api_dollars(self) -> float:
        """Per million requests, like every dollar figure here."""
        return self.api_requests * self.prices.api_per_million

    @property
    def lambda_dollars(self) -> float:
        return self.prices.lambda_per_million + self.gb_seconds * self.prices.lambda_per_gb_second * 1e6

    @property
    def dynamodb_dollars(self) -> float:
        return (
            self.write_units * self.prices.write_unit_per_million + self.read_units * self.prices.read_unit_per_million
        )

    @property
    def total_dollars(self) -> float:
        return self.api_dollars + self.lambda_dollars + self.dynamodb_dollars


def cost_lines(costs: list[RequestCost]) -> list[str]:
    """The table: units per request, dollars per million requests."""
    lines = [
        f"  {'function':<9} {'request':<30} {'MB':>5} {'p50':>7} {'GB-s/req':>9} {'API':>4} {'calls':>5} "
        f"{'RRU':>5} {'WRU':>5} {'API $':>6} {'Lambda $':>9} {'DynamoDB $':>11} {'$/M':>6} {'DDB %':>6}"
    ]
    for cost in costs:
        share = 100 * cost.dynamodb_dollars / cost.total_dollars
        lines.append(
            f"  {cost.function.removesuffix('Function'):<9} {cost.label:<30} {cost.memory_mb:>5} "
            f"{cost.p50_ms:5.1f}ms {cost.gb_seconds:9.5f} {cost.api_requests:>4} {cost.calls_per_request:>5.3g} "
            f"{cost.read_units:>5.3g} {cost.write_units:>5.3g} {cost.api_dollars:6.2f} {cost.lambda_dollars:9.2f} "
            f"{cost.dynamodb_dollars:11.2f} {cost.total_dollars:6.2f} {share:5.0f}%"
        )
    return lines


# The stage settings (samconfig.toml over template.yaml's defaults) and the bill they bound


def stage_parameters(stage: str) -> dict[str, str]:
    """The template's parameter values for `stage`: its defaults, overridden by samconfig.toml."""
    template = load_template()
    values = {name: str(spec.get("Default", "")) for name, spec in template["Parameters"].items()}
    config = tomllib.loads(SAMCONFIG_PATH.read_text(encoding="utf-8"))
    overrides = config[stage]["deploy"]["parameters"].get("parameter_overrides", "")
    words = overrides if isinstance(overrides, list) else shlex.split(overrides)
    for word in words:
        name, _, value = str(word).partition("=")
        values[name] = value
    return values


def concurrency_parameters() -> dict[str, str]:
    """Per function: the template parameter its reserved concurrency comes from (`!Ref` read as the name)."""
    return {
        name: str(resource["Properties"]["ReservedConcurrentExecutions"])
        for name, resource in load_template()["Resources"].items()
        if resource.get("Type") == "AWS::Serverless::Function"
    }


@dataclass(frozen=True)
class StageBound:
    """The most a stage can spend per hour at its caps."""

    stage: str
    rate: int
    burst: int
    concurrency: dict[str, int]
    needed: dict[str, int]
    lambda_duration_dollars: float
    request_rate: int
    request_dollars: float

    @property
    def hourly(self) -> float:
        return self.lambda_duration_dollars + self.request_dollars


def stage_bound(stage: str, costs: list[RequestCost], prices: Prices = PRICES) -> StageBound:
    """The caps of `stage` and the hourly bill at them.

    Lambda duration: every function busy at its reserved concurrency for the whole hour. Requests:
    each route at the stage's throttle rate, at most the account's regional API rate, each costing
    the API and Lambda request charges and the dearest store calls measured.
    """
    values = stage_parameters(stage)
    rate, burst = int(values["ApiThrottleRate"]), int(values["ApiThrottleBurst"])
    by_function = {cost.function: cost for cost in costs}
    concurrency: dict[str, int] = {}
    needed: dict[str, int] = {}
    duration = 0.0
    memory = memory_sizes()
    for name, parameter in concurrency_parameters().items():
        concurrency[name] = int(values[parameter])
        duration += concurrency[name] * memory[name] / 1024 * 3600 * prices.lambda_per_gb_second
        if name in by_function:
            needed[name] = max(MIN_CONCURRENCY, math.ceil(rate * by_function[name].p50_ms / 1000 * CONCURRENCY_MARGIN))
    routes = sum(len(spec.routes) for spec in load_functions())
    request_rate = min(routes * rate, prices.account_api_rate)
    per_request = (
        prices.api_per_million + prices.lambda_per_million + max((cost.dynamodb_dollars for cost in costs), default=0)
    ) / 1e6
    return StageBound(
        stage, rate, burst, concurrency, needed, duration, request_rate, request_rate * 3600 * per_request
    )


def bound_lines(bounds: list[StageBound]) -> list[str]:
    """Per stage: each function's reserved concurrency against what the stage's rate needs, and the bill."""
    lines: list[str] = []
    for bound in bounds:
        lines.append(
            f"  {bound.stage}: ApiThrottleRate {bound.rate}/s per route (burst {bound.burst}); "
            f"at most ${bound.hourly:,.2f} an hour (${bound.hourly * HOURS_PER_MONTH:,.0f} a month): "
            f"Lambda duration ${bound.lambda_duration_dollars:,.2f} + {bound.request_rate:,} req/s "
            f"${bound.request_dollars:,.2f}"
        )
        cells = []
        for name, reserved in bound.concurrency.items():
            need = bound.needed.get(name)
            mark = "" if need is None or reserved >= need else " (LOW)"
            cells.append(f"{name.removesuffix('Function')} {reserved}" + (f"/{need}{mark}" if need else ""))
        lines.append("    reserved/needed: " + ", ".join(cells))
    return lines


# The bench


def made_up_key() -> str:
    """A string in a key's shape (prefix, length, alphabet) that no account holds: what a guesser sends."""
    from fileapi.metering.keys import BASE62, CHECKSUM_CHARS, KEY_PREFIX, RANDOM_CHARS

    return KEY_PREFIX + "".join(secrets.choice(BASE62) for _ in range(RANDOM_CHARS + CHECKSUM_CHARS))


def measure_request_cost(
    endpoint: str,
    function: str,
    memory_mb: int,
    *,
    p50_ms: float | None = None,
    bad_key: bool = False,
    table: str = "fileapi-cost",
) -> RequestCost:
    """Send the function's typical sizing request through its app, with the real Meter on the local
    endpoint, counting the store's calls on `COUNTED_REQUESTS` requests after a warm-up (`bad_key`: with
    a made-up key instead). Without `p50_ms`, the p50 of 15 more requests here is the duration priced."""
    from fastapi.testclient import TestClient

    from fileapi.local.dynamo import local_client, local_table
    from fileapi.local.template import load_function_module
    from fileapi.metering.admin import create_key
    from fileapi.metering.dynamo.connect import dynamo_stores
    from fileapi.services import use_stores

    store = local_table(table, endpoint)
    counter = CallCounter(store.client, local_client(endpoint))
    stores = dynamo_stores(store)
    email = f"cost-{secrets.token_hex(6)}@example.com"
    key = made_up_key() if bad_key else create_key(stores.accounts, email=email, plan=PLAN.name)
    use_stores(stores)
    spec = next(spec for spec in load_functions() if spec.logical_id == function)
    request = WORKLOADS[function][0]
    body = request.build()
    headers = {"Authorization": f"Bearer {key}", "Content-Type": request.content_type}
    try:
        with TestClient(load_function_module(spec).app, raise_server_exceptions=False) as api:

            def send() -> int:
                response = api.request(request.method, request.path, params=request.params, content=body or None,
                                       headers=headers)  # fmt: skip
                return response.status_code

            # Warm-up: a warm instance, as most requests meet it (the key looked up, each of its shards' items
            # seen once: a process's first write to a shard it has not seen may be refused once, and learns it).
            for _ in range(1 if bad_key else PLAN.shard_count):
                send()
            with counter.counting() as calls:
                statuses = {send() for _ in range(COUNTED_REQUESTS)}
            if p50_ms is None:
                p50_ms = 1000 * median_seconds(send, repeat=15)
    finally:
        use_stores(None)
    expected = 401 if bad_key else 200
    if statuses != {expected}:
        raise RuntimeError(f"{function} {request.label}: statuses {statuses}, expected {expected}")
    label = "made-up key (401)" if bad_key else request.label
    return RequestCost(function, label, memory_mb, p50_ms, len(body), tuple(calls), COUNTED_REQUESTS)


def bench_cost(
    endpoint: str, sizing: Mapping[str, Mapping[str, Any]], *, operation_lines: Sequence[str] = ()
) -> list[RequestCost]:
    """Print the cost table (from the sizing bench's p50s, then `operation_lines`: operations' costs, from
    bench.operations_cost) and the stage bounds; record the goal rows."""
    memory = memory_sizes()
    costs = [
        measure_request_cost(endpoint, name, memory[name], p50_ms=float(row["p50_ms"])) for name, row in sizing.items()
    ]
    costs.append(measure_request_cost(endpoint, "DataFunction", memory["DataFunction"], bad_key=True))
    print(
        f"\nCost per million requests at list price (us-east-1: HTTP API ${PRICES.api_per_million:.2f}/M, Lambda arm64 "
        f"${PRICES.lambda_per_gb_second:.10f}/GB-s + ${PRICES.lambda_per_million:.2f}/M, DynamoDB "
        f"${PRICES.write_unit_per_million}/M write units, ${PRICES.read_unit_per_million}/M read units)"
    )
    print(f"  p50 from the sizing bench (the 401's measured here); store calls averaged over {COUNTED_REQUESTS} warm")
    print("  metered requests; units modelled from item sizes (bench/cost.py says how)")
    for line in cost_lines(costs):
        print(line)
    light = [cost for cost in costs if cost.function in LIGHT_FUNCTIONS and "401" not in cost.label]
    for cost in light:
        record("Cost", f"{cost.function.removesuffix('Function')} per million ({cost.label})", cost.total_dollars,
               "$", LIGHT_GOAL)  # fmt: skip
    median = statistics.median(cost.total_dollars for cost in light)
    print(f"  light requests (Data/Text/Codes): median ${median:.2f} per million (goal <= ${LIGHT_GOAL.max_value:.2f})")
    for line in operation_lines:
        print(line)
    served = [cost for cost in costs if "401" not in cost.label]
    print("\nBill bound per stage (samconfig.toml): reserved concurrency against rate x p50 x "
          f"{CONCURRENCY_MARGIN} (at least {MIN_CONCURRENCY}), and the most an hour can cost at the caps")  # fmt: skip
    for line in bound_lines([stage_bound(stage, served) for stage in STAGES]):
        print(line)
    return costs


def main() -> None:
    sizing = bench_sizing()
    with local_endpoint() as endpoint:
        bench_cost(endpoint, sizing)


if __name__ == "__main__":
    main()
