"""The time budget of the conversion running in this context.

A conversion worker gives each job a budget (`budget`); converters call `check()` between their steps
(pages, decode passes, output sizes) so that work past the budget stops at the next step with 413
too_large (the input costs more than a conversion may spend), before the worker is killed at the
deadline. Outside a budget (scripts, tests of converters) `check()` does nothing.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from fileapi.errors import TooLarge

_budget: ContextVar[tuple[float, float] | None] = ContextVar("conversion_budget", default=None)


def exceeded_message(seconds: float) -> str:
    return (
        f"the conversion did not finish within the {seconds:g} s limit; send a smaller or simpler input "
        "(fewer pixels, pages or elements)"
    )


@contextmanager
def budget(seconds: float) -> Iterator[None]:
    """Run the block with `seconds` to spend (monotonic clock)."""
    token = _budget.set((time.monotonic() + seconds, seconds))
    try:
        yield
    finally:
        _budget.reset(token)


def check() -> None:
    """:raises TooLarge: the budget of this context is spent."""
    current = _budget.get()
    if current is not None and time.monotonic() > current[0]:
        raise TooLarge(exceeded_message(current[1]))
