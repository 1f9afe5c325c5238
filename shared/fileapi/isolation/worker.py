"""A conversion worker: a process of its own that runs one conversion at a time for the process that started it.

    python -m fileapi.isolation.worker <socket fd> <memory bytes> [module ...]

It imports the given modules, limits its address space to what it uses once they are loaded plus `memory
bytes`, says `READY`, then answers jobs (fileapi.isolation.jobs) one at a time on the socket until it closes.
Each job gets a CPU-time limit of its seconds plus one (the kernel's SIGXCPU ends a runaway) beside the
deadline the request process keeps (it kills the worker). It runs in a process group of its own and ignores
SIGINT besides: a terminal's Ctrl-C reaches the server's group, and the request process decides when its workers
end (it closes their sockets: an end of file, or a reset, ends a worker quietly). No core files: a crash ends the
process at once instead of writing its memory out.
"""

from __future__ import annotations

import importlib
import os
import pickle
import resource
import signal
import socket
import sys

from fileapi import library_logs
from fileapi.convert.deadline import budget
from fileapi.convert.payload import response_limit
from fileapi.errors import ApiError
from fileapi.isolation.files import read_file_inputs
from fileapi.isolation.frames import Closed, receive_frame, send_frame
from fileapi.isolation.jobs import READY, Done, Job, Outcome, OutOfMemory, Refused, failed

# The converter's own deadline check (convert.deadline) fires this share of the seconds (at least 0.25 s) before
# the request process kills the worker, so that a converter that checks its budget answers in its own words.
COOPERATIVE_MARGIN = 0.05
MIN_COOPERATIVE_MARGIN_SECONDS = 0.25


def cooperative_budget(seconds: float) -> float:
    """The budget a converter is given of a job's `seconds` (1 s less of 20)."""
    return max(0.0, seconds - max(MIN_COOPERATIVE_MARGIN_SECONDS, seconds * COOPERATIVE_MARGIN))


def address_space_bytes() -> int:
    """This process's virtual memory size (VmSize), from /proc/self/statm."""
    with open("/proc/self/statm", "rb") as statm:
        pages = int(statm.read().split()[0])
    return pages * os.sysconf("SC_PAGE_SIZE")


def limit_memory(memory_bytes: int) -> None:
    """RLIMIT_AS at the current address space plus `memory_bytes`: allocations past it fail (MemoryError)."""
    limit = address_space_bytes() + memory_bytes
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def limit_cpu(seconds: float) -> None:
    """The soft RLIMIT_CPU at the CPU time used so far plus `seconds` and one more (whole seconds)."""
    used = resource.getrusage(resource.RUSAGE_SELF)
    spent = used.ru_utime + used.ru_stime
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    soft = int(spent + seconds) + 2
    resource.setrlimit(resource.RLIMIT_CPU, (soft if hard == resource.RLIM_INFINITY else min(soft, hard), hard))


def run(job: Job) -> Outcome:
    """The outcome of one job, within its CPU limit and its converter's budget and payload limit (its file inputs
    read first: fileapi.isolation.files)."""
    limit_cpu(job.seconds)
    try:
        with budget(cooperative_budget(job.seconds), limit=job.seconds), response_limit(job.max_response_bytes):
            args, kwargs = read_file_inputs(job.args, job.kwargs)
            return Done(job.function(*args, **kwargs))
    except ApiError as error:
        return Refused(error)
    except MemoryError:
        return OutOfMemory()
    except BaseException as error:  # a Rust panic is a BaseException (PyO3's PanicException)
        return failed(error)


def serve(sock: socket.socket) -> None:
    """Answer jobs on `sock` until it closes (an end of file or a reset: a socket closed with the READY frame
    unread is reset), quietly; exit after running out of memory (the heap may be fragmented past use, and the
    request process replaces the worker)."""
    try:
        send_frame(sock, READY)
        _answer_jobs(sock)
    except (Closed, ConnectionError):
        return  # the request process closed its end (it stops, or it replaced this worker): nothing to answer


def _answer_jobs(sock: socket.socket) -> None:
    while True:
        frame = receive_frame(sock)
        job: Job = pickle.loads(frame)  # noqa: S301 - the request process that started this worker wrote it
        del frame
        outcome = run(job)
        del job
        try:
            payload = pickle.dumps(outcome, protocol=pickle.HIGHEST_PROTOCOL)
        except MemoryError:
            outcome = OutOfMemory()
            payload = pickle.dumps(outcome, protocol=pickle.HIGHEST_PROTOCOL)
        send_frame(sock, payload)
        if isinstance(outcome, OutOfMemory):
            return


def main(argv: list[str]) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    fd, memory_bytes, modules = int(argv[0]), int(argv[1]), argv[2:]
    sock = socket.socket(fileno=fd)
    library_logs.silence()  # its standard error is the server's: no library's record quoting a job's input
    for module in modules:
        importlib.import_module(module)
    limit_memory(memory_bytes)
    serve(sock)


if __name__ == "__main__":
    main(sys.argv[1:])
