"""The closed set of earlier-format keys, held in memory so that a made-up one costs no store call.

A key of the earlier format (`sk_live_` and 43 URL-safe characters) has no checksum, so its shape says
nothing about whether it exists. But the set is closed: none is issued any more (`admin.issue_key` refuses
the format), so it can only shrink. The table holds it once, as the first `PREFIX_BYTES` bytes of each
key's SHA-256 (built by `fileapi tables migrate` from the KEY items present then; a rotation takes the old
key's prefix out). A process loads it on the first earlier-format key it meets and looks up only a key whose
prefix is in it: a made-up key of that format is refused from memory. A stale prefix (a key rotated away by
another process) costs one lookup, after which the set is loaded again, at most once per `RELOAD_SECONDS`.
A table without the set (not migrated yet) looks every earlier-format key up, as before.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable

from fileapi.metering.months import MICROS

# 8 bytes of the hash: two of 48,000 keys share a prefix with probability 48,000**2 / 2**65 (1 in 16 billion),
# so taking a rotated key's prefix out never drops another's; 48,000 of them fit DynamoDB's 400 KB item.
PREFIX_BYTES = 8
MAX_KEYS = 48_000
RELOAD_SECONDS = 60


def prefix_of(key_hash: str) -> bytes:
    """The stored prefix of a key's SHA-256 hex digest: its first PREFIX_BYTES bytes."""
    return bytes.fromhex(key_hash[: 2 * PREFIX_BYTES])


def prefixes_of(key_hashes: Iterable[str]) -> frozenset[bytes]:
    """The set of the prefixes of `key_hashes`.

    :raises ValueError: more than MAX_KEYS hashes (the set would not fit its item).
    """
    prefixes = frozenset(prefix_of(key_hash) for key_hash in key_hashes)
    if len(prefixes) > MAX_KEYS:
        raise ValueError(f"{len(prefixes)} earlier-format keys: the set holds at most {MAX_KEYS}")
    return prefixes


class LegacyKeySet:
    """One process's copy of the set, loaded on first use.

    :param load: reads the set from the store: the prefixes, or None when the table has none (every
        earlier-format key is then looked up).
    """

    def __init__(self, load: Callable[[], frozenset[bytes] | None]) -> None:
        self._load = load
        self._prefixes: frozenset[bytes] | None = None
        self._loaded_at_us: int | None = None
        self._stale = False
        self._lock = threading.Lock()

    def may_exist(self, key_hash: str, now_us: int) -> bool:
        """False when the earlier-format key hashing to `key_hash` is surely no account's (no store call
        once loaded); True when it must be looked up."""
        with self._lock:
            if self._loaded_at_us is None or (self._stale and now_us - self._loaded_at_us >= RELOAD_SECONDS * MICROS):
                self._prefixes = self._load()
                self._loaded_at_us = now_us
                self._stale = False
            return self._prefixes is None or prefix_of(key_hash) in self._prefixes

    def found_missing(self) -> None:
        """A key that `may_exist` let through has no account: the set is stale (another process rotated a
        key away): it is loaded again on a later use, at most once per RELOAD_SECONDS."""
        with self._lock:
            self._stale = True
