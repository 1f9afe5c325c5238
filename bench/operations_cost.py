"""Cost per million operations and per GB moved, at AWS list prices (bench.cost.Prices), from calls counted on
moto's server and the throughput bench.operations measured.

- **Per operation** (what does not grow with the file): one operation as a client runs it, counted: an upload made
  (POST /v1/uploads) and its file POSTed to the presigned form, POST /v1/pdf/split?upload= (202), the executor's
  run from the queue, GET /v1/operations/{id} twice (running, then succeeded) and each result downloaded. Every
  call the service's S3, SQS and DynamoDB clients make is seen through botocore's event hooks (DynamoDB's units
  modelled as bench.cost models them); the client's own S3 requests (the form POST, the downloads) are counted
  as it sends them. API requests are the four the client sends; Lambda invocations are those and the Operations
  function's one, each priced at its function's MemorySize for the wall time it took here (in-process, a small
  file: an estimate of the order).
- **Per GB moved** (what grows with the file): the Operations function's duration at the split throughput
  measured on the 120 MB scan (its memory and its ephemeral storage beyond the free 512 MB), the input and its
  results kept in S3 for the retention (template.yaml's default), and the results sent out to the internet once
  (data transfer in, and S3 to Lambda in one region, are free).

- **An operation's own time** (what #33 calls its own cost: everything but the conversion and the transfers): the
  accepting request (POST -> 202: admission, the record, the message queued) plus the Operations function's run
  less the work the record reports (`ranSeconds`: the inputs downloaded, the conversion, the results uploaded), so
  the receive, the run's claim, the record's updates, the settlement and the message's deletion; the median of
  OWN_TIME_RUNS operations, in-process on moto's server (its round trips are local, not DynamoDB's or SQS's).
  Not in it: the upload, the polls and the downloads (the client's choice of how often and when).

Left out: SQS's empty receives by the Lambda poller, webhook deliveries, CloudWatch Logs, KMS requests, free
tiers and volume discounts.

    python -m bench.operations_cost      # the lines and rows alone (per GB moved: n/a without bench.operations)
"""

from __future__ import annotations

import dataclasses
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

import httpx

from bench.cost import PRICES, CallCounter, Prices
from bench.moto_stack import local_api, local_endpoint, moto_stack
from bench.scoreboard import Goal, record
from bench.sizing import memory_sizes
from fileapi.local.dynamo import local_client
from fileapi.local.template import load_template

# S3's request classes: the first is priced as PUT (PUT, COPY, POST, LIST), DELETE is free, the rest as GET.
S3_PUT_CLASS = frozenset({"PutObject", "CopyObject", "CreateMultipartUpload", "UploadPart", "CompleteMultipartUpload",
                          "ListObjectsV2", "ListObjects", "PostObject"})  # fmt: skip
S3_FREE = frozenset({"DeleteObject", "DeleteObjects", "AbortMultipartUpload"})
DAYS_PER_MONTH = 30
GIB = 1024**3
OWN_TIME_RUNS = 5  # operations timed for the own time's median (the last is the counted one)
NO_GOAL = Goal()  # reported figures: #33 asks for them to be seen, and sets no bound


class OwnTime(NamedTuple):
    """Seconds of one operation: the accepting request (POST -> 202), the Operations function's run, the work inside
    it (the record's ranSeconds: inputs downloaded, the conversion, results uploaded), and one poll (GET)."""

    accept: float = 0.0
    run: float = 0.0
    work: float = 0.0
    poll: float = 0.0

    @property
    def own(self) -> float:
        """Everything but the conversion and the transfers: the accepting request and the run less its work."""
        return self.accept + self.run - self.work


