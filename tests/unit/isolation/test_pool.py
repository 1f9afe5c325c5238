"""Conversion workers (fileapi.isolation.pool) with real processes: each way a job can end is an answer for its
caller alone, and the pool replaces what it loses."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from fileapi.errors import InternalError, InvalidInput, OutOfTime, ServiceUnavailable, TooLarge, Unprocessable
from fileapi.isolation.pool import MIB, WorkerPool
from tests import worker_jobs

LIMIT = 6_291_556


@pytest.fixture()
def pool() -> Iterator[WorkerPool]:
    workers = WorkerPool(2, memory_bytes=256 * MIB)
    workers.start()
    yield workers
    workers.close()


def run(pool: WorkerPool, function: Any, *args: Any, seconds: float = 10, **kwargs: Any) -> Any:
    return asyncio.run(pool.run(function, *args, seconds=seconds, max_response_bytes=LIMIT, **kwargs))


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        return stat.read().split(") ")[1][0] != "Z"


def test_a_job_returns_its_value_from_another_process(pool: WorkerPool) -> None:
    assert run(pool, worker_jobs.echo, b"abc", suffix=b"!") == b"abc!"
    assert run(pool, worker_jobs.pid) in pool.pids()
    assert run(pool, worker_jobs.pid) != os.getpid()


def test_a_refusal_comes_back_as_the_same_error(pool: WorkerPool) -> None:
    with pytest.raises(InvalidInput) as refused:
        run(pool, worker_jobs.refuse, "width must be 1..16383, not 0")
    assert (refused.value.code, refused.value.message) == ("invalid_input", "width must be 1..16383, not 0")


@pytest.mark.parametrize("crash", [worker_jobs.segfault, worker_jobs.abort], ids=["segfault", "abort"])
def test_a_crash_is_422_and_the_worker_is_replaced(pool: WorkerPool, crash: Any) -> None:
    crashed = run(pool, worker_jobs.pid)
    others = set(pool.pids()) - {crashed}
    with pytest.raises(Unprocessable) as answer:
        asyncio.run(_on_worker(pool, crashed, crash))
    assert answer.value.http_status == 422
    assert not alive(crashed)
    assert len(pool.pids()) == 2 and crashed not in pool.pids() and others <= set(pool.pids())
    assert run(pool, worker_jobs.echo, b"next") == b"next"


async def _on_worker(pool: WorkerPool, pid: int, function: Any) -> Any:
    """`function` on the worker `pid`: the other workers are kept busy with short jobs until it is its turn."""
    for _ in range(50):
        got = await pool.run(worker_jobs.pid, seconds=5, max_response_bytes=LIMIT)
        if got == pid:
            break
    busy = [pool.run(worker_jobs.spin, 0.3, seconds=5, max_response_bytes=LIMIT) for _ in range(pool.size - 1)]
    spinning = asyncio.gather(*busy)
    await asyncio.sleep(0.05)
    try:
        return await pool.run(function, seconds=5, max_response_bytes=LIMIT)
    finally:
        await spinning


def test_running_out_of_memory_is_413_and_the_worker_is_replaced(pool: WorkerPool) -> None:
    before = set(pool.pids())
    with pytest.raises(TooLarge, match=r"more than the 256 MiB of memory a conversion may use"):
        run(pool, worker_jobs.allocate, 1024)
    assert len(set(pool.pids()) - before) == 1
    assert run(pool, worker_jobs.allocate, 64) == 64


# A worker's peak memory is known when it passes its spawner's (the kernel's mark carries over fork and exec):
# these run their pool in a fresh process, as small beside its workers' 256 MiB as a server is beside 2 GiB.
_FRESH_POOL = """
import asyncio, sys
from fileapi.isolation.pool import MIB, WorkerPool
from tests import worker_jobs
from tests.hostile_files import xobject_fanout_pdf
pool = WorkerPool(1, memory_bytes=256 * MIB)
pool.start()
job, argument = sys.argv[1], sys.argv[2]
value = xobject_fanout_pdf(6, 10) if argument == "fanout" else int(argument)
try:
    asyncio.run(pool.run(getattr(worker_jobs, job), value, seconds=30, max_response_bytes=6_000_000))
    print("value")
