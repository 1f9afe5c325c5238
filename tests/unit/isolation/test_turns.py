"""Whose job a free worker goes to (fileapi.isolation.turns): keys take turns, and the last free worker is kept
for the other keys while one of them has had a worker lately."""

from __future__ import annotations

from fileapi.isolation.turns import SPARE_SECONDS, Turns


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_free_worker_goes_to_the_waiting_key_served_longest_ago_in_its_order() -> None:
    turns: Turns[str] = Turns(spare=False)
    for key in ("a", "b"):
        turns.hold(key)
    for key, job in (("a", "a1"), ("a", "a2"), ("b", "b1"), ("c", "c1")):
        turns.wait(key, job)
    taken = []
    while (pair := turns.next(free=1, alive=lambda job: True)) is not None:
        turns.hold(pair[0])  # as the pool does when it hands the worker over
        taken.append(pair[1])
    assert taken == ["c1", "a1", "b1", "a2"]
    assert turns.next(free=1, alive=lambda job: True) is None


def test_a_job_that_stopped_waiting_is_skipped_and_forgotten() -> None:
    turns: Turns[str] = Turns(spare=False)
    for job in ("gone", "here"):
        turns.wait("a", job)
    turns.wait("b", "left")
    turns.forget("b", "left")
    assert turns.next(free=1, alive=lambda job: job != "gone") == ("a", "here")
    assert turns.waiting == {}


def test_without_a_spare_a_key_holding_workers_takes_the_last_free_one() -> None:
    turns: Turns[str] = Turns(spare=False)
    turns.hold("busy")
    turns.hold("other")
    assert turns.may_take("busy", free=1)


def test_the_last_free_worker_is_kept_while_another_key_had_one_lately() -> None:
    clock = Clock()
    turns: Turns[str] = Turns(spare=True, clock=clock)
    turns.hold("neighbour")
    turns.release("neighbour")
    turns.hold("busy")
    # a key holding a worker: not the last free one, but one of two; a key holding none: any
    assert not turns.may_take("busy", free=1)
    assert turns.may_take("busy", free=2)
    assert turns.may_take("neighbour", free=1)
    # WHEN the neighbour has had no worker for SPARE_SECONDS THEN the busy key may take the last one
    clock.now += SPARE_SECONDS + 0.1
    assert turns.may_take("busy", free=1)


def test_a_key_alone_takes_every_worker() -> None:
    turns: Turns[str] = Turns(spare=True, clock=Clock())
    turns.hold("alone")
    turns.hold("alone")
    assert turns.may_take("alone", free=1)


def test_a_waiting_key_that_may_not_take_the_last_worker_leaves_it_to_one_that_may() -> None:
    turns: Turns[str] = Turns(spare=True, clock=Clock())
    turns.hold("neighbour")
    turns.hold("busy")
    turns.release("neighbour")  # one worker free now, the busy key holds the other
    turns.wait("busy", "busy-2")
    assert turns.next(free=1, alive=lambda job: True) is None  # kept: the busy key waits for a second free worker
    turns.wait("neighbour", "neighbour-2")
    assert turns.next(free=1, alive=lambda job: True) == ("neighbour", "neighbour-2")
    turns.hold("neighbour")
    turns.release("busy")  # the busy key's first job ends: it holds none, and its next job goes on
    assert turns.next(free=1, alive=lambda job: True) == ("busy", "busy-2")
