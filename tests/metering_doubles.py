"""Test doubles of metering: an AdmissionStore that counts calls, one that injects faults, and a clock; made-up keys
and an account of the earlier key format."""

from __future__ import annotations

import random
import string
import uuid
from collections import Counter
from collections.abc import Callable
from datetime import datetime
from typing import TypeVar

from fileapi.metering.accounts import Account
from fileapi.metering.catalog import PlanCatalog
from fileapi.metering.keys import CHECKSUM_CHARS, KEY_PREFIX, LEGACY_RANDOM_CHARS, RANDOM_CHARS, hash_key, is_key
from fileapi.metering.state import MeterState
from fileapi.metering.storage import AccountStore, AdmissionStore, Ambiguous, Attempt, StoreUnavailable

T = TypeVar("T")


class Clock:
    """A clock of epoch microseconds that moves only when told (a Meter's `clock`)."""

    def __init__(self, now_us: int) -> None:
        self.now_us = now_us

    def __call__(self) -> int:
        return self.now_us

    def advance(self, seconds: float) -> None:
        self.now_us += round(seconds * 1_000_000)

    def set(self, instant: datetime) -> None:
        self.now_us = int(instant.timestamp() * 1_000_000)


class CountingStore(AdmissionStore):
    """Passes every call on to `inner` and counts them by method name."""

    def __init__(self, inner: AdmissionStore) -> None:
        self.inner = inner
        self.calls: Counter[str] = Counter()

    @property
    def total(self) -> int:
        return sum(self.calls.values())

    def find_account_id(self, key_hash: str) -> str | None:
        self.calls["find_account_id"] += 1
        return self.inner.find_account_id(key_hash)

    def legacy_key_prefixes(self) -> frozenset[bytes] | None:
        self.calls["legacy_key_prefixes"] += 1
        return self.inner.legacy_key_prefixes()

    def admit(self, attempt: Attempt) -> MeterState:
        self.calls["admit"] += 1
        return self.inner.admit(attempt)

    def refund(self, account_id: str, period: str, request_id: str, *, shard: int = 0, day: int) -> MeterState | None:
        self.calls["refund"] += 1
        return self.inner.refund(account_id, period, request_id, shard=shard, day=day)

    def forgive(self, account_id: str, period: str, request_id: str, *, shard: int = 0, day: int) -> MeterState | None:
        self.calls["forgive"] += 1
        return self.inner.forgive(account_id, period, request_id, shard=shard, day=day)

    def hold(self, account_id: str, *, shard: int = 0, by_us: int, now_us: int) -> MeterState | None:
        self.calls["hold"] += 1
        return self.inner.hold(account_id, shard=shard, by_us=by_us, now_us=now_us)

    def read(self, account_id: str, *, shard: int = 0) -> MeterState | None:
        self.calls["read"] += 1
        return self.inner.read(account_id, shard=shard)

    def read_shards(self, account_id: str) -> list[MeterState]:
        self.calls["read_shards"] += 1
        return self.inner.read_shards(account_id)

    def move_quota(self, source: MeterState, target: int, units: int) -> bool:
        self.calls["move_quota"] += 1
        return self.inner.move_quota(source, target, units)


class FaultyStore(AdmissionStore):
    """Passes calls on to `inner`, injecting the faults a real store shows, each with its own probability:

    - unavailable: the write is not applied and StoreUnavailable is raised (throttled after the retries);
    - lost: the write is applied and its reply lost (Ambiguous);
    - unsent: the write is not applied and looks lost (Ambiguous: a timeout before it arrived).
    `script` (a list of fault names, consumed first) makes the sequence deterministic.
    """

    def __init__(
        self,
        inner: AdmissionStore,
        *,
        unavailable: float = 0.0,
        lost: float = 0.0,
        unsent: float = 0.0,
        seed: int = 7,
        script: list[str] | None = None,
    ) -> None:
        self.inner = inner
        self.rates = {"unavailable": unavailable, "lost": lost, "unsent": unsent}
        self.random = random.Random(seed)
        self.script = list(script or [])
        self.injected: Counter[str] = Counter()

    def _fault(self) -> str | None:
        if self.script:
            fault = self.script.pop(0)
            return None if fault == "ok" else fault
        roll = self.random.random()
        for name, rate in self.rates.items():
            if roll < rate:
                return name
            roll -= rate
        return None

    def _write(self, operation: Callable[[], T]) -> T:
        fault = self._fault()
        if fault is not None:
            self.injected[fault] += 1
        if fault == "unavailable":
            raise StoreUnavailable("injected: throttled")
        if fault == "unsent":
            raise Ambiguous("injected: timed out before arriving")
        result = operation()
        if fault == "lost":
            raise Ambiguous("injected: reply lost")
        return result

    def find_account_id(self, key_hash: str) -> str | None:
        return self.inner.find_account_id(key_hash)

    def legacy_key_prefixes(self) -> frozenset[bytes] | None:
        return self.inner.legacy_key_prefixes()

    def admit(self, attempt: Attempt) -> MeterState:
        return self._write(lambda: self.inner.admit(attempt))

    def refund(self, account_id: str, period: str, request_id: str, *, shard: int = 0, day: int) -> MeterState | None:
        return self._write(lambda: self.inner.refund(account_id, period, request_id, shard=shard, day=day))

    def forgive(self, account_id: str, period: str, request_id: str, *, shard: int = 0, day: int) -> MeterState | None:
        return self._write(lambda: self.inner.forgive(account_id, period, request_id, shard=shard, day=day))

    def hold(self, account_id: str, *, shard: int = 0, by_us: int, now_us: int) -> MeterState | None:
        return self._write(lambda: self.inner.hold(account_id, shard=shard, by_us=by_us, now_us=now_us))

    def read(self, account_id: str, *, shard: int = 0) -> MeterState | None:
        return self.inner.read(account_id, shard=shard)

    def read_shards(self, account_id: str) -> list[MeterState]:
        return self.inner.read_shards(account_id)

    def move_quota(self, source: MeterState, target: int, units: int) -> bool:
        return self._write(lambda: self.inner.move_quota(source, target, units))


def put_earlier_format_account(store: AccountStore, key: str) -> Account:
    """An account holding an earlier-format key, as the earlier release made it (this one issues none)."""
    account = Account(
        account_id=uuid.uuid4().hex,
        email=f"{uuid.uuid4().hex}@example.com",
        plan="pro",
        status="active",
        key_hash=hash_key(key),
    )
    store.create_account(account, account.limits_under(PlanCatalog(store).get("pro")))
    return account


def made_up_keys(count: int, seed: int) -> list[str]:
    """`count` keys of each format that no account holds: earlier-format shapes (which only the set can tell from a
    real one), then current-format shapes whose checksum does not match (as a typo or a guess has)."""
    rng = random.Random(seed)
    urlsafe = string.ascii_letters + string.digits + "_-"
    earlier = [KEY_PREFIX + "".join(rng.choice(urlsafe) for _ in range(LEGACY_RANDOM_CHARS)) for _ in range(count)]
    current: list[str] = []
    while len(current) < count:
        key = KEY_PREFIX + "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(RANDOM_CHARS))
        key += "".join(rng.choice(string.ascii_letters) for _ in range(CHECKSUM_CHARS))
        if not is_key(key):
            current.append(key)
    return earlier + current
