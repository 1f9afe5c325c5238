"""The conversion workers of one process: started ahead of time, reused, one conversion each at a time.

A job goes to an idle worker (or waits for one, within its seconds and WAIT_MARGIN_SECONDS) over the worker's
socket; the answer comes back as an outcome. A worker that does not answer within the job's seconds, counted
from when the job got it ready (a wait behind others and a new worker's imports are not the job's cost), is
killed, so a 413 for time is the file's own cost; one that dies (a crash, the kernel's out-of-memory killer,
SIGXCPU) or runs out of its address space is replaced. Each way
a job can end is an answer for its caller alone:

| the worker                                   | the caller gets                                |
|----------------------------------------------|------------------------------------------------|
| returns a value                              | the value                                      |
| refuses the input (an ApiError)              | that error                                     |
| runs out of memory, is OOM-killed, or dies   | 413 too_large (memory)                         |
| of a signal after growing by half its memory |                                                |
| overruns its seconds (killed), SIGXCPU       | 413 too_large (time)                           |
| crashes (a signal), a library panics         | 422 unprocessable_input                        |
| raises an unexpected exception               | 500 internal_error, logged by type and frames  |
| none is free within the seconds and margin   | 503 service_unavailable, Retry-After           |
| does not start (exits, or imports for 30 s)  | 500 internal_error, logged                     |

Waiting jobs are queued by key (the caller's account) and served by turns (fileapi.isolation.turns): one key's
jobs, however many and however long, delay another key's next job by at most one job, and with a spare worker
kept for the other keys, not at all.

The pool serves any event loop (a worker's socket is used with the running loop's socket calls, and a
waiter is woken on its own loop), so one pool serves every thread of the process.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import os
import pickle
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from fileapi.convert.deadline import exceeded_message
from fileapi.errors import ApiError, InternalError, OutOfTime, ServiceUnavailable, TooLarge, Unprocessable
from fileapi.isolation.frames import Closed, receive_frame_async, send_frame_async
from fileapi.isolation.jobs import READY, Done, Failed, Job, Outcome, OutOfMemory, Refused
from fileapi.isolation.turns import Turns
from fileapi.settings import child_environment

if TYPE_CHECKING:
    import subprocess

R = TypeVar("R")
Waiter = tuple[asyncio.AbstractEventLoop, "asyncio.Future[Worker]"]
MIB = 1 << 20
# A worker's environment: two malloc arenas at most (each reserves 64 MiB of address space, which RLIMIT_AS counts).
WORKER_ENVIRONMENT = {"MALLOC_ARENA_MAX": "2"}
# Worker sockets' kernel buffers: a 4.5 MB body crosses in a few system calls.
SOCKET_BUFFER_BYTES = 4 * MIB
# A job waits for a free worker at most its own seconds and this margin (a killed worker's replacement).
WAIT_MARGIN_SECONDS = 2.0
# A new worker imports its converters' libraries within this (measured: 0.3-1.2 s on a loaded 2-core machine).
START_SECONDS = 30.0
# How long a worker that closed its socket is given to exit by itself before it is killed.
EXIT_WAIT_SECONDS = 2.0
REAP_POLL_SECONDS = 0.005
# A worker that dies of a signal after its resident memory grew by this share of its allowance ran out of it.
OUT_OF_MEMORY_SHARE = 0.5

log = logging.getLogger("fileapi")


@dataclass(eq=False)
class Worker:
    """A worker process and the request process's end of its socket."""

    process: subprocess.Popen[bytes]
    sock: socket.socket
    ready: bool = False
    killed: bool = False
    jobs: int = field(default=0)
    holder: str | None = None  # the key whose job holds it now
    ready_rss_bytes: int = 0  # resident memory once its modules were imported
    peak_rss_bytes: int = 0  # the kernel's high-water mark of its resident memory, once reaped
    # The kernel's mark starts at the spawning process's own (Linux keeps it across fork and exec): only a mark
    # above this one is the worker's.
    inherited_rss_bytes: int = 0

    @property
    def pid(self) -> int:
        return self.process.pid


