"""The storage interfaces of metering, narrow by purpose.

- `AdmissionStore`: what one metered request needs: find the account of a key, admit (one
  conditional write that checks the key, the subscription, the rate bucket and the quota, and
  takes a token and reserves a unit), refund a reserved unit, read the admission item.
- `AccountStore`: what account management needs: create, look up, change plan or status,
  rotate the key, recovery codes, webhook event claims, abuse throttles.

The logic over them (`meter`, `placement`, `settling`, `admin`) is plain code; `fileapi.metering.dynamo`
implements them, and the tests run the same behaviour against an in-memory implementation as well.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import TypeVar

from fileapi.errors import ServiceUnavailable
from fileapi.metering.accounts import Account, Limits
from fileapi.metering.months import day_of
from fileapi.metering.plans import Plan
from fileapi.metering.ratelimit import Bucket
from fileapi.metering.state import MeterState, request_tag
from fileapi.storage.errors import Ambiguous as Ambiguous  # the storage room's, named where metering's users look
from fileapi.storage.errors import StoreError as StoreError
from fileapi.storage.errors import StoreUnavailable as StoreUnavailable


class Refused(StoreError):
    """A conditional write's condition failed; nothing was changed. `state` is the item as it was
    (None when there is no such item)."""

    def __init__(self, state: MeterState | None) -> None:
        super().__init__("condition failed")
        self.state = state


_T = TypeVar("_T")


def guarded(operation: Callable[[], _T]) -> _T:
    """Run a store operation; a store that cannot be reached fails the request closed (503).

    :raises ServiceUnavailable: the operation raised StoreUnavailable.
    """
    try:
        return operation()
    except StoreUnavailable as exc:
        raise ServiceUnavailable(
            f"the account store is unavailable ({exc}); the request was not processed or counted"
        ) from None


class BucketEmpty(StoreError):
    """The token bucket has no token now; `tat_us` is its stored theoretical arrival time."""

    def __init__(self, tat_us: int) -> None:
        super().__init__(f"bucket empty until {tat_us}")
        self.tat_us = tat_us


class AccountExists(StoreError):
    """An account with that e-mail address or key already exists."""


class NoSuchAccount(StoreError):
    """The account to change does not exist."""


class KeyChanged(StoreError):
    """The account's key is no longer the one the caller saw (a concurrent rotation)."""


class CodeRejected(StoreError):
    """A recovery code that is wrong, expired, used or absent."""


@dataclass(frozen=True)
class PendingDelivery:
    """A key issued and not yet known to have reached its holder: the e-mail that carries it.

    :param key: the key in clear, kept only until the message is sent.
    :param attempts: sends that failed so far.
    """

    account_id: str
    email: str
    plan: str
    key: str
    attempts: int = 0


@dataclass(frozen=True)
class RecoveryCode:
    """One recovery code of an address: its hash, the account it recovers (None: the address has no
    account; such codes are stored all the same, so that both cases cost the same) and its state."""

    code_hash: str
    account_id: str | None
    valid_until: int
    used: bool = False


class BucketCase(Enum):
    """Which of GCRA's two updates an attempt makes (a conditional write cannot take max(TAT, now)).

    IDLE: the bucket is full (TAT <= now): TAT becomes now + interval.
    BUSY: tokens were taken recently (now <= TAT <= ceiling): TAT advances by one interval.
    """

    IDLE = "idle"
    BUSY = "busy"


@dataclass(frozen=True, slots=True)
class Attempt:
    """One admission write: its expectations (the condition) and its effect.

    :param expected: the admission item as the caller believes it is: key hash, limits and period
        are conditions (a stale cache fails the condition and learns the truth from the refusal).
    :param bucket: GCRA parameters at this instant; `case` says which update is tried.
    :param reserve: reserve one unit of the month's quota (a counted request); else only a token.
    :param new_month: the stored period is older than `period`: start `period` (its count from 0,
        the closed month's counts kept as prev_used and prev_forgiven), in the same write.
    :param request_id: its tag is written with the change, so that a read-back can tell whether it applied.
    :param shard: which of the key's items the write goes to.
    """

    account_id: str
    key_hash: str
    interval_us: int
    burst: int
    period: str
    bucket: Bucket
    case: BucketCase
    reserve: bool
    new_month: bool
    request_id: str
    shard: int = 0

    @property
    def new_tat_if_idle(self) -> int:
        return self.bucket.now_us + self.bucket.interval_us

    @property
    def tag(self) -> tuple[int, str]:
        """The slot and the tag this admission writes (see `fileapi.metering.state.request_tag`)."""
        return request_tag(self.request_id)

    @property
    def day(self) -> int:
        """The day of `period` this admission's unit counts on (see `fileapi.metering.months.day_of`)."""
        return day_of(self.bucket.now_us, self.period)


