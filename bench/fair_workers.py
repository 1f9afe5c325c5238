"""What keeping a spare conversion worker costs and buys (fileapi.isolation.turns): one busy key's jobs a second,
alone and while another key sends small jobs, and that other key's wait, with and without the spare.

    python -m bench.fair_workers
"""

from __future__ import annotations

import asyncio
import statistics
import time
from typing import Any

from bench.isolation import IMAGE_MODULES, _jpeg, _png
from bench.scoreboard import Goal, record
from fileapi.convert.image import flip_image, resize_image
from fileapi.isolation.pool import MIB, WorkerPool
from fileapi.models.image import FlipOptions, ResizeOptions
from fileapi.setting_variables import DEFAULT_MAX_RESPONSE_BYTES

WORKERS = 2
BUSY_CLIENTS = 4
JOBS_PER_CLIENT = 6
NEIGHBOUR_JOBS = 20
# A neighbour's client waits this long between its jobs (its next one arrives while the busy key's run).
THINK_SECONDS = 0.1
# The neighbour's wait with the spare: a small job's own time and the socket, never a busy key's job.
SPARE_WAIT_GOAL_MS = 100.0
Job = tuple[bytes, dict[str, Any]]


async def _busy_key(pool: WorkerPool, job: Job, stop: asyncio.Event | None) -> float:
    """BUSY_CLIENTS clients of key "busy" resizing `job` one after the other (JOBS_PER_CLIENT each, or until
    `stop`); its jobs a second."""
    data, options = job
    started = time.perf_counter()

    async def client() -> int:
        done = 0
        while (stop is None and done < JOBS_PER_CLIENT) or (stop is not None and not stop.is_set()):
            await pool.run(
                resize_image, data, seconds=60, max_response_bytes=DEFAULT_MAX_RESPONSE_BYTES, key="busy", **options
            )
            done += 1
        return done

    done = sum(await asyncio.gather(*(client() for _ in range(BUSY_CLIENTS))))
    return done / (time.perf_counter() - started)


async def _neighbour(pool: WorkerPool) -> float:
    """One small flip of key "neighbour"; the seconds it took."""
    flip = FlipOptions.model_validate({"direction": "horizontal"}).model_dump()
    started = time.perf_counter()
    await pool.run(
        flip_image, _png(64), seconds=60, max_response_bytes=DEFAULT_MAX_RESPONSE_BYTES, key="neighbour", **flip
    )
    return time.perf_counter() - started


def crowded(pool: WorkerPool, job: Job) -> tuple[float, list[float]]:
    """The busy key's jobs a second while the neighbour sends NEIGHBOUR_JOBS small flips, and the seconds each
    flip took."""

    async def both() -> tuple[float, list[float]]:
        await _neighbour(pool)  # the neighbour is a client of this server, lately served
        stop = asyncio.Event()
        busy = asyncio.ensure_future(_busy_key(pool, job, stop))
        await asyncio.sleep(1.0)
        seconds = []
        for _ in range(NEIGHBOUR_JOBS):
            seconds.append(await _neighbour(pool))
            await asyncio.sleep(THINK_SECONDS)
        stop.set()
        return await busy, seconds

    return asyncio.run(both())


def bench_fair_workers() -> None:
    """The rows: the busy key's jobs a second alone and crowded, and the neighbour's max, with the spare against
    without it."""
    print(f"\nFair workers: {WORKERS} workers, one key with {BUSY_CLIENTS} clients resizing a 12 MP JPEG to 800 px")
    job = (_jpeg(4000), ResizeOptions.model_validate({"width": 800}).model_dump())
    figures: dict[bool, tuple[float, float, list[float]]] = {}
    for spare in (False, True):
        pool = WorkerPool(WORKERS, memory_bytes=2048 * MIB, modules=IMAGE_MODULES, spare=spare)
        try:
            asyncio.run(_busy_key(pool, job, None))  # both workers have imported what the jobs need
            alone = asyncio.run(_busy_key(pool, job, None))
            shared, waits = crowded(pool, job)
        finally:
            pool.close()
        figures[spare] = (alone, shared, waits)
        print(
            f"  spare {'on ' if spare else 'off'}  busy key alone {alone:5.2f} jobs/s, beside the neighbour "
            f"{shared:5.2f} jobs/s   neighbour's flip p50 {statistics.median(waits) * 1e3:6.1f} ms  "
            f"max {max(waits) * 1e3:6.1f} ms"
        )
    off, on = figures[False], figures[True]
    record("Fair workers", "busy key alone: jobs/s with the spare", on[0], "jobs/s", Goal(),
           anchor=off[0], anchor_name="without")  # fmt: skip
    record("Fair workers", "busy key beside a neighbour: jobs/s with the spare", on[1], "jobs/s", Goal(),
           anchor=off[1], anchor_name="without")  # fmt: skip
    record("Fair workers", "neighbour's small job beside a busy key: max with the spare", max(on[2]) * 1e3, "ms",
           Goal(max_value=SPARE_WAIT_GOAL_MS), anchor=max(off[2]) * 1e3, anchor_name="without")  # fmt: skip


if __name__ == "__main__":
    bench_fair_workers()
