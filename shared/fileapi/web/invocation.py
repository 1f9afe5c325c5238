"""Whether the request being answered is the process's only one: inside a Lambda invocation it is (an
execution environment answers one invocation at a time); `fileapi serve` answers many at once.

web.app's Lambda handler enters `one_request_at_a_time` for each invocation; web.deadline reads `alone` to
run bounded work inline rather than in a worker thread.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from contextvars import ContextVar, Token
from typing import Any, TypeVar

from starlette.concurrency import run_in_threadpool

R = TypeVar("R")

_alone: ContextVar[bool] = ContextVar("one_request_at_a_time", default=False)


def one_request_at_a_time() -> AbstractContextManager[None]:
    """Within: this process answers this request only (a Lambda invocation)."""
    return _Alone()


class _Alone(AbstractContextManager[None]):
    """`one_request_at_a_time`'s block (a class: every invocation enters one, and a generator's context manager
    costs it a few microseconds more)."""

    def __init__(self) -> None:
        self.token: Token[bool] | None = None

    def __enter__(self) -> None:
        self.token = _alone.set(True)

    def __exit__(self, *_: object) -> None:
        assert self.token is not None
        _alone.reset(self.token)


def alone() -> bool:
    """True within `one_request_at_a_time`."""
    return _alone.get()


async def off_the_loop(function: Callable[..., R], *args: Any, **kwargs: Any) -> R:
    """`function(*args, **kwargs)`, blocking work (a store's call): on this thread within `one_request_at_a_time`
    (nothing else waits on the event loop), else on the thread pool so the loop keeps answering."""
    if alone():
        return function(*args, **kwargs)
    return await run_in_threadpool(function, *args, **kwargs)