class AdmissionStore(ABC):
    """Primitives of the metered request path. Every method may raise StoreUnavailable (nothing applied)."""

    @abstractmethod
    def find_account_id(self, key_hash: str) -> str | None:
        """The id of the account whose active key hashes to `key_hash`, or None.

        The link of a key to its account never changes (a rotated key's link is deleted), so a
        process may cache the answer; the admission write itself checks the key is still current.
        """

    @abstractmethod
    def legacy_key_prefixes(self) -> frozenset[bytes] | None:
        """The set of earlier-format keys (`fileapi.metering.legacy_keys`): the first 8 bytes of each one's
        SHA-256, or None when the store holds no set (every earlier-format key is then looked up)."""

    @abstractmethod
    def admit(self, attempt: Attempt) -> MeterState:
        """Apply `attempt` in one atomic conditional write and return the item after it.

        The condition: the item exists; its key hash is `attempt.key_hash`; its status is active
        (active or trialing); its interval and burst are the attempt's; its period is
        `attempt.period` (for `new_month`: older than it); for `reserve`, used < quota (for
        `new_month`: quota > 0); and the bucket case holds (IDLE: tat <= now; BUSY: now <= tat <=
        ceiling). The effect: TAT moves (IDLE: now + interval; BUSY: tat + interval); for `reserve`
        used and the count of `attempt.day` grow by one (`new_month`: the closed month's counts move to
        prev_*, and used starts at 1, or 0 without `reserve`, forgiven at 0, quota at base_quota, the days
        at none but `attempt.day`'s); the attempt's tag is written in its slot. All of it on the item of
        `attempt.shard`.

        Raise Refused(item as it was, or None) when any part of the condition fails; nothing changes.
        Raise Ambiguous when the write was sent and its outcome is unknown.
        """

    @abstractmethod
    def refund(self, account_id: str, period: str, request_id: str, *, shard: int = 0, day: int) -> MeterState | None:
        """Give back the unit that request `request_id` reserved in `period`, on its `day` (1-31), on `shard`.

        One conditional write, where `fileapi.metering.state.settle_target` says: used - 1 and the day's
        count - 1 when the item's period is `period` (usually one write: the admission's own day), else
        prev_used - 1 when prev_period is `period` and prev_used > 0 (the month turned meanwhile);
        `last_refund` becomes `request_id`, and a refund whose `last_refund` is already `request_id`
        changes nothing. Returns the item after the refund (or as it was, when this refund had
        applied), or None when there was nothing to refund. May raise Ambiguous, and StoreUnavailable
        when the item kept changing under the write.
        """

    @abstractmethod
    def forgive(self, account_id: str, period: str, request_id: str, *, shard: int = 0, day: int) -> MeterState | None:
        """Do not charge the unit of `request_id`, whose outcome is unknown, without giving it back:
        forgiven + 1 and its `day`'s count - 1 in `period` (or prev_forgiven + 1 when the month turned), so
        the hard cap keeps counting it and the charge does not. `last_forgiven` works as `last_refund` does
        for refund. Returns the item after it, or None when the item has no such month or nothing charged.
        May raise Ambiguous, and StoreUnavailable as refund does.
        """

    @abstractmethod
    def hold(self, account_id: str, *, shard: int = 0, by_us: int, now_us: int) -> MeterState | None:
        """Move the token bucket of the account's item `shard` forward by `by_us` microseconds from max(TAT,
        `now_us`), as if its key had sent that long's worth of requests at its sustained rate (a job ended for
        time charged to the key's rate). Returns the item after it; None when there is no such item. Untagged:
        a retry after a lost reply may move it twice, which only delays the key that earned it.
        May raise StoreUnavailable when the item kept changing under the write.
        """

    @abstractmethod
    def read(self, account_id: str, *, shard: int = 0) -> MeterState | None:
        """One admission item, read consistently (None when there is none)."""

    @abstractmethod
    def read_shards(self, account_id: str) -> list[MeterState]:
        """Every admission item of the account, by shard (empty when there is no account)."""

    @abstractmethod
    def move_quota(self, source: MeterState, target: int, units: int) -> bool:
        """Move `units` of the month's quota from shard `source.shard` to shard `target`, all or nothing:
        only while the source's quota is still `source.quota`, its used at most `source.quota - units`,
        and both items are in `source.period`. False when those conditions do not hold (nothing moved).
        The total quota of the key never changes, so the hard cap holds."""