except Exception as error:
    print(type(error).__name__)
finally:
    pool.close()
"""


def answer_in_a_fresh_process(job: str, argument: str) -> str:
    """The class of the error a fresh process's pool answers `job(argument)` with ('value' for a value)."""
    completed = subprocess.run(
        [sys.executable, "-c", _FRESH_POOL, job, argument], capture_output=True, text=True, timeout=120, check=True
    )
    return completed.stdout.strip().splitlines()[-1]


def test_an_abort_after_growing_by_half_its_memory_is_413_memory() -> None:
    assert answer_in_a_fresh_process("allocate_then_abort", "200") == "TooLarge"
    assert answer_in_a_fresh_process("allocate_then_abort", "16") == "Unprocessable"  # hardly grown: the file


def test_pdfium_aborting_at_the_address_space_limit_is_413_memory() -> None:
    # PDFium aborts (SIGABRT) when an allocation fails: 10^6 form draws past the cost prediction
    assert answer_in_a_fresh_process("render_unpredicted", "fanout") == "TooLarge"


def test_an_abort_is_a_crash_while_its_peak_is_not_known_to_be_its_own(pool: WorkerPool) -> None:
    # this test process is larger than the growth: the worker's mark may be the spawner's, so no conclusion
    with pytest.raises(Unprocessable):
        run(pool, worker_jobs.allocate_then_abort, 16)


def test_the_kernels_kill_is_413_memory(pool: WorkerPool) -> None:
    with pytest.raises(TooLarge, match=r"of memory a conversion may use"):
        run(pool, worker_jobs.killed_by_the_kernel)


def test_an_overrun_is_killed_at_the_deadline_and_answered_413(pool: WorkerPool) -> None:
    async def overrun() -> tuple[int, TooLarge]:
        job = asyncio.ensure_future(pool.run(worker_jobs.spin, 30, seconds=1, max_response_bytes=LIMIT))
        await asyncio.sleep(0.3)
        busy = set(pool.pids())
        try:
            await job
        except TooLarge as error:
            return len(busy), error
        raise AssertionError("the overrun was not stopped")

    workers, error = asyncio.run(overrun())
    assert workers == 2
    assert "did not finish within the 1 s limit" in error.message
    assert isinstance(error, OutOfTime)  # so that a request's answer can name the operation (web.conversions)
    spinning = [pid for pid in pool.pids() if _cpu_seconds(pid) > 0.5]
    assert spinning == []  # the runaway is gone; its replacement is idle
    assert len(pool.pids()) == 2


def test_an_overrun_reports_the_seconds_it_held_its_worker(pool: WorkerPool) -> None:
    held: list[float] = []
    with pytest.raises(TooLarge):
        run(pool, worker_jobs.spin, 30, seconds=0.5, on_overrun=held.append)
    assert len(held) == 1 and 0.5 <= held[0] < 5
    run(pool, worker_jobs.echo, b"quick", on_overrun=held.append)
    assert len(held) == 1  # a job that ends in time is not reported


def test_a_free_worker_goes_to_the_key_that_waited_longest() -> None:
    single = WorkerPool(1, memory_bytes=128 * MIB)
    single.start()
    finished: list[str] = []

    async def job(key: str, name: str) -> None:
        await single.run(worker_jobs.spin, 0.2, seconds=10, max_response_bytes=LIMIT, key=key)
        finished.append(name)

    async def crowded() -> None:
        # One key queues four jobs (one runs, three wait); another key's one job arrives behind them all.
        hostile = [asyncio.ensure_future(job("hostile", f"hostile-{index}")) for index in range(4)]
        await asyncio.sleep(0.05)
        await asyncio.gather(job("neighbour", "neighbour"), *hostile)

    try:
        run(single, worker_jobs.pid)  # started and ready
        asyncio.run(crowded())
    finally:
        single.close()
    assert finished[:2] == ["hostile-0", "neighbour"]  # one job's wait, not four (first come, first served)
    assert finished[2:] == ["hostile-1", "hostile-2", "hostile-3"]  # a key's own jobs keep their order


