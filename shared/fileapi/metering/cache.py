"""What one process remembers about keys, so that warm requests cost one write and refusals none.

- key hash → account id: a key's link never changes (a rotated key's link is deleted, and the
  admission write checks the key hash, so a stale entry is refused on its next use).
- the last admission item seen of each of the key's shards: the limits and the bucket's TAT for the
  next attempt's condition.
- known refusals: a shard whose bucket is empty until it has a token again; a shard whose quota is used
  up until the month turns (re-checked every `QUOTA_RECHECK_SECONDS`, so a plan upgrade applies); an
  inactive subscription for `INACTIVE_SECONDS` (a reactivation applies within that time; at once in
  the process that handled it); an unknown or rotated key for `UNKNOWN_KEY_SECONDS`.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field

from fileapi.metering.months import MICROS
from fileapi.metering.state import MeterState

QUOTA_RECHECK_SECONDS = 30
INACTIVE_SECONDS = 5
UNKNOWN_KEY_SECONDS = 60
MAX_ENTRIES = 10_000


@dataclass
class KeyEntry:
    """What is known of one key in this process, shard by shard."""

    account_id: str
    shards: int = 1
    states: dict[int, MeterState] = field(default_factory=dict)
    seen_at_us: dict[int, int] = field(default_factory=dict)  # when each state was read or written
    rate_blocked_until_us: dict[int, int] = field(default_factory=dict)
    quota_dry: dict[int, str] = field(default_factory=dict)  # shard -> the month it has no quota left in
    quota_recheck_at_us: int = 0
    inactive_until_us: int = 0
    cursor: int = 0

    def forget_shards(self, shards: int) -> None:
        """The key was laid out again over `shards` items: what was known of the old ones is void."""
        self.shards = shards
        self.states = {}
        self.seen_at_us = {}
        self.rate_blocked_until_us = {}
        self.quota_dry = {}

    def blocked(self, shard: int, now_us: int) -> bool:
        return self.rate_blocked_until_us.get(shard, 0) > now_us

    def dry(self, shard: int, period: str, now_us: int) -> bool:
        return self.quota_dry.get(shard) == period and now_us < self.quota_recheck_at_us

    def refuses(self, shard: int, now_us: int, period: str, *, counted: bool) -> bool:
        """Whether `shard` is known to refuse now: out of tokens, or (for a counted request) out of quota."""
        return self.blocked(shard, now_us) or (counted and self.dry(shard, period, now_us))


class KeyCache:
    """A bounded, thread-safe map of key hash → KeyEntry, with a short-lived set of unknown keys."""

    def __init__(self, *, max_entries: int = MAX_ENTRIES) -> None:
        self.max_entries = max_entries
        self._entries: OrderedDict[str, KeyEntry] = OrderedDict()
        self._unknown: OrderedDict[str, int] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key_hash: str) -> KeyEntry | None:
        with self._lock:
            entry = self._entries.get(key_hash)
            if entry is not None:
                self._entries.move_to_end(key_hash)
            return entry

    def add(self, key_hash: str, account_id: str) -> KeyEntry:
        with self._lock:
            entry = self._entries.get(key_hash)
            if entry is None or entry.account_id != account_id:
                entry = self._entries[key_hash] = KeyEntry(account_id)
            self._unknown.pop(key_hash, None)
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)
            return entry

    def is_unknown(self, key_hash: str, now_us: int) -> bool:
        """True while `key_hash` is remembered as no account's key."""
        with self._lock:
            until = self._unknown.get(key_hash)
            if until is None:
                return False
            if until <= now_us:
                del self._unknown[key_hash]
                return False
            return True

    def mark_unknown(self, key_hash: str, now_us: int) -> None:
        """Forget the key's entry and remember for a while that no account holds it."""
        with self._lock:
            self._entries.pop(key_hash, None)
            self._unknown[key_hash] = now_us + UNKNOWN_KEY_SECONDS * MICROS
            while len(self._unknown) > self.max_entries:
                self._unknown.popitem(last=False)

    def drop_account(self, account_id: str) -> None:
        """Forget the entries of the account's keys (they are looked up again on next use)."""
        with self._lock:
            for key_hash in [key for key, entry in self._entries.items() if entry.account_id == account_id]:
                del self._entries[key_hash]

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._unknown.clear()
