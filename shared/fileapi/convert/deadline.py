"""The time budget of the conversion running in this context.

A conversion worker gives each job a budget (`budget`); converters call `check()` between their steps
(pages, decode passes, output sizes) so that work past the budget stops at the next step with 413
too_large (the input costs more than a conversion may spend), before the worker is killed at the
deadline. A converter whose steps are long and predictable (targetScore's encodes) calls `check_ahead`
with the next step's expected seconds, and stops before a step that would not fit, in its own words.
Outside a budget (scripts, tests of converters) neither does anything.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from fileapi.errors import OutOfTime

SMALLER_INPUT = "send a smaller or simpler input (fewer pixels, pages or elements)"

_budget: ContextVar[_Budget | None] = ContextVar("conversion_budget", default=None)


def exceeded_message(seconds: float, advice: str = SMALLER_INPUT, *, ahead: bool = False) -> str:
    """Why a conversion stopped at its `seconds`: it ran out of them, or (`ahead`) its next step would have."""
    return f"the conversion {'would' if ahead else 'did'} not finish within the {seconds:g} s limit; {advice}"


@dataclass(frozen=True)
class _Budget:
    wall_end: float  # time.monotonic()
    cpu_end: float  # time.process_time(): the CPU time of all the process's threads, which a worker's limit counts
    stated: float  # the limit a refusal states


@contextmanager
def budget(seconds: float, *, limit: float | None = None) -> Iterator[None]:
    """Run the block with `seconds` to spend, of wall time and of the process's CPU time (a worker's CPU limit,
    fileapi.isolation.worker.limit_cpu, counts every thread: a two-thread encoder spends it twice as fast).

    :param limit: the limit a refusal states, when `seconds` is a share of it (a worker's job: 19 of 20 s).
    """
    stated = seconds if limit is None else limit
    token = _budget.set(_Budget(time.monotonic() + seconds, time.process_time() + seconds, stated))
    try:
        yield
    finally:
        _budget.reset(token)


def check() -> None:
    """:raises OutOfTime: the budget of this context is spent."""
    check_ahead(0.0, 0.0, SMALLER_INPUT)


def check_ahead(seconds: float, cpu_seconds: float, advice: str) -> None:
    """:raises OutOfTime: the budget of this context would not fit the next step, expected to take `seconds` of
    wall time and `cpu_seconds` of CPU time; its message ends with `advice` (what to send instead)."""
    current = _budget.get()
    if current is None:
        return
    if time.monotonic() + seconds > current.wall_end or time.process_time() + cpu_seconds > current.cpu_end:
        raise OutOfTime(exceeded_message(current.stated, advice, ahead=seconds > 0 or cpu_seconds > 0))
