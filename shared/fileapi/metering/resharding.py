"""How a plan change lays a key's admission items out again (pure: both stores apply the result).

The month's count is kept: a removed item's count (and its count per day) moves to the first item, and what is
left of the new quota is spread over the items, so the items' quotas add up to the new quota and the hard cap holds
whatever requests are admitted meanwhile (each item's quota is set to the count read plus its share,
and requests admitted after the read take from that share).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from fileapi.metering.accounts import Limits
from fileapi.metering.state import DAYS, NO_DAYS, MeterState


class Action(Enum):
    UPDATE = "update"  # an item already counting the month: new limits and quota
    START = "start"  # an item still on an older month: the month starts with the change
    CREATE = "create"  # a new item (more shards)
    REMOVE = "remove"  # an item no longer needed (fewer shards): its count moves to shard 0


@dataclass(frozen=True)
class ShardChange:
    """What happens to one item. `quota` is its absolute quota for the month; `add_used`/`add_forgiven`/`add_days`
    are counts moved into it from removed items (shard 0 only); `seen` is the item as read (conditions)."""

    shard: int
    action: Action
    quota: int
    base_quota: int
    add_used: int = 0
    add_forgiven: int = 0
    add_days: tuple[int, ...] = NO_DAYS
    seen: MeterState | None = None


def layout(states: list[MeterState], limits: Limits, period: str) -> list[ShardChange]:
    """The changes that give a key whose items are `states` (by shard) the limits `limits` in `period`."""
    used = {state.shard: state.used_in(period) for state in states}
    forgiven = {state.shard: state.forgiven if state.period == period else 0 for state in states}
    removed = [state for state in states if state.shard >= limits.shards]
    moved_used = sum(used[state.shard] for state in removed)
    moved_forgiven = sum(forgiven[state.shard] for state in removed)
    moved_days = tuple(sum(state.days[day] for state in removed if state.period == period) for day in range(DAYS))
    remaining = max(0, limits.quota_monthly - sum(used.values()))
    by_shard = {state.shard: state for state in states}
    changes: list[ShardChange] = []
    for shard in range(limits.shards):
        share = limits.quota_share(shard, remaining)
        seen = by_shard.get(shard)
        moved = (moved_used, moved_forgiven, moved_days) if shard == 0 else (0, 0, NO_DAYS)
        changes.append(
            ShardChange(
                shard=shard,
                action=_action(seen, period),
                quota=used.get(shard, 0) + moved[0] + share,
                base_quota=limits.quota_share(shard),
                add_used=moved[0],
                add_forgiven=moved[1],
                add_days=moved[2],
                seen=seen,
            )
        )
    changes += [ShardChange(state.shard, Action.REMOVE, 0, 0, seen=state) for state in removed]
    return changes


def _action(seen: MeterState | None, period: str) -> Action:
    if seen is None:
        return Action.CREATE
    return Action.UPDATE if seen.period == period else Action.START
