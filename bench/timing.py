"""Timing helpers for the benchmarks: medians of repeated runs (these machines are shared and noisy)."""

from __future__ import annotations

import json
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

# Source code for a child process that measures itself: `peak()` is its resident high-water mark in MiB.
PEAK_MIB_SOURCE = """
import resource
def peak():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
"""
# The measuring end of a script run by `fresh_peak_kib`: the script defines `warm()` and `measured()`.
_FRESH_PEAK_END = """
import json as _json
def _status(field):
    with open("/proc/self/status") as lines:
        return next(int(line.split()[1]) for line in lines if line.startswith(field))
warm()
_baseline = _status("VmRSS:")
with open("/proc/self/clear_refs", "w") as _refs:
    _refs.write("5")
measured()
print(_json.dumps({"peak_kib": _status("VmHWM:") - _baseline}))
"""


# Why a child's peak is read from /proc and not from getrusage: a process started from this one (fork or vfork, then
# exec) keeps in ru_maxrss the resident high-water mark this process had at that moment, 2 GB and more late in
# `make bench`, so a child's ru_maxrss (its own or wait4's) says nothing about the child. /proc/self/status's VmHWM
# is its own memory's alone, and clear_refs sets it back to its resident memory now.


def status_mib(pid: int | str, field: str) -> float:
    """A `kB` line of /proc/PID/status (VmHWM: the peak resident memory since the last reset; VmRSS: now), MiB;
    `pid` "self" for this process."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024
    return 0.0


def reset_peaks(pids: list[int] | list[str]) -> None:
    """Set each process's VmHWM back to its resident memory now."""
    for pid in pids:
        Path(f"/proc/{pid}/clear_refs").write_text("5")


def reset_peak_mib() -> float:
    """In a measuring child, before the measured work: its resident memory now (MiB), where the high-water mark
    read by `peak_mib` is set back to."""
    reset_peaks(["self"])
    return status_mib("self", "VmRSS")


def peak_mib() -> float:
    """This process's resident high-water mark (MiB) since `reset_peak_mib` (since it started, without it)."""
    return status_mib("self", "VmHWM")


# Runs a command as the child of a small process (this one's resident memory is what a fork of it starts
# with), and writes its seconds, exit code and peak resident memory (wait4, KiB) to the file named first.
_LAUNCHER = """
import json, os, sys, time
started = time.perf_counter()
pid = os.fork()
if pid == 0:
    os.execvp(sys.argv[2], sys.argv[2:])
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as report:
    json.dump({"seconds": time.perf_counter() - started, "code": os.waitstatus_to_exitcode(status),
               "peak_kib": usage.ru_maxrss}, report)
"""


@dataclass(frozen=True)
class CommandRun:
    """What `run_measured` saw of a command: its standard output and error, its exit code, its wall seconds and
    its peak resident memory in MiB (at least the launcher's, about 9 MiB)."""

    output: bytes
    errors: bytes
    code: int
    seconds: float
    peak_mib: float


def run_measured(argv: Sequence[str]) -> CommandRun:
    """Run `argv` to its end; its output, time and own peak resident memory (see `CommandRun`)."""
    with tempfile.NamedTemporaryFile(suffix=".json") as report:
        done = subprocess.run([sys.executable, "-c", _LAUNCHER, report.name, *argv], capture_output=True)
        measured = json.loads(Path(report.name).read_text())
    return CommandRun(done.stdout, done.stderr, measured["code"], measured["seconds"], measured["peak_kib"] / 1024)


def fresh_peak_kib(script: str, *args: str) -> int | None:
    """The peak resident memory (KiB) of `script`'s `measured()` above the process's after its `warm()` (libraries
    and code paths loaded, no large buffer kept), in a fresh Python process given `args`: exact, the high-water mark
    reset through /proc/self/clear_refs, so that the allocator's reuse of an earlier large run hides none of it.
    None when the script fails (an engine not installed)."""
    out = subprocess.run([sys.executable, "-c", script + _FRESH_PEAK_END, *args], capture_output=True, text=True)
    return int(json.loads(out.stdout)["peak_kib"]) if out.returncode == 0 else None


def cpu_seconds() -> float:
    """CPU time (user + system) of this process, all its threads, and the children it has waited for: a
    clock for `median_seconds` and `paired_medians` that other sessions' load on the machine hardly moves."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def median_seconds(
    action: Callable[[], object], *, repeat: int = 7, number: int = 1, clock: Callable[[], float] = time.perf_counter
) -> float:
    """Median over `repeat` rounds of the time of `number` calls, per call (wall time, or `clock`'s)."""
    action()  # warm-up
    rounds = []
    for _ in range(repeat):
        started = clock()
        for _ in range(number):
            action()
        rounds.append((clock() - started) / number)
    return statistics.median(rounds)


def command_seconds(argv: Sequence[str], *, stdin_path: str, repeat: int = 7) -> float | None:
    """Median wall time of a command reading `stdin_path` (None when the tool is not installed)."""
    if shutil.which(argv[0]) is None:
        return None

    def run() -> None:
        with open(stdin_path, "rb") as source:
            subprocess.run(argv, stdin=source, stdout=subprocess.DEVNULL, check=True)

    return median_seconds(run, repeat=repeat)


def row(name: str, seconds: float, reference: float | None = None, reference_name: str = "") -> str:
    """One report line: the time, and the ratio to the reference when there is one."""
    text = f"  {name:<44} {seconds * 1000:10.3f} ms"
    if reference:
        text += f"   {seconds / reference:6.2f}x {reference_name} ({reference * 1000:.3f} ms)"
    return text


def paired_medians(
    ours: Callable[[], object],
    anchor: Callable[[], object],
    *,
    repeat: int = 9,
    clock: Callable[[], float] = time.perf_counter,
) -> tuple[float, float]:
    """Median seconds of `ours` and of `anchor`, run alternately (a load that comes and goes on a
    shared machine then falls on both alike); wall time, or `clock`'s (e.g. `cpu_seconds`)."""
    ours()
    anchor()
    ours_rounds, anchor_rounds = [], []
    for _ in range(repeat):
        started = clock()
        ours()
        ours_rounds.append(clock() - started)
        started = clock()
        anchor()
        anchor_rounds.append(clock() - started)
    return statistics.median(ours_rounds), statistics.median(anchor_rounds)


def wait_for_health(base_url: str, *, seconds: float = 30) -> None:
    """Return once `base_url`/health answers (a server just started), or after `seconds`."""
    import httpx

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            httpx.get(base_url + "/health", timeout=1)
            return
        except httpx.HTTPError:
            time.sleep(0.1)
