"""The storage interface of metering: accounts, keys and per-month usage.

The metering logic (`fileapi.metering.meter`) is plain code over these primitives; the
DynamoDB implementation (`fileapi.metering.dynamodb`) provides them with conditional
atomic updates. A sharded or leased implementation can replace it without touching the
web layer.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

from fileapi.metering.accounts import Account
from fileapi.metering.ratelimit import Bucket


class StoreError(Exception):
    """Base of the store's domain errors."""


class BucketEmpty(StoreError):
    """The token bucket has no token now; `tat_us` is its stored theoretical arrival time."""

    def __init__(self, tat_us: int) -> None:
        super().__init__(f"bucket empty until {tat_us}")
        self.tat_us = tat_us


class QuotaUsedUp(StoreError):
    """The month's quota is used up; `used` is the stored count."""

    def __init__(self, used: int) -> None:
        super().__init__(f"quota used up ({used})")
        self.used = used


class AccountExists(StoreError):
    """An account with that e-mail address or key already exists."""


class KeyChanged(StoreError):
    """The account's key is no longer the one the caller saw (a concurrent rotation)."""


class CodeRejected(StoreError):
    """A recovery code that is wrong, expired, used, burnt or absent."""


class StoreUnavailable(StoreError):
    """The store could not be reached, or throttled us, after the bounded retries."""


@dataclass(frozen=True)
class Usage:
    """One account's usage item for one UTC month (`period` is 'YYYY-MM')."""

    used: int
    tat_us: int | None


class MeteringStore(ABC):
    """Primitives over which metering is written. All methods may raise StoreUnavailable."""

    @abstractmethod
    def get_account_by_key(self, key_hash: str) -> Account | None:
        """The account whose active key hashes to `key_hash`, or None."""

    @abstractmethod
    def get_account_by_email(self, email: str) -> Account | None:
        """The account with this e-mail address (compared in lower case), or None."""

    @abstractmethod
    def create_account(self, account: Account) -> None:
        """Store a new account with its key and e-mail index, all or nothing.

        Raise AccountExists if the e-mail address or the key is taken.
        """

    @abstractmethod
    def update_account(self, account: Account) -> None:
        """Replace the stored fields of an existing account (not its key or e-mail)."""

    @abstractmethod
    def take_token(self, account_id: str, period: str, bucket: Bucket, *, quota: int | None, expires_at: int) -> int:
        """Take one token from the account's bucket, atomically, and return the new TAT.

        Raise BucketEmpty if the bucket's TAT is above `bucket.ceiling_us`, else
        QuotaUsedUp if `quota` is given and the period's count is at least `quota`;
        nothing is changed then. `expires_at` (epoch seconds) is when the item may be deleted.
        """

    @abstractmethod
    def count_success(self, account_id: str, period: str, *, quota: int, request_id: str, expires_at: int) -> int:
        """Add one to the period's count if it is below `quota`; return the new count.

        Idempotent per `request_id`: a retry of a call that already counted returns
        that count instead of counting again. Raise QuotaUsedUp when the count is
        already at `quota`.
        """

    @abstractmethod
    def get_account_by_customer(self, customer_id: str) -> Account | None:
        """The account linked to the payment provider's customer id, or None."""

    @abstractmethod
    def claim_event(self, event_id: str, *, expires_at: int) -> bool:
        """Record a webhook event id; False when it was recorded before (a replay or a concurrent delivery)."""

    @abstractmethod
    def release_event(self, event_id: str) -> None:
        """Forget a claimed event id (its processing failed, so the provider's retry may run it)."""

    @abstractmethod
    def list_accounts(self, *, limit: int = 1000) -> list[Account]:
        """Accounts, in no particular order, at most `limit` (an administrative scan)."""

    @abstractmethod
    def replace_key(self, account: Account, new_key_hash: str) -> Account:
        """Make `new_key_hash` the account's only key, all or nothing: the old key stops working at once.

        Raise KeyChanged if the account's key is no longer `account.key_hash`.
        """

    @abstractmethod
    def put_recovery_code(self, email: str, code_hash: str, *, expires_at: int) -> None:
        """Store the e-mail's recovery code (replacing any earlier one), unused, 0 failed tries;
        `expires_at` in epoch seconds."""

    @abstractmethod
    def use_recovery_code(self, email: str, code_hash: str, *, now: int, max_tries: int) -> None:
        """Mark the code used if it matches, is unexpired, unused and has had fewer than
        `max_tries` failed tries; exactly one concurrent caller can succeed. Otherwise count a
        failed try and raise CodeRejected."""

    @abstractmethod
    def get_usage(self, account_id: str, period: str) -> Usage:
        """The period's usage item (used 0 and no TAT when there is none)."""