class WorkerPool:
    """`size` conversion workers, each limited to its address space at start plus `memory_bytes`, importing
    `modules` before the first job.

    :param size: workers (>= 1); as many jobs run at once, the others wait.
    :param memory_bytes: address space a worker may add to what its imports take (RLIMIT_AS).
    :param modules: imported by each worker when it starts (the converters and their libraries).
    :param spare: keep the last free worker for the other keys while another key has had a worker lately (with two
        workers or more; see fileapi.isolation.turns).
    """

    def __init__(self, size: int, *, memory_bytes: int, modules: tuple[str, ...] = (), spare: bool = False) -> None:
        if size < 1:
            raise ValueError(f"a pool needs at least one worker, not {size}")
        self.size = size
        self.memory_bytes = memory_bytes
        self.modules = modules
        self._lock = threading.Lock()
        self._idle: collections.deque[Worker] = collections.deque()
        self._busy: set[Worker] = set()
        self._turns: Turns[Waiter] = Turns(spare=spare and size > 1)
        self._closed = False
        self._started = False
        self.jobs = 0  # jobs answered (by a value, a refusal or a failure), for the process's own counts

    def start(self) -> None:
        """Start the workers now (else at the first job); they import their modules in the background."""
        with self._lock:
            if self._started or self._closed:
                return
            self._started = True
            missing = self.size - len(self._idle) - len(self._busy)
        for _ in range(missing):
            self._add(self._spawn())

    def pids(self) -> list[int]:
        """The process ids of the workers now alive (idle or busy)."""
        with self._lock:
            return [worker.pid for worker in (*self._idle, *self._busy)]

    async def run(
        self,
        function: Callable[..., R],
        *args: Any,
        seconds: float,
        max_response_bytes: int,
        key: str = "",
        on_overrun: Callable[[float], None] | None = None,
        **kwargs: Any,
    ) -> R:
        """`function(*args, **kwargs)` in a worker: it waits at most `seconds` for a free worker, in `key`'s turn,
        then works at most `seconds` (see the module's table).

        :param function: a module-level function (it travels by reference: its module and name).
        :param key: whose job it is (an account): keys take turns for free workers.
        :param on_overrun: called with the seconds the job held its worker when it is ended for time (killed at
            its deadline, or SIGXCPU), before the 413 is raised.
        :raises ApiError: the converter's own refusal, or the answer for how the worker ended.
        """
        payload = pickle.dumps(
            Job(function, args, kwargs, seconds, max_response_bytes), protocol=pickle.HIGHEST_PROTOCOL
        )
        # Keys take turns, so a job waits for one job ahead of it in its turn and that worker's replacement.
        worker = await self._acquire(time.monotonic() + seconds + WAIT_MARGIN_SECONDS, key)
        await self._await_ready(worker)
        started = time.monotonic()
        try:  # the job's seconds of work start with its worker, ready: neither a wait nor a start is its cost
            outcome = await self._exchange(worker, payload, started + seconds)
        except TimeoutError:
            self._discard(worker, kill=True)
            if on_overrun is not None:
                on_overrun(time.monotonic() - started)
            raise OutOfTime(exceeded_message(seconds)) from None
        except (Closed, OSError):
            death = self._death(worker, seconds)
            if on_overrun is not None and worker.process.returncode == -signal.SIGXCPU:
                on_overrun(time.monotonic() - started)
            raise death from None
        except BaseException:  # cancelled mid-job: its answer would arrive out of turn
            self._discard(worker, kill=True)
            raise
        result: R = self._result(worker, outcome)
        return result

    def close(self) -> None:
        """Kill every worker and refuse new jobs (503); waiting jobs are refused too."""
        with self._lock:
            self._closed = True
            for worker in self._busy:
                worker.killed = True  # mid-job: no answer is awaited any more
            workers = [*self._idle, *self._busy]
            self._idle.clear()
            self._busy.clear()
            waiters = self._turns.drain()
        for worker in workers:
            _stop(worker)
        for loop, future in waiters:
            with contextlib.suppress(RuntimeError):  # that loop is closed: nobody waits there any more
                loop.call_soon_threadsafe(_fail, future, _closed_error())

    # Workers

    def _spawn(self) -> Worker:
        import subprocess

        ours, theirs = socket.socketpair()
        for option in (socket.SO_SNDBUF, socket.SO_RCVBUF):
            ours.setsockopt(socket.SOL_SOCKET, option, SOCKET_BUFFER_BYTES)
            theirs.setsockopt(socket.SOL_SOCKET, option, SOCKET_BUFFER_BYTES)
        command = [sys.executable, "-m", "fileapi.isolation.worker", str(theirs.fileno()), str(self.memory_bytes)]
        environment = child_environment(**WORKER_ENVIRONMENT, PYTHONPATH=os.pathsep.join(filter(None, sys.path)))
        try:
            # A process group of its own: a terminal's Ctrl-C, sent to the server's group, does not reach it (not
            # even while it imports); it ends when its socket closes, whenever the server ends.
            process = subprocess.Popen(
                [*command, *self.modules],
                pass_fds=(theirs.fileno(),),
                stdin=subprocess.DEVNULL,
                env=environment,
                process_group=0,
            )
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        ours.setblocking(False)
        return Worker(process, ours, inherited_rss_bytes=_resident_bytes("self", peak=True))

    def _add(self, worker: Worker) -> None:
        """A new worker joins: handed to a waiting job, else idle (killed at once if the pool has closed)."""
        self._release(worker, new=True)

    async def _acquire(self, deadline: float, key: str) -> Worker:
        loop = asyncio.get_running_loop()
        with self._lock:
            if self._closed:
                raise _closed_error()
            if not self._started:
                self._started = True
                spawn = self.size
            else:
                spawn = 0
            if self._idle and self._turns.may_take(key, free=len(self._idle)):
                worker = self._idle.popleft()
                self._busy.add(worker)
                self._hold(worker, key)
                return worker
            future: asyncio.Future[Worker] = loop.create_future()
            self._turns.wait(key, (loop, future))
        for _ in range(spawn):
            self._add(self._spawn())
        try:
            async with asyncio.timeout_at(loop.time() + max(0.0, deadline - time.monotonic())):
                return await future
        except TimeoutError:
            self._return_handed(future)
            raise ServiceUnavailable(
                f"all {self.size} conversion workers stayed busy longer than a conversion may take; retry shortly",
                retry_after_seconds=2,
            ) from None
        except BaseException:
            self._return_handed(future)
            raise
        finally:
            if not future.done() or future.cancelled():
                with self._lock:
                    self._turns.forget(key, (loop, future))

    def _return_handed(self, future: asyncio.Future[Worker]) -> None:
        """A worker handed to a job that stopped waiting in the same instant (timed out or cancelled while its
        wake-up was queued) goes back to the pool instead of staying busy for ever."""
        if future.done() and not future.cancelled() and future.exception() is None:
            self._release(future.result())

    def _release(self, worker: Worker, *, new: bool = False) -> None:
        with self._lock:
            if not new:
                self._busy.discard(worker)
                self._unhold(worker)
            if self._closed:
                closed = True
            else:
                closed = False
                while (waiter := self._turns.next(free=len(self._idle) + 1, alive=_waits)) is not None:
                    key, (loop, future) = waiter
                    self._busy.add(worker)
                    self._hold(worker, key)
                    try:
                        loop.call_soon_threadsafe(self._hand_over, future, worker)
                    except RuntimeError:  # that loop is closed
                        self._busy.discard(worker)
                        self._unhold(worker)
                        continue
                    return
                self._idle.append(worker)
        if closed:
            _stop(worker)

    def _hold(self, worker: Worker, key: str) -> None:
        """(Under the lock.) `key`'s job got `worker`."""
        worker.holder = key
        self._turns.hold(key)

    def _unhold(self, worker: Worker) -> None:
        """(Under the lock.) `worker`'s job let it go (answered, ended, or the worker discarded)."""
        if worker.holder is not None:
            self._turns.release(worker.holder)
            worker.holder = None

    def _hand_over(self, future: asyncio.Future[Worker], worker: Worker) -> None:
        """On the waiter's loop: the worker to the waiting job, or back to the pool if it stopped waiting."""
        if future.done():
            self._release(worker)
        else:
            future.set_result(worker)

    def _discard(self, worker: Worker, *, kill: bool) -> int | None:
        """Take `worker` out (killing it when asked) and start its replacement; its exit status."""
        if kill:
            worker.killed = True
        status = _stop(worker)
        with self._lock:
            self._busy.discard(worker)
            self._unhold(worker)
            replace = not self._closed
        if replace:
            self._add(self._spawn())
        return status

    # One job

    async def _await_ready(self, worker: Worker) -> None:
        """Wait for a new worker's READY (its imports done), at most START_SECONDS.

        :raises InternalError: it did not start (it exited, or is still importing), after replacing it.
        """
        if worker.ready:
            return
        try:
            async with asyncio.timeout(START_SECONDS):
                if await receive_frame_async(worker.sock) != READY:
                    raise Closed("the worker did not start")
        except (TimeoutError, Closed, OSError):
            status = self._discard(worker, kill=True)
            _warn("did_not_start", worker, status=status)
            raise InternalError("a conversion worker did not start; it has been logged") from None
        except BaseException:
            self._discard(worker, kill=True)
            raise
        worker.ready = True
        worker.ready_rss_bytes = _resident_bytes(worker.pid)

    async def _exchange(self, worker: Worker, payload: bytes, deadline: float) -> Outcome:
        loop = asyncio.get_running_loop()
        async with asyncio.timeout_at(loop.time() + max(0.0, deadline - time.monotonic())):
            await send_frame_async(worker.sock, payload)
            outcome: Outcome = pickle.loads(await receive_frame_async(worker.sock))  # noqa: S301 - our worker's
        return outcome

    def _result(self, worker: Worker, outcome: Outcome) -> Any:
        worker.jobs += 1
        self.jobs += 1
        if isinstance(outcome, OutOfMemory):
            self._discard(worker, kill=True)
            _warn("out_of_memory", worker)
            raise TooLarge(self._memory_message())
        self._release(worker)
        if isinstance(outcome, Done):
            return outcome.value
        if isinstance(outcome, Refused):
            raise outcome.error
        assert isinstance(outcome, Failed)
        if outcome.unprocessable:
            _warn("gave_up", worker, exception_type=outcome.exception_type)
            raise Unprocessable(UNPROCESSABLE_MESSAGE)
        log.error(
            "unexpected error",
            extra={"exception_type": outcome.exception_type, "frames": list(outcome.frames), "in": "worker"},
        )
        raise InternalError("unexpected failure; it has been logged without the request's content")

    def _death(self, worker: Worker, seconds: float) -> ApiError:
        """The answer for a worker found dead mid-job (its exit status tells how), after replacing it."""
        status = self._discard(worker, kill=False)
        if status == -signal.SIGXCPU:
            _warn("cpu_limit", worker, status=status)
            return OutOfTime(exceeded_message(seconds))
        if status == -signal.SIGKILL:  # not ours: the kernel's out-of-memory killer
            _warn("killed", worker, status=status)
            return TooLarge(self._memory_message())
        own_peak = worker.peak_rss_bytes > worker.inherited_rss_bytes
        grown = worker.peak_rss_bytes - worker.ready_rss_bytes if own_peak else 0
        if grown >= self.memory_bytes * OUT_OF_MEMORY_SHARE:
            # A native library that fails to allocate aborts (PDFium: SIGABRT at the address-space limit, its
            # resident memory grown by 98% of the allowance) instead of raising MemoryError.
            _warn("out_of_memory", worker, status=status, grown_bytes=grown)
            return TooLarge(self._memory_message())
        _warn("crashed", worker, status=status, grown_bytes=grown)
        return Unprocessable(UNPROCESSABLE_MESSAGE)

    def _memory_message(self) -> str:
        return (
            f"the conversion needed more than the {self.memory_bytes // MIB:,} MiB of memory a conversion may use; "
            "send a smaller or simpler file (fewer pixels, pages or elements)"
        )


