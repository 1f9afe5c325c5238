"""Whose job a free conversion worker goes to: keys (accounts) take turns, and a spare is kept for the others.

Each key's waiting jobs queue in order (FIFO), and a free worker goes to the waiting key that got a worker longest
ago (round-robin over the keys), so one key's jobs, however many and however long, delay another key's next job by
at most one job. With `spare` (a pool of two workers or more), the last free worker is kept for the other keys
while another key has had a worker within SPARE_SECONDS: a key already holding one waits for a second free worker,
so another key that sends now and then gets a worker at once (unless every worker is held by a different key), and
a key alone on the server still uses every worker.

Not thread-safe: the pool calls it under its lock.
"""

from __future__ import annotations

import collections
import time
from collections.abc import Callable
from typing import Generic, TypeVar

W = TypeVar("W")
# Keys whose last turn is remembered: a key forgotten is served as one never served (it has not had a worker
# for the last 1,024 keys' turns).
MAX_REMEMBERED_KEYS = 1024
# A key holding a worker leaves the last free one to the others while one of them has had a worker this recently:
# a client that sends every half minute or more often keeps a worker free for its next job.
SPARE_SECONDS = 30.0


class Turns(Generic[W]):
    """The waiting jobs (`W`: whatever the pool wakes a job with) by key, and the workers each key holds.

    :param spare: keep the last free worker for a key that holds none (see the module).
    :param clock: monotonic seconds (injected in tests).
    """

    def __init__(self, *, spare: bool, clock: Callable[[], float] = time.monotonic) -> None:
        self.spare = spare
        self.clock = clock
        self.waiting: dict[str, collections.deque[W]] = {}  # each key's waiting jobs, first come first
        self._served: collections.OrderedDict[str, int] = collections.OrderedDict()  # key -> its last turn
        self._served_at: dict[str, float] = {}  # key -> when it last got a worker (monotonic seconds)
        self._holding: collections.Counter[str] = collections.Counter()  # key -> workers its jobs hold now
        self._turns = 0

    def wait(self, key: str, waiter: W) -> None:
        """`key`'s job waits for a worker, behind its key's earlier ones."""
        self.waiting.setdefault(key, collections.deque()).append(waiter)

    def forget(self, key: str, waiter: W) -> None:
        """A job that stopped waiting leaves its key's queue (and the key its turn, once empty)."""
        queue = self.waiting.get(key)
        if queue is None:
            return
        if waiter in queue:
            queue.remove(waiter)
        if not queue:
            del self.waiting[key]

    def drain(self) -> list[W]:
        """Every waiting job, taken out (the pool closes)."""
        waiters = [waiter for queue in self.waiting.values() for waiter in queue]
        self.waiting.clear()
        return waiters

    def next(self, *, free: int, alive: Callable[[W], bool]) -> tuple[str, W] | None:
        """For one of `free` free workers: the first `alive` waiting job of the waiting key served longest ago that
        may take it (one never served, or forgotten, first; ties in the order the keys began to wait), taken out of
        its queue, with its key; None when no waiting key may take it."""
        while True:
            allowed = [key for key in self.waiting if self.may_take(key, free=free)]
            if not allowed:
                return None
            key = min(allowed, key=lambda waiting: self._served.get(waiting, -1))
            queue = self.waiting[key]
            waiter = queue.popleft()
            if not queue:
                del self.waiting[key]
            if alive(waiter):
                return key, waiter

    def may_take(self, key: str, *, free: int) -> bool:
        """Whether `key` may take one of `free` free workers: with a spare, the last one is kept for a key that holds
        none while another key has had a worker within SPARE_SECONDS."""
        if free > 1 or not self.spare or self._holding[key] == 0:
            return True
        other = next((served for served in reversed(self._served) if served != key), None)  # the latest other
        return other is None or self.clock() - self._served_at[other] > SPARE_SECONDS

    def hold(self, key: str) -> None:
        """`key` got a worker now: it goes behind every other key in the turn."""
        self._holding[key] += 1
        self._turns += 1
        self._served[key] = self._turns
        self._served_at[key] = self.clock()
        self._served.move_to_end(key)
        if len(self._served) > MAX_REMEMBERED_KEYS:
            forgotten, _ = self._served.popitem(last=False)
            del self._served_at[forgotten]

    def release(self, key: str) -> None:
        """A job of `key` let its worker go (answered, ended, or the worker discarded)."""
        self._holding[key] -= 1
        if self._holding[key] <= 0:
            del self._holding[key]