@dataclass
class OperationCalls:
    """What one operation cost in calls: per service, operation name -> count; DynamoDB's units; Lambda GB-s."""

    s3: Counter[str] = dataclasses.field(default_factory=Counter)
    sqs: Counter[str] = dataclasses.field(default_factory=Counter)
    read_units: float = 0.0
    write_units: float = 0.0
    api_requests: int = 0
    invocations: int = 0
    gb_seconds: float = 0.0
    own: OwnTime = dataclasses.field(default_factory=OwnTime)

    def dollars(self, prices: Prices = PRICES) -> dict[str, float]:
        """Per million operations, by service."""
        put_class = sum(count for name, count in self.s3.items() if name in S3_PUT_CLASS)
        get_class = sum(count for name, count in self.s3.items() if name not in S3_PUT_CLASS | S3_FREE)
        return {
            "API": self.api_requests * prices.api_per_million,
            "Lambda": self.invocations * prices.lambda_per_million
            + self.gb_seconds * prices.lambda_per_gb_second * 1e6,
            "SQS": sum(self.sqs.values()) * prices.sqs_per_million,
            "S3": put_class * prices.s3_put_per_thousand * 1000 + get_class * prices.s3_get_per_thousand * 1000,
            "DynamoDB": self.write_units * prices.write_unit_per_million
            + self.read_units * prices.read_unit_per_million,
        }


def _counting(client: Any, service: str, counts: Counter[str]) -> None:
    def seen(model: Any, **_: Any) -> None:
        counts[model.name] += 1

    client.meta.events.register(f"after-call.{service}", seen)


