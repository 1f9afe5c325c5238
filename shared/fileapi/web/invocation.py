"""Whether the request being answered is the process's only one: inside a Lambda invocation it is (an
execution environment answers one invocation at a time); `fileapi serve` answers many at once.

web.app's Lambda handler enters `one_request_at_a_time` for each invocation; web.deadline reads `alone` to
run bounded work inline rather than in a worker thread.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_alone: ContextVar[bool] = ContextVar("one_request_at_a_time", default=False)


@contextmanager
def one_request_at_a_time() -> Iterator[None]:
    """Within: this process answers this request only (a Lambda invocation)."""
    token = _alone.set(True)
    try:
        yield
    finally:
        _alone.reset(token)


def alone() -> bool:
    """True within `one_request_at_a_time`."""
    return _alone.get()