class AccountStore(ABC):
    """Primitives of account management. Every method may raise StoreUnavailable."""

    @abstractmethod
    def create_account(
        self, account: Account, limits: Limits, *, deliver_key: str | None = None, shared_email: bool = False
    ) -> None:
        """Store a new account with its key link, e-mail index, customer link and `limits.shards` admission
        items, all or nothing; its items start with full buckets and no month counted.

        :param deliver_key: the account's key in clear: a PendingDelivery of it is stored in the same write.
        :param shared_email: the address may already be another account's (an account of another payment
            customer); False: the address must be no account's yet.

        Raise AccountExists if the key or the customer is taken, or (without `shared_email`) the address.
        """

    @abstractmethod
    def get_account(self, account_id: str) -> Account | None:
        """The account with this id, or None."""

    @abstractmethod
    def get_account_by_key(self, key_hash: str) -> Account | None:
        """The account whose active key hashes to `key_hash`, or None."""

    @abstractmethod
    def get_account_by_email(self, email: str) -> Account | None:
        """The first account made with this e-mail address (compared in lower case), or None."""

    @abstractmethod
    def get_accounts_by_email(self, email: str) -> list[Account]:
        """Every account with this e-mail address (compared in lower case), the first one made first."""

    @abstractmethod
    def get_account_by_customer(self, customer_id: str) -> Account | None:
        """The account linked to the payment provider's customer id, or None."""

    @abstractmethod
    def update_account(self, account: Account, limits: Limits, *, period: str) -> None:
        """Replace the stored plan, status, overrides and customer id of an existing account (not its key
        or e-mail), and the limits its admission items enforce, all or nothing: items are added or removed
        when the number of shards changes, the month `period`'s count is kept (a removed item's count
        moves to the first) and what is left of the new quota is spread over the items, so the hard cap
        is the new quota. Processes that cached the old limits learn them on their next admission.

        Raise NoSuchAccount when there is no such account.
        """

    @abstractmethod
    def list_accounts(self, *, limit: int = 1000) -> list[Account]:
        """Accounts, in no particular order, at most `limit` (an administrative scan)."""

    @abstractmethod
    def replace_key(self, account: Account, new_key_hash: str) -> Account:
        """Make `new_key_hash` the account's only key, all or nothing: the old key stops working at once
        (its link is deleted and the admission item's key hash changes, which every cached admission checks).

        The old key's prefix leaves the set of earlier-format keys, if it was there.

        Raise KeyChanged if the account's key is no longer `account.key_hash`.
        """

    @abstractmethod
    def seal_legacy_keys(self) -> int | None:
        """Store the set of earlier-format keys (`fileapi.metering.legacy_keys`) from the key links present now,
        unless the store holds one already: it is built once, when no key of that format is issued any more.
        Returns the number of keys in it, or None when a set was there.

        Raise ValueError when there are more keys than the set holds (nothing is stored).
        """

    @abstractmethod
    def pending_delivery(self, account_id: str) -> PendingDelivery | None:
        """The account's key delivery that was stored and not yet marked delivered, or None."""

    @abstractmethod
    def mark_delivered(self, account_id: str) -> None:
        """The delivery's message was sent: forget the key in clear (idempotent)."""

    @abstractmethod
    def note_delivery_failure(self, account_id: str) -> int:
        """Count one failed send of the account's pending delivery; returns the failures so far."""

    @abstractmethod
    def list_pending_deliveries(self, *, limit: int = 1000) -> list[PendingDelivery]:
        """Deliveries not marked delivered, in no particular order, at most `limit` (an administrative scan)."""

    @abstractmethod
    def add_recovery_code(self, email: str, code: RecoveryCode, *, expires_at: int) -> None:
        """Store one more recovery code of the address; codes issued before stay valid. `expires_at` (epoch
        seconds) is when the item may be deleted."""

    @abstractmethod
    def recovery_codes(self, email: str) -> list[RecoveryCode]:
        """The address's stored recovery codes (used and expired ones included until they are deleted)."""

    @abstractmethod
    def use_recovery_code(self, email: str, code_hash: str, *, now: int) -> None:
        """Mark the code used if it exists, is unexpired (valid_until > now) and unused; exactly one
        concurrent caller can succeed. Otherwise raise CodeRejected."""

    @abstractmethod
    def claim_event(self, event_id: str, *, expires_at: int) -> bool:
        """Record a webhook event id; False when it was recorded before (a replay or a concurrent delivery)."""

    @abstractmethod
    def release_event(self, event_id: str) -> None:
        """Forget a claimed event id (its processing failed, so the provider's retry may run it)."""

    @abstractmethod
    def put_plan(self, plan: Plan) -> None:
        """Store a custom plan (replacing one of the same name)."""

    @abstractmethod
    def get_plan(self, name: str) -> Plan | None:
        """The custom plan called `name`, or None."""

    @abstractmethod
    def list_plans(self) -> list[Plan]:
        """The custom plans, by name."""

    @abstractmethod
    def throttle(self, subject: str, bucket: Bucket, *, expires_at: int) -> int:
        """Take one token from the bucket named `subject` (abuse limits such as recovery requests per
        address); return its new TAT. Raise BucketEmpty when it has none; `expires_at` (epoch
        seconds) is when the bucket's item may be deleted."""


@dataclass(frozen=True)
class Stores:
    """The two stores of one table, as the services use them."""

    admission: AdmissionStore
    accounts: AccountStore