UNPROCESSABLE_MESSAGE = (
    "the converter stopped on this file without an answer (the file may be damaged, or made to break it); "
    "check the file, or save it again with another program"
)


def _closed_error() -> ServiceUnavailable:
    return ServiceUnavailable("the server is shutting down; retry shortly", retry_after_seconds=1)


def _waits(waiter: Waiter) -> bool:
    """Whether the job is still waiting (not timed out or cancelled)."""
    return not waiter[1].done()


def _fail(future: asyncio.Future[Worker], error: BaseException) -> None:
    if not future.done():
        future.set_exception(error)


def _stop(worker: Worker) -> int | None:
    """Close `worker`'s socket and reap it, killing it first when it was `killed` (else it is given a moment to
    exit on its own, as a crashed process does, so that its status tells how it ended); its exit status."""

    with contextlib.suppress(OSError):
        worker.sock.close()
    for kill in (worker.killed, True):
        if kill:
            with contextlib.suppress(ProcessLookupError):
                worker.process.kill()
        status = _reap(worker, EXIT_WAIT_SECONDS)
        if status is not None:
            return status
    return None


def _reap(worker: Worker, seconds: float) -> int | None:
    """Wait up to `seconds` for `worker` to exit and reap it, keeping its peak resident memory (wait4's
    rusage); its exit status as Popen gives it (minus the signal that ended it), None if it still runs."""
    process = worker.process
    if process.returncode is not None:
        return process.returncode
    ends = time.monotonic() + seconds
    while True:
        try:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
        except ChildProcessError:  # reaped elsewhere (Popen's own wait)
            return process.wait()
        if pid:
            worker.peak_rss_bytes = usage.ru_maxrss * 1024  # KiB on Linux
            process.returncode = os.waitstatus_to_exitcode(status)
            return process.returncode
        if time.monotonic() >= ends:
            return None
        time.sleep(REAP_POLL_SECONDS)


def _resident_bytes(pid: int | str, *, peak: bool = False) -> int:
    """A process's resident memory now, or its high-water mark with `peak` (0 when it cannot be read)."""
    field_name = "VmHWM:" if peak else "VmRSS:"
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith(field_name):
                    return int(line.split()[1]) * 1024
    except (OSError, IndexError, ValueError):
        pass
    return 0


def _warn(kind: str, worker: Worker, **details: Any) -> None:
    signal_name = None
    status = details.pop("status", worker.process.returncode)
    if isinstance(status, int) and status < 0:
        signal_name = signal.Signals(-status).name
    log.warning(
        "conversion worker failed",
        extra={
            "worker_failure": kind,
            "worker_pid": worker.pid,
            "signal": signal_name,
            "exit_status": status,
            **details,
        },
    )