def count_operation(endpoint: str) -> OperationCalls:
    """One split operation of a small PDF, as a client runs it, on moto's server at `endpoint`: its calls (one
    run counted), and its own time (the median of OWN_TIME_RUNS runs)."""
    counted = OperationCalls()
    with moto_stack(endpoint, name="opcost") as stack:
        units = CallCounter(stack.table.client, local_client(endpoint))
        _counting(stack.services.uploads.s3, "s3", counted.s3)
        _counting(stack.services.operations.sqs, "sqs", counted.sqs)
        key = stack.new_key("opcost")
        consumer = stack.consumer()
        with local_api() as api:
            _run_one(api, consumer, key, OperationCalls())  # warm: conversion workers started, routes imported
            timed = [_run_one(api, consumer, key, OperationCalls()) for _ in range(OWN_TIME_RUNS - 1)]
            counted.s3.clear()
            counted.sqs.clear()
            with units.counting() as table_calls:
                timed.append(_run_one(api, consumer, key, counted))
        counted.read_units = sum(call.read_units for call in table_calls)
        counted.write_units = sum(call.write_units for call in table_calls)
    counted.own = sorted(timed, key=lambda run: run.own)[len(timed) // 2]  # the median run
    return counted


def _run_one(api: Any, consumer: Any, key: str, calls: OperationCalls) -> OwnTime:
    """One split operation through `api` and the executor behind `consumer`; the client's requests and the
    functions' GB-seconds added to `calls`, and its own time (set in `calls` and returned).

    :raises RuntimeError: the operation did not succeed.
    """
    from tests.operations.helpers import pdf_with_pages

    memory = memory_sizes()
    headers = {"Authorization": f"Bearer {key}"}
    document = pdf_with_pages(2)
    seconds: dict[str, float] = {}

    def timed(function: str, call: Callable[[], Any], name: str = "") -> Any:
        started = time.perf_counter()
        answer = call()
        elapsed = time.perf_counter() - started
        calls.gb_seconds += memory[function] / 1024 * elapsed
        calls.invocations += 1
        seconds[name] = elapsed
        return answer

    def request(function: str, call: Callable[[], httpx.Response], name: str = "") -> Any:
        calls.api_requests += 1
        return timed(function, call, name).json()

    announced = {"filename": "scan.pdf", "contentType": "application/pdf", "size": len(document)}
    made = request("FilesFunction", lambda: api.post("/v1/uploads", headers=headers, json=announced))
    httpx.post(made["url"], data=made["fields"], files={"file": ("scan.pdf", document, "application/pdf")})
    calls.s3["PostObject"] += 1  # the client's own
    operation = request(
        "PdfFunction", lambda: api.post(f"/v1/pdf/split?upload={made['id']}&ranges=1,2", headers=headers), "accept"
    )
    path = f"/v1/operations/{operation['id']}"
    request("FilesFunction", lambda: api.get(path, headers=headers), "poll")
    timed("OperationsFunction", consumer.poll_once, "run")
    ended = request("FilesFunction", lambda: api.get(path, headers=headers))
    if ended["status"] != "succeeded":
        raise RuntimeError(f"the counted operation ended {ended['status']}: {ended.get('error')}")
    for result in ended["results"]:
        httpx.get(result["url"]).raise_for_status()
        calls.s3["GetObject"] += 1  # the client's own
    calls.own = OwnTime(seconds["accept"], seconds["run"], float(ended["ranSeconds"]), seconds["poll"])
    return calls.own


def per_gb_dollars(mb_per_second: float, prices: Prices = PRICES) -> dict[str, float]:
    """Dollars per GB (GiB) of input moved through an operation whose work runs at `mb_per_second` (MiB/s), its
    results about the input's size."""
    template = load_template()
    parameters = template["Parameters"]
    memory_gb = int(parameters["OperationsMemory"]["Default"]) / 1024
    extra_storage_gb = (int(parameters["OperationsEphemeralStorage"]["Default"]) - 512) / 1024
    retention_days = int(parameters["FilesRetentionDays"]["Default"])
    seconds = 1024 / mb_per_second
    return {
        "Lambda duration": seconds * memory_gb * prices.lambda_per_gb_second,
        "/tmp": seconds * extra_storage_gb * prices.ephemeral_per_gb_second,
        "S3 storage": 2 * retention_days / DAYS_PER_MONTH * prices.s3_gb_month,  # the input and its results
        "transfer out": prices.transfer_out_per_gb,
    }


def operation_cost_lines(endpoint: str, mb_per_second: float | None) -> list[str]:
    """The cost table's lines for operations: per million operations, by service; per GB moved, by part."""
    calls = count_operation(endpoint)
    by_service = calls.dollars()
    counted = (
        f"{calls.api_requests} API requests, {calls.invocations} invocations ({calls.gb_seconds:.3f} GB-s), "
        f"{sum(calls.sqs.values())} SQS, {sum(calls.s3.values())} S3 requests "
        f"({', '.join(f'{name} {count}' for name, count in sorted(calls.s3.items()))}), "
        f"{calls.read_units:g} RRU + {calls.write_units:g} WRU"
    )
    own = calls.own
    per_million = sum(by_service.values())
    lines = [
        "  operations (a split: upload, 202, the executor's run, 2 polls, 2 downloads; counted on moto): " + counted,
        "    per million operations: "
        + ", ".join(f"{name} ${dollars:,.2f}" for name, dollars in by_service.items())
        + f" = ${per_million:,.2f}",
        f"    an operation's own time (median of {OWN_TIME_RUNS}): {own.own * 1000:.0f} ms = the 202 "
        f"{own.accept * 1000:.0f} ms + the Operations function's run {own.run * 1000:.0f} ms less its work "
        f"(ranSeconds: download, conversion, upload) {own.work * 1000:.0f} ms; not in it: the upload, the polls "
        f"({own.poll * 1000:.0f} ms each), the downloads",
    ]
    record("Operations", "an operation's own time (202 + run less its work), 2-page split", own.own * 1000, "ms",
           NO_GOAL, anchor=(own.accept + own.run) * 1000, anchor_name="202 + the whole run")  # fmt: skip
    record("Cost", "per million operations (2-page split, as counted)", per_million, "$", NO_GOAL)
    if mb_per_second is None:
        lines.append("    per GB moved: n/a (bench.operations did not run)")
        return lines
    per_gb = per_gb_dollars(mb_per_second)
    lines.append(
        f"    per GB moved (split at {mb_per_second:.0f} MB/s): "
        + ", ".join(f"{name} ${dollars:.4f}" for name, dollars in per_gb.items())
        + f" = ${sum(per_gb.values()):.4f} per GB"
    )
    return lines


def main() -> None:
    from bench.scoreboard import print_scoreboard

    with local_endpoint() as endpoint:
        for line in operation_cost_lines(endpoint, None):
            print(line)
    print_scoreboard()


if __name__ == "__main__":
    main()
