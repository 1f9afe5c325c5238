"""Timing helpers for the benchmarks: medians of repeated runs (these machines are shared and noisy)."""

from __future__ import annotations

import shutil
import statistics
import subprocess
import time
from collections.abc import Callable, Sequence


def median_seconds(action: Callable[[], object], *, repeat: int = 7, number: int = 1) -> float:
    """Median over `repeat` rounds of the time of `number` calls, per call."""
    action()  # warm-up
    rounds = []
    for _ in range(repeat):
        started = time.perf_counter()
        for _ in range(number):
            action()
        rounds.append((time.perf_counter() - started) / number)
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


def paired_medians(ours: Callable[[], object], anchor: Callable[[], object], *, repeat: int = 9) -> tuple[float, float]:
    """Median seconds of `ours` and of `anchor`, run alternately (a load that comes and goes on a
    shared machine then falls on both alike)."""
    ours()
    anchor()
    ours_rounds, anchor_rounds = [], []
    for _ in range(repeat):
        started = time.perf_counter()
        ours()
        ours_rounds.append(time.perf_counter() - started)
        started = time.perf_counter()
        anchor()
        anchor_rounds.append(time.perf_counter() - started)
    return statistics.median(ours_rounds), statistics.median(anchor_rounds)
