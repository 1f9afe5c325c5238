"""Key rotation and recovery by e-mailed one-time code.

A recovery code is 8 digits from the OS CSPRNG, stored only as a SHA-256 (with the address), valid
for 10 minutes, used at most once (a conditional update: of two concurrent confirms exactly one
wins) and burnt after 5 wrong tries. Requests for recovery are limited per e-mail address and per
source address (token buckets in the same table), and answer the same whether or not an account
exists: the same store work is done either way and the reply is padded to a fixed minimum time.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass

from fileapi.account.mailer import Mailer
from fileapi.errors import InvalidInput, RateLimited, Unauthorized
from fileapi.metering.accounts import Account, Limits
from fileapi.metering.keys import generate_key, hash_key
from fileapi.metering.meter import guarded
from fileapi.metering.ratelimit import Bucket
from fileapi.metering.store import AccountStore, BucketEmpty, CodeRejected, KeyChanged

CODE_TTL_SECONDS = 600
MAX_CODE_TRIES = 5
RECOVERY_MESSAGE = "If an account exists for this address, a code has been sent to it. It is valid for 10 minutes."
_EMAIL = re.compile(r"[^@\s]{1,64}@[^@\s]+\.[^@\s]+")
_CODE = re.compile(r"\d{8}")


@dataclass(frozen=True)
class AbuseLimit:
    """A token bucket of `burst` requests refilled at `per_hour`."""

    per_hour: float
    burst: int

    def limits(self) -> Limits:
        return Limits(quota_monthly=0, sustained_per_second=self.per_hour / 3600, burst=self.burst)


PER_EMAIL = AbuseLimit(per_hour=5, burst=5)
PER_SOURCE = AbuseLimit(per_hour=30, burst=20)


def check_email(email: object) -> str:
    """The address, trimmed and lower-cased. :raises InvalidInput: not an e-mail address."""
    if not isinstance(email, str) or len(email) > 254 or not _EMAIL.fullmatch(email.strip()):
        raise InvalidInput("email must be an e-mail address")
    return email.strip().lower()


def code_hash(email: str, code: str) -> str:
    return hashlib.sha256(f"{email.lower()}:{code}".encode()).hexdigest()


class KeyService:
    """Rotation and recovery over the metering store and a mailer.

    :param clock: epoch seconds (injected in tests).
    """

    def __init__(self, store: AccountStore, mailer: Mailer, *, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.mailer = mailer
        self.clock = clock

    def account(self, account_id: str) -> Account:
        """The account with this id (admitted just now, so it exists unless deleted meanwhile).

        :raises Unauthorized: the account is gone.
        """
        account = guarded(lambda: self.store.get_account(account_id))
        if account is None:
            raise Unauthorized("invalid API key")
        return account

    def rotate_account(self, account_id: str, key_hash: str) -> str:
        """Rotate the key that hashes to `key_hash` of the account with this id (see `rotate`).

        :raises Unauthorized: that key is no longer the account's (rotated by a concurrent request).
        """
        account = self.account(account_id)
        if account.key_hash != key_hash:
            raise Unauthorized("invalid API key")
        return self.rotate(account)

    def rotate(self, account: Account) -> str:
        """Replace the account's key; the old one is invalid at once; the new one is e-mailed and returned."""
        key = generate_key()
        try:
            guarded(lambda: self.store.replace_key(account, hash_key(key)))
        except KeyChanged:
            raise InvalidInput("the key was rotated by another request; use the newest key") from None
        self.mailer.send(
            to=account.email,
            subject="Your new API key",
            text=f"Your API key was rotated. The previous key no longer works.\n\nNew key: {key}\n",
        )
        return key

    def start_recovery(self, email: str, *, source: str) -> None:
        """Issue and e-mail a code when an account exists; the same store work either way."""
        address = check_email(email)
        self._throttle(f"RECOVER-EMAIL#{address}", PER_EMAIL)
        self._throttle(f"RECOVER-SOURCE#{source}", PER_SOURCE)
        code = f"{secrets.randbelow(10**8):08d}"
        account = guarded(lambda: self.store.get_account_by_email(address))
        expires = int(self.clock()) + CODE_TTL_SECONDS
        guarded(lambda: self.store.put_recovery_code(address, code_hash(address, code), expires_at=expires))
        if account is not None:
            self.mailer.send(
                to=account.email,
                subject="Your key recovery code",
                text=f"Your one-time code is {code}. It is valid for 10 minutes and works once.\n",
            )

    def confirm_recovery(self, email: str, code: object, *, source: str) -> str:
        """Exchange a valid code for a new key (the old key stops working at once).

        :raises InvalidInput: a code that is not 8 digits, or that is wrong, expired or used.
        """
        address = check_email(email)
        if not isinstance(code, str) or not _CODE.fullmatch(code):
            raise InvalidInput("code must be the 8 digits from the e-mail")
        self._throttle(f"RECOVER-SOURCE#{source}", PER_SOURCE)
        try:
            guarded(
                lambda: self.store.use_recovery_code(
                    address, code_hash(address, code), now=int(self.clock()), max_tries=MAX_CODE_TRIES
                )
            )
        except CodeRejected:
            raise InvalidInput("the code is wrong, expired or already used") from None
        account = guarded(lambda: self.store.get_account_by_email(address))
        if account is None:
            raise InvalidInput("the code is wrong, expired or already used")
        key = generate_key()
        guarded(lambda: self.store.replace_key(account, hash_key(key)))
        self.mailer.send(
            to=account.email,
            subject="Your new API key",
            text=f"Your key was recovered. The previous key no longer works.\n\nNew key: {key}\n",
        )
        return key

    def _throttle(self, subject: str, limit: AbuseLimit) -> None:
        now = self.clock()
        bucket = Bucket.at(int(now * 1_000_000), limit.limits())
        try:
            guarded(lambda: self.store.throttle(subject, bucket, expires_at=int(now) + 2 * 86_400))
        except BucketEmpty as exc:
            raise RateLimited(
                "too many recovery requests; try again later",
                retry_after_seconds=bucket.retry_after_seconds(exc.tat_us),
            ) from None