def test_keys_take_turns_for_free_workers() -> None:
    single = WorkerPool(1, memory_bytes=128 * MIB)
    single.start()
    finished: list[str] = []

    async def job(key: str) -> None:
        await single.run(worker_jobs.echo, b"x", seconds=10, max_response_bytes=LIMIT, key=key)
        finished.append(key)

    async def crowded() -> None:
        first = asyncio.ensure_future(single.run(worker_jobs.spin, 0.3, seconds=10, max_response_bytes=LIMIT))
        await asyncio.sleep(0.05)
        waiting = [asyncio.ensure_future(job(key)) for key in ("a", "a", "a", "b", "b", "c")]
        await asyncio.gather(first, *waiting)

    try:
        run(single, worker_jobs.pid)
        asyncio.run(crowded())
    finally:
        single.close()
    assert finished == ["a", "b", "c", "a", "b", "a"]


def test_the_last_free_worker_is_kept_for_a_key_that_holds_none() -> None:
    spare = WorkerPool(2, memory_bytes=128 * MIB, spare=True)
    spare.start()

    async def warm() -> None:  # both workers ready, and the neighbour served lately
        await asyncio.gather(
            *(
                spare.run(worker_jobs.pid, seconds=10, max_response_bytes=LIMIT, key=key)
                for key in ("busy", "neighbour")
            )
        )

    async def crowded() -> tuple[float, float]:
        loop = asyncio.get_running_loop()
        started = loop.time()
        # One key sends two 1-second jobs at once: one runs, the other waits for a second free worker
        busy = [
            asyncio.ensure_future(spare.run(worker_jobs.spin, 1.0, seconds=10, max_response_bytes=LIMIT, key="busy"))
            for _ in range(2)
        ]
        await asyncio.sleep(0.1)
        asked = loop.time()
        assert await spare.run(worker_jobs.echo, b"x", seconds=10, max_response_bytes=LIMIT, key="neighbour") == b"x"
        waited = loop.time() - asked
        await asyncio.gather(*busy)
        return waited, loop.time() - started

    try:
        asyncio.run(warm())
        waited, busy_seconds = asyncio.run(crowded())
    finally:
        spare.close()
    assert waited < 0.9  # the other key's job did not wait for the busy key's first to end
    assert busy_seconds >= 2.0  # the busy key's jobs ran one after the other, on one worker


