"""What running a conversion in a worker process costs (issue 25): the same converter call in this process and
through a conversion worker, per request, on a light and a heavy conversion, in pairs (one call each way).

The added cost is the pickled job and answer crossing a socket twice, and the worker's own Python call; the
goal is at most 1 ms at p50 on a light request, and at most 1.2x the in-process time on a heavy one.
"""

from __future__ import annotations

import asyncio
import io
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

from bench.scoreboard import Goal, record
from fileapi.convert.image import flip_image, resize_image
from fileapi.isolation.pool import MIB, WorkerPool
from fileapi.models.image import FlipOptions, ResizeOptions
from fileapi.setting_variables import DEFAULT_MAX_RESPONSE_BYTES

ADDED_GOAL_US = 1000.0
HEAVY_GOAL_RATIO = 1.2
IMAGE_MODULES = ("fileapi.convert.image", "PIL.Image", "PIL.ImageOps")


def _png(side: int) -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.frombytes("RGB", (side, side), os.urandom(side * side * 3)).save(out, "PNG")
    return out.getvalue()


def _jpeg(side: int) -> bytes:
    from PIL import Image

    small = Image.frombytes("RGB", (side // 16, side // 16), os.urandom((side // 16) ** 2 * 3))
    out = io.BytesIO()
    small.resize((side, side), Image.Resampling.BILINEAR).save(out, "JPEG", quality=85)
    return out.getvalue()


def measure(
    name: str,
    function: Callable[..., Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    *,
    pool: WorkerPool,
    number: int,
) -> tuple[float, float, float, float]:
    """(added at p50 in seconds, p50 of the ratio isolated / in-process, in-process p99, isolated p99), over
    `number` pairs of calls, each pair the two ways one after the other (a machine whose load drifts slows
    both)."""

    async def pairs() -> list[tuple[float, float]]:
        for _ in range(3):  # the worker has imported what the job needs
            await pool.run(function, *args, seconds=60, max_response_bytes=DEFAULT_MAX_RESPONSE_BYTES, **kwargs)
        timed = []
        for _ in range(number):
            started = time.perf_counter()
            function(*args, **kwargs)
            here = time.perf_counter() - started
            started = time.perf_counter()
            await pool.run(function, *args, seconds=60, max_response_bytes=DEFAULT_MAX_RESPONSE_BYTES, **kwargs)
            timed.append((here, time.perf_counter() - started))
        return timed

    timed = asyncio.run(pairs())
    here, there = [pair[0] for pair in timed], [pair[1] for pair in timed]
    figures = (
        statistics.median(b - a for a, b in timed),
        statistics.median(b / a for a, b in timed),
        _percentile(here, 0.99),
        _percentile(there, 0.99),
    )
    print(
        f"  {name:<30} in-process p50 {statistics.median(here) * 1e3:8.3f} ms  worker p50 "
        f"{statistics.median(there) * 1e3:8.3f} ms  added p50 {figures[0] * 1e3:7.3f} ms  ratio p50 {figures[1]:.2f}"
    )
    return figures


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))]


def bench_isolation() -> None:
    """The isolation rows: the added cost at p50 and p99 of a light (64 x 64 PNG flip) and a heavy (12 MP JPEG
    resized to 800 px) conversion."""
    print("\nConversion in a worker process against the same call in-process (wall time per request)")
    pool = WorkerPool(1, memory_bytes=2048 * MIB, modules=IMAGE_MODULES)
    try:
        flip = FlipOptions.model_validate({"direction": "horizontal"}).model_dump()
        light = measure("flip 64x64 PNG", flip_image, (_png(64),), flip, pool=pool, number=1000)
        resize = ResizeOptions.model_validate({"width": 800}).model_dump()
        heavy = measure("resize 12 MP JPEG to 800 px", resize_image, (_jpeg(4000),), resize, pool=pool, number=20)
    finally:
        pool.close()
    added, _, here_99, there_99 = light
    record("Isolation", "light (flip 64x64): added at p50 by the worker", added * 1e6, "us",
           Goal(max_value=ADDED_GOAL_US))  # fmt: skip
    record("Isolation", "light (flip 64x64): p99 through the worker", there_99 * 1e6, "us", Goal(),
           anchor=here_99 * 1e6, anchor_name="in-process p99")  # fmt: skip
    _, ratio, here_99, there_99 = heavy
    record("Isolation", "heavy (resize 12 MP): worker / in-process, p50 of pairs", ratio, "x",
           Goal(max_value=HEAVY_GOAL_RATIO))  # fmt: skip
    record("Isolation", "heavy (resize 12 MP): p99 through the worker", there_99 * 1e3, "ms", Goal(),
           anchor=here_99 * 1e3, anchor_name="in-process p99")  # fmt: skip
