"""The cost model of bench/cost.py: DynamoDB's item-size and capacity rules, dollars per million, stage bounds."""

from __future__ import annotations

import math

import pytest

from bench.cost import (
    PRICES,
    RequestCost,
    StoreCall,
    item_size,
    number_size,
    read_units,
    stage_bound,
    stage_parameters,
    write_units,
)
from bench.sizing import memory_sizes
from fileapi.local.template import load_functions


@pytest.mark.parametrize(
    ("text", "size"),
    [
        ("0", 2),
        ("7", 2),
        ("12", 2),
        ("123", 3),
        ("100000", 2),
        ("-1.5", 2),
        ("1700000000000000", 2),
        ("1763000000123456", 9),
        ("0.00012", 2),
    ],
)
def test_numbers_take_a_byte_per_two_significant_digits_plus_one(text: str, size: int) -> None:
    assert number_size(text) == size


def test_item_size_counts_names_and_values() -> None:
    item = {
        "pk": {"S": "ACCOUNT#ab"},  # 2 + 10
        "used": {"N": "1234"},  # 4 + 3
        "ok": {"BOOL": True},  # 2 + 1
        "blob": {"B": b"\x00" * 10},  # 4 + 10
        "tags": {"SS": ["a", "bc"]},  # 4 + 3
        "nested": {"M": {"k": {"S": "v"}}},  # 6 + 3 + (1 + 1 + 1)
        "list": {"L": [{"N": "1"}, {"NULL": True}]},  # 4 + 3 + (1 + 2) + (1 + 1)
        "café": {"S": "é"},  # 5 + 2 (UTF-8)
    }
    assert item_size(item) == 12 + 7 + 3 + 14 + 7 + 12 + 12 + 7
    assert item_size(None) == item_size({}) == 0


@pytest.mark.parametrize(("size", "units"), [(0, 1), (1, 1), (1024, 1), (1025, 2), (4096, 4), (400_000, 391)])
def test_writes_cost_a_unit_per_started_kilobyte(size: int, units: int) -> None:
    assert write_units(size) == units


@pytest.mark.parametrize(
    ("size", "consistent", "eventual"), [(0, 1.0, 0.5), (4096, 1.0, 0.5), (4097, 2.0, 1.0), (10_000, 3.0, 1.5)]
)
def test_reads_cost_a_unit_per_started_4_kb_half_when_eventually_consistent(
    size: int, consistent: float, eventual: float
) -> None:
    assert read_units(size, consistent=True) == consistent
    assert read_units(size, consistent=False) == eventual


def test_dollars_per_million_add_up_from_the_list_prices() -> None:
    calls = (StoreCall("GetItem", read_units=1), StoreCall("UpdateItem", write_units=1), StoreCall("UpdateItem", 0, 1))
    cost = RequestCost("DataFunction", "x", memory_mb=512, p50_ms=10.2, body_bytes=600 * 1024, calls=calls)
    assert cost.billed_seconds == 0.011  # Lambda bills whole milliseconds, rounded up
    assert cost.gb_seconds == pytest.approx(0.5 * 0.011)
    assert cost.api_requests == 2  # 600 KB is two 512 KB increments
    assert cost.api_dollars == 2 * PRICES.api_per_million
    assert cost.lambda_dollars == pytest.approx(0.20 + 0.0055 * 0.0000133334 * 1e6)
    assert cost.dynamodb_dollars == pytest.approx(2 * 0.625 + 0.125)
    assert cost.total_dollars == pytest.approx(2.00 + 0.20 + 0.0733337 + 1.375)


def test_stage_bound_is_the_caps_times_the_prices() -> None:
    calls = (StoreCall("UpdateItem", write_units=1),)
    costs = [RequestCost("DataFunction", "x", 512, p50_ms=20.0, body_bytes=1, calls=calls)]
    bound = stage_bound("prod", costs)
    values = stage_parameters("prod")
    memory = memory_sizes()
    assert bound.rate == int(values["ApiThrottleRate"]) and bound.burst == int(values["ApiThrottleBurst"])
    reserved = {name: int(values[f"{name.removesuffix('Function')}Concurrency"]) for name in memory}
    gb_reserved = sum(reserved[name] * mb / 1024 for name, mb in memory.items())
    assert bound.lambda_duration_dollars == pytest.approx(gb_reserved * 3600 * PRICES.lambda_per_gb_second)
    routes = sum(len(spec.routes) for spec in load_functions())
    assert bound.request_rate == min(routes * bound.rate, PRICES.account_api_rate)
    per_million = PRICES.api_per_million + PRICES.lambda_per_million + PRICES.write_unit_per_million
    assert bound.request_dollars == pytest.approx(bound.request_rate * 3600 * per_million / 1e6)
    assert bound.needed == {"DataFunction": max(5, math.ceil(bound.rate * 0.020 * 2))}


def test_calls_and_units_are_averaged_over_the_requests_counted() -> None:
    calls = (StoreCall("UpdateItem", write_units=1), StoreCall("UpdateItem", write_units=1), StoreCall("GetItem", 1))
    cost = RequestCost("DataFunction", "x", 512, p50_ms=1.0, body_bytes=1, calls=calls, requests=2)
    assert (cost.calls_per_request, cost.write_units, cost.read_units) == (1.5, 1.0, 0.5)
    assert cost.dynamodb_dollars == pytest.approx(PRICES.write_unit_per_million + 0.5 * PRICES.read_unit_per_million)