def _cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        fields = stat.read().split(") ")[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_a_converter_that_checks_its_budget_stops_itself_and_keeps_its_worker(pool: WorkerPool) -> None:
    pids = set(pool.pids())
    started = time.monotonic()
    # the job's limit, as the docs state it, not the converter's share of it (9.5 s)
    with pytest.raises(OutOfTime, match=r"did not finish within the 10 s limit; send a smaller"):
        run(pool, worker_jobs.sleep_checking, 30, seconds=10)
    assert time.monotonic() - started < 10  # stopped by itself, 5% before the deadline
    assert set(pool.pids()) == pids


def test_an_unexpected_exception_is_500_and_keeps_the_worker(pool: WorkerPool) -> None:
    pids = set(pool.pids())
    with pytest.raises(InternalError):
        run(pool, worker_jobs.fail)
    assert set(pool.pids()) == pids


def test_as_many_jobs_run_at_once_as_there_are_workers(pool: WorkerPool) -> None:
    async def many() -> list[int]:
        return await asyncio.gather(
            *(pool.run(worker_jobs.pid, seconds=10, max_response_bytes=LIMIT) for _ in range(8))
        )

    assert set(asyncio.run(many())) <= set(pool.pids())


def test_jobs_from_several_threads_and_event_loops_share_the_pool(pool: WorkerPool) -> None:
    results: list[bytes] = []

    def client(number: int) -> None:
        for round_ in range(5):
            results.append(run(pool, worker_jobs.echo, f"{number}-{round_}".encode()))

    threads = [threading.Thread(target=client, args=(number,)) for number in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == sorted(f"{number}-{round_}".encode() for number in range(4) for round_ in range(5))


def test_a_job_that_finds_no_free_worker_within_its_seconds_is_503() -> None:
    single = WorkerPool(1, memory_bytes=128 * MIB)
    try:

        async def crowded() -> None:
            busy = asyncio.ensure_future(single.run(worker_jobs.spin, 4, seconds=10, max_response_bytes=LIMIT))
            await asyncio.sleep(0.2)
            with pytest.raises(ServiceUnavailable) as refused:  # waited 0.5 s and the 2 s margin
                await single.run(worker_jobs.echo, b"x", seconds=0.5, max_response_bytes=LIMIT)
            assert refused.value.headers["Retry-After"] == "2"
            assert await busy >= 4

        asyncio.run(crowded())
        assert run(single, worker_jobs.echo, b"after") == b"after"
    finally:
        single.close()


def test_a_job_that_waited_for_its_worker_still_gets_its_whole_seconds_of_work() -> None:
    single = WorkerPool(1, memory_bytes=128 * MIB)
    try:

        async def queued() -> float:
            busy = asyncio.ensure_future(single.run(worker_jobs.spin, 1.0, seconds=5, max_response_bytes=LIMIT))
            await asyncio.sleep(0.2)
            # 0.8 s behind the busy job, then 1.0 s of its own work: over 1.5 s in all, within 1.5 s of work.
            waited = await single.run(worker_jobs.spin, 1.0, seconds=1.5, max_response_bytes=LIMIT)
            await busy
            return float(waited)

        assert asyncio.run(queued()) >= 1.0
    finally:
        single.close()


def test_a_cancelled_job_kills_its_worker(pool: WorkerPool) -> None:
    before = set(pool.pids())

    async def cancelled() -> None:
        job = asyncio.ensure_future(pool.run(worker_jobs.spin, 30, seconds=60, max_response_bytes=LIMIT))
        await asyncio.sleep(0.3)
        job.cancel()
        with pytest.raises(asyncio.CancelledError):
            await job

    asyncio.run(cancelled())
    (gone,) = before - set(pool.pids())
    assert not alive(gone)
    assert len(pool.pids()) == 2


def test_a_closed_pool_kills_its_workers_and_refuses_jobs() -> None:
    closing = WorkerPool(2, memory_bytes=128 * MIB)
    closing.start()
    pids = closing.pids()
    assert run(closing, worker_jobs.echo, b"x") == b"x"
    closing.close()
    assert not any(alive(pid) for pid in pids)
    with pytest.raises(ServiceUnavailable):
        run(closing, worker_jobs.echo, b"x")


def test_a_workers_address_space_is_its_start_plus_the_memory_it_may_use(pool: WorkerPool) -> None:
    pid = run(pool, worker_jobs.pid)
    with open(f"/proc/{pid}/limits", encoding="ascii") as limits:
        line = next(line for line in limits if line.startswith("Max address space"))
    limit = int(line.split()[3])
    with open(f"/proc/{pid}/statm", encoding="ascii") as statm:
        size = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    assert limit - size + 64 * MIB > 256 * MIB and limit - size <= 256 * MIB


def test_a_worker_over_its_cpu_time_gets_sigxcpu() -> None:
    code = (
        "from fileapi.isolation.worker import limit_cpu\nfrom tests.worker_jobs import burn\nlimit_cpu(0)\nburn(10)\n"
    )
    finished = subprocess.run([sys.executable, "-c", code], timeout=30, check=False)
    assert finished.returncode == -24  # SIGXCPU, two seconds of CPU in
