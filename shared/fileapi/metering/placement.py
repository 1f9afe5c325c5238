"""Shard placement: which of a key's admission items a request goes to, how quota follows the tokens
between them, and what the headers say of the key over all of them.

A sharded key's request goes to its shards in turn, and to the next one when a shard has no token or no
quota left; quota moves from a shard that has tokens to spare no more to one that has, so the key as a
whole admits what its plan allows. What this process knows of each shard is its `KeyEntry`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from fileapi.metering.cache import KeyEntry
from fileapi.metering.headers import KeyView, bucket_view
from fileapi.metering.ratelimit import Bucket
from fileapi.metering.state import MeterState
from fileapi.metering.storage import AdmissionStore, guarded

_FIRST_ONLY = (0,)


def pick(
    store: AdmissionStore, entry: KeyEntry, now_us: int, period: str, *, counted: bool, advance: bool = True
) -> int | None:
    """The next shard to try, in turn, among those not known to refuse; None when every shard is known to
    refuse and no quota could be moved to one that has tokens.

    :param advance: move the turn on, and move quota when that opens a shard; False only asks whether a
        shard is open (then 0 when quota could be moved).
    """
    open_shards: Sequence[int]
    if entry.shards == 1:  # most keys: the one item, without a list of one
        open_shards = () if entry.refuses(0, now_us, period, counted=counted) else _FIRST_ONLY
    else:
        shards = range(entry.shards)
        open_shards = [shard for shard in shards if not entry.refuses(shard, now_us, period, counted=counted)]
    if open_shards:
        chosen = open_shards[entry.cursor % len(open_shards)]
        if advance:
            entry.cursor += 1
        return chosen
    movable = _movable(entry, now_us, period)
    if movable is not None:
        if not advance:
            return 0  # not known to be refused: a shard's quota can move to one that has tokens
        taker = shift(store, entry, *movable, period=period)
        if taker is not None:
            return taker
    return None


def rate_wait_us(entry: KeyEntry, now_us: int) -> int | None:
    """Microseconds until the first shard out of tokens has one again (None: no shard is out of tokens)."""
    blocked = [entry.rate_blocked_until_us[shard] for shard in range(entry.shards) if entry.blocked(shard, now_us)]
    return min(blocked) - now_us if blocked else None


def rebalance(store: AdmissionStore, entry: KeyEntry, dry: MeterState, period: str) -> bool:
    """Move half the unused quota of the shard this process believes has most to the dry one `dry`;
    True when moved (the move checks the donor's counts, so the hard cap holds whatever was believed)."""
    donors = [
        state
        for shard, state in entry.states.items()
        if shard != dry.shard and state.period == period and state.remaining_in(period) >= 2
    ]
    if not donors or dry.period != period:
        return False
    donor = max(donors, key=lambda state: state.remaining_in(period))
    units = donor.remaining_in(period) // 2
    if not guarded(lambda: store.move_quota(donor, dry.shard, units)):
        return False
    entry.states[donor.shard] = replace(donor, quota=donor.quota - units)
    entry.states[dry.shard] = replace(dry, quota=dry.quota + units)
    return True


def _movable(entry: KeyEntry, now_us: int, period: str) -> tuple[MeterState, int] | None:
    """A shard out of tokens that has quota left, and a shard out of quota that has tokens: the key as a
    whole has both, so its quota should follow its tokens (None when there is no such pair)."""
    donors = [
        state
        for shard, state in entry.states.items()
        if entry.blocked(shard, now_us) and state.period == period and state.remaining_in(period) > 0
    ]
    takers = [
        shard
        for shard in range(entry.shards)
        if entry.dry(shard, period, now_us) and not entry.blocked(shard, now_us) and shard in entry.states
    ]
    if not donors or not takers:
        return None
    return max(donors, key=lambda state: state.remaining_in(period)), takers[0]


def shift(store: AdmissionStore, entry: KeyEntry, donor: MeterState, taker: int, *, period: str) -> int | None:
    """Move half (at least one) of `donor`'s unused quota to shard `taker`; the taker when it moved."""
    units = max(1, donor.remaining_in(period) // 2)
    if not guarded(lambda: store.move_quota(donor, taker, units)):
        entry.rate_blocked_until_us.pop(donor.shard, None)  # what was believed is stale: ask again
        return None
    entry.states[donor.shard] = replace(donor, quota=donor.quota - units)
    entry.states[taker] = replace(entry.states[taker], quota=entry.states[taker].quota + units)
    entry.quota_dry.pop(taker, None)
    return taker


def key_view(entry: KeyEntry, now_us: int, period: str, *, bucket: Bucket | None = None) -> KeyView:
    """The headers' figures for the key: exact on one item; summed over what this process knows of each
    shard (a shard it has not seen counted as full) on several.

    :param bucket: a bucket the caller has made already (its admission's): used when it is the first item's at
        `now_us`, else one is made.
    """
    first = entry.states[0]
    if (
        bucket is None
        or bucket.now_us != now_us
        or bucket.interval_us != first.interval_us
        or bucket.tolerance_us != first.interval_us * first.burst
    ):
        bucket = Bucket.of(now_us, interval_us=first.interval_us, burst=first.burst)
    if entry.shards == 1:
        return bucket_view(bucket, first.tat_us, first.remaining_in(period))
    states = [entry.states.get(shard) for shard in range(entry.shards)]
    return KeyView(
        limit=first.burst * entry.shards,
        remaining=sum(bucket.remaining_after(state.tat_us) if state else first.burst for state in states),
        reset_seconds=max(bucket.reset_seconds(state.tat_us) for state in states if state),
        window_seconds=bucket.window_seconds,
        quota_remaining=sum(
            state.remaining_in(period) if state and state.period >= period else first.base_quota for state in states
        ),
    )


def unseen(first: MeterState, shard: int) -> MeterState:
    """A guess at shard `shard` from the first shard's item (the same limits and month, a full bucket): a
    wrong guess costs one refused write, which brings the item as it is."""
    return replace(first, shard=shard, tat_us=0, used=0, forgiven=0, quota=first.base_quota)
